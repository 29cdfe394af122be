#!/usr/bin/env python3
"""gemm_plot.py CSV SVG - the plot of tests/bench/gemm.sh: TFLOP/s (TOP/s
for integer inputs) of mmagen's GEMM beside cuBLASLt's, one panel per
type, problems along x in order of their work (2*M*N*K), as one
self-contained SVG (no libraries beyond Python's own).

CSV columns: m,n,k,type,mmagen_tflops,cublaslt_tflops,ratio (the last two
may be empty when cuBLASLt was not measured), then split, mmagen_mhz and
cublaslt_mhz, not drawn; columns are read by name."""
import csv
import math
import sys
from xml.sax.saxutils import escape

PANEL_W, PANEL_H = 760, 300
LEFT, RIGHT, TOP, BOTTOM = 70, 20, 40, 90
COLORS = {"mmagen": "#1f77b4", "cuBLASLt": "#d62728"}


def number(s):
    try:
        v = float(s)
    except (TypeError, ValueError):
        return None
    return v if math.isfinite(v) and v >= 0 else None


def read(path):
    types = {}
    with open(path, newline="") as f:
        for row in csv.DictReader(f):
            try:
                m, n, k = int(row["m"]), int(row["n"]), int(row["k"])
            except (KeyError, TypeError, ValueError):
                raise SystemExit("gemm_plot.py: %s: a row without m, n, k: %r" % (path, row))
            types.setdefault(row["type"], []).append(
                (m, n, k, number(row.get("mmagen_tflops")), number(row.get("cublaslt_tflops")),
                 number(row.get("ratio"))))
    return types


def nice_top(v):
    if v <= 0:
        return 1.0
    e = 10 ** math.floor(math.log10(v))
    for s in (1, 2, 2.5, 5, 10):
        if v <= s * e:
            return s * e
    return 10 * e


def panel(out, y0, name, rows):
    rows = sorted(rows, key=lambda r: (2.0 * r[0] * r[1] * r[2], r))
    unit = "TOP/s" if name.split("x")[0] in ("s8", "u8") else "TFLOP/s"
    top = nice_top(max([v for r in rows for v in (r[3], r[4]) if v is not None] + [1.0]))
    w = PANEL_W - LEFT - RIGHT
    h = PANEL_H - TOP - BOTTOM
    n = len(rows)

    def x(i):
        return LEFT + (i + 0.5) * w / max(n, 1)

    def y(v):
        return y0 + TOP + h - v / top * h

    ratios = [r[5] for r in rows if r[5]]
    gm = math.exp(sum(math.log(v) for v in ratios) / len(ratios)) if ratios else None
    title = "%s: %s against problem size" % (name, unit)
    if gm is not None:
        title += " (geometric mean of %d ratios mmagen/cuBLASLt: %.3f)" % (len(ratios), gm)
    out.append('<text x="%d" y="%d" font-size="13" font-weight="bold">%s</text>'
               % (LEFT, y0 + 16, escape(title)))
    for t in range(6):
        v = top * t / 5
        out.append('<line x1="%d" x2="%d" y1="%.1f" y2="%.1f" stroke="#ddd"/>'
                   % (LEFT, LEFT + w, y(v), y(v)))
        out.append('<text x="%d" y="%.1f" font-size="11" text-anchor="end">%g</text>'
                   % (LEFT - 6, y(v) + 4, v))
    out.append('<text x="14" y="%.1f" font-size="11" transform="rotate(-90 14 %.1f)" '
               'text-anchor="middle">%s</text>' % (y0 + TOP + h / 2, y0 + TOP + h / 2, unit))
    for i, r in enumerate(rows):
        out.append('<text x="%.1f" y="%d" font-size="10" text-anchor="end" '
                   'transform="rotate(-45 %.1f %d)">%dx%dx%d</text>'
                   % (x(i), y0 + TOP + h + 14, x(i), y0 + TOP + h + 14, r[0], r[1], r[2]))
    for col, who in ((3, "mmagen"), (4, "cuBLASLt")):
        pts = [(x(i), y(r[col])) for i, r in enumerate(rows) if r[col] is not None]
        if len(pts) > 1:
            out.append('<polyline fill="none" stroke="%s" stroke-width="1.5" points="%s"/>'
                       % (COLORS[who], " ".join("%.1f,%.1f" % p for p in pts)))
        for px, py in pts:
            out.append('<circle cx="%.1f" cy="%.1f" r="3" fill="%s"/>' % (px, py, COLORS[who]))
    for j, who in enumerate(("mmagen", "cuBLASLt")):
        lx = LEFT + w - 200 + j * 100
        out.append('<rect x="%d" y="%d" width="12" height="10" fill="%s"/>'
                   % (lx, y0 + 24, COLORS[who]))
        out.append('<text x="%d" y="%d" font-size="12">%s</text>' % (lx + 16, y0 + 34, who))
    out.append('<rect x="%d" y="%d" width="%d" height="%d" fill="none" stroke="#888"/>'
               % (LEFT, y0 + TOP, w, h))


def main(argv):
    if len(argv) != 3:
        raise SystemExit("usage: gemm_plot.py CSV SVG")
    types = read(argv[1])
    if not types:
        raise SystemExit("gemm_plot.py: %s has no rows" % argv[1])
    out = []
    for i, name in enumerate(sorted(types)):
        panel(out, i * PANEL_H, name, types[name])
    height = PANEL_H * len(types)
    svg = ('<?xml version="1.0" encoding="UTF-8"?>\n'
           '<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" '
           'viewBox="0 0 %d %d" font-family="sans-serif">\n'
           '<rect width="100%%" height="100%%" fill="white"/>\n%s\n</svg>\n'
           % (PANEL_W, height, PANEL_W, height, "\n".join(out)))
    tmp = argv[2] + ".tmp"
    with open(tmp, "w") as f:
        f.write(svg)
    import os
    os.replace(tmp, argv[2])


if __name__ == "__main__":
    main(sys.argv)
