"""Host time per call of mmagen.gemm beside torch.matmul's for the same
small problems, measured in one run with the GPU kept busy (a sleep
kernel queued first), so that each figure is the Python and driver work
of a call, not the GPU's.  Medians of repeats, the two alternated.

    python tests/bench/python_overhead.py [--reps 15] [--calls 400]
"""
from __future__ import annotations

import argparse
import statistics
import time
from typing import Any, Callable, Dict, List

import torch

import mmagen


def host_us(fn: Callable[[], Any], calls: int) -> float:
    torch.cuda._sleep(400_000_000)       # ~0.2 s of GPU time queued first
    t0 = time.perf_counter()
    for _ in range(calls):
        fn()
    t1 = time.perf_counter()
    torch.cuda.synchronize()
    return (t1 - t0) / calls * 1e6


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--reps", type=int, default=15)
    ap.add_argument("--calls", type=int, default=400)
    args = ap.parse_args()
    problems = [(64, 512, 512, torch.bfloat16), (16, 4096, 4096, torch.bfloat16),
                (128, 1024, 1024, torch.float16)]
    rows = []
    for m, n, k, dt in problems:
        a = torch.randn(m, k, device="cuda").to(dt)
        b = torch.randn(k, n, device="cuda").to(dt)
        o1 = torch.empty(m, n, device="cuda", dtype=dt)
        o2 = torch.empty(m, n, device="cuda", dtype=dt)
        fns: Dict[str, Callable[[], Any]] = {
            "torch.matmul(a, b)": lambda: torch.matmul(a, b),
            "mmagen.gemm(a, b)": lambda: mmagen.gemm(a, b),
            "torch.matmul(a, b, out=o)": lambda: torch.matmul(a, b, out=o1),
            "mmagen.gemm(a, b, out=o)": lambda: mmagen.gemm(a, b, out=o2),
        }
        for f in fns.values():            # warm-up: kernels made, caches full
            f()
        torch.cuda.synchronize()
        times: Dict[str, List[float]] = {name: [] for name in fns}
        for _ in range(args.reps):
            for name, f in fns.items():
                times[name].append(host_us(f, args.calls))
        med = {name: statistics.median(v) for name, v in times.items()}
        # results agree (the figures are of working calls)
        ref = torch.matmul(a.float(), b.float())
        err = (mmagen.gemm(a, b).float() - ref).abs().max().item()
        scale = ref.abs().max().item()
        rows.append((f"{m}x{n}x{k} {str(dt).replace('torch.', '')}", med, err / scale))
    print(f"torch {torch.__version__}, {torch.cuda.get_device_name()}, "
          f"{args.reps} repeats of {args.calls} calls, medians (us of host time per call)")
    print(f"{'problem':24} {'torch':>8} {'mmagen':>8} {'ratio':>6} | {'torch out=':>10} "
          f"{'mmagen out=':>11} {'ratio':>6} | max rel err")
    for name, med, rel in rows:
        t, g = med["torch.matmul(a, b)"], med["mmagen.gemm(a, b)"]
        to, go = med["torch.matmul(a, b, out=o)"], med["mmagen.gemm(a, b, out=o)"]
        print(f"{name:24} {t:8.2f} {g:8.2f} {g / t:6.2f} | {to:10.2f} {go:11.2f} "
              f"{go / to:6.2f} | {rel:.2e}")


if __name__ == "__main__":
    main()
