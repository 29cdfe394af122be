#!/bin/sh
# test_list.sh MMAGEN - `list` is honest (every field filters, rows are
# distinct and round-trip into a request, natural order, JSON everywhere),
# ambiguous requests name what tells the forms apart, `emit tile` reports
# the defaults it took, and suggestions point at the right family.
# Expectations are written here by hand or derived in Python, not read
# from the code under test.
mm=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
ok() { pass=$((pass + 1)); }
ko() { fail=$((fail + 1)); echo "FAIL: $*"; }
check() { if eval "$1"; then ok; else ko "$2"; fi; }

# err RC PATTERN ARGS... : exit RC, one stderr line containing PATTERN
# (fixed string), nothing on stdout
err() {
	want=$1 pat=$2; shift 2
	"$mm" "$@" >"$tmp/stdout" 2>"$tmp/stderr"
	rc=$?
	if [ $rc -ne "$want" ]; then ko "exit $rc, not $want, for: $* :: $(cat "$tmp/stderr")"; return; fi
	if [ "$(wc -l <"$tmp/stderr")" -ne 1 ]; then ko "not one stderr line for: $* :: $(cat "$tmp/stderr")"; return; fi
	if ! grep -qF -- "$pat" "$tmp/stderr"; then ko "message lacks '$pat' for: $* :: $(cat "$tmp/stderr")"; return; fi
	if [ -s "$tmp/stdout" ]; then ko "stdout not empty for: $*"; return; fi
	ok
}

# ---- each row is one form: no duplicate rows, text or JSON ----
for arch in "" "--arch sm_80" "--arch sm_90a" "--arch sm_100a" "--arch sm_120a"; do
	# shellcheck disable=SC2086
	"$mm" list $arch >"$tmp/rows"
	check '[ "$(wc -l <"$tmp/rows")" -gt 100 ] && [ -z "$(sort "$tmp/rows" | uniq -d)" ]' \
		"list $arch has duplicate rows: $(sort "$tmp/rows" | uniq -d | head -3)"
	# shellcheck disable=SC2086
	"$mm" list $arch --json >"$tmp/rows.json"
	python3 - "$tmp/rows.json" "$(($(wc -l <"$tmp/rows") - 1))" <<'PY' && ok || ko "list $arch --json"
import json, sys
rows = json.load(open(sys.argv[1]))
assert len(rows) == int(sys.argv[2]), (len(rows), sys.argv[2])
keys = ["family", "shape", "a", "b", "c", "d", "sparse", "layout", "satfinite", "popc",
        "kind", "block_scale", "scale_vec", "stype", "cta_group", "ws", "ashift", "asrc",
        "rnd", "num", "trans", "ldtype"]
for r in rows:
    assert set(keys) <= set(r), sorted(set(keys) - set(r))
seen = set()
for r in rows:
    k = tuple(r[x] for x in keys)
    assert k not in seen, k
    seen.add(k)
PY
done
# the NVFP4/MXFP4 tcgen05 forms that differ only in the scale type: both shown
"$mm" list --arch sm_100a --family tcgen05 --kind mxf4nvf4 --scale-vec 4X --cta-group 1 --asrc smem >"$tmp/a"
check '[ "$(grep -c " ue4m3 " "$tmp/a")" -eq 1 ] && [ "$(grep -c " ue8m0 " "$tmp/a")" -eq 1 ]' \
	"list lacks a scale-type column: $(cat "$tmp/a")"

# ---- round trip: a JSON row's fields, given back, select that form alone;
# ---- every selector option filters (each row checked) ----
"$mm" list --json >"$tmp/all.json"
python3 - "$mm" "$tmp/all.json" <<'PY' && ok || ko "round trip / filters (above)"
import json, subprocess, sys
mm, every = sys.argv[1], json.load(open(sys.argv[2]))
def run(args):
    p = subprocess.run([mm] + args, capture_output=True, text=True)
    assert p.returncode == 0, (args, p.stderr)
    return json.loads(p.stdout)
bad = 0
skip = {"opcode", "a_source", "min_arch", "min_ptx"}
# every 29th row, and every tcgen05 mxf4nvf4 row (those that once printed alike)
pick = [r for i, r in enumerate(every) if i % 29 == 0 or
        (r["family"].startswith("tcgen05") and r["kind"] == "mxf4nvf4")]
assert len(pick) > 150, len(pick)
for r in pick:
    args = ["list", "--json", "--arch", r["min_arch"]]
    args += [a for k, v in r.items() if k not in skip and v != "-"
             for a in ("--" + k.replace("_", "-"), v)]
    one = run(args)
    if len(one) != 1 or one[0] != r:
        bad += 1
        print("FAIL: round trip of", r["opcode"], " ".join(args), "->", len(one), "rows")
for opt in ["shape m16n8k32", "a e4m3", "b u8", "c f16", "d s32", "sparse ordered",
            "layout col.row", "satfinite yes", "popc and", "kind f8f6f4", "block-scale yes",
            "scale-vec 2X", "stype ue4m3", "cta-group 2", "ws yes", "ashift yes", "asrc reg",
            "rnd rz", "num x2", "trans yes", "ldtype b8", "family wgmma.sp"]:
    name, val = opt.split()
    key = name.replace("-", "_")
    rows = run(["list", "--json", "--" + name, val])
    want = [r for r in every if r[key] == val]
    if not rows or len(rows) >= len(every) or rows != want:
        bad += 1
        print("FAIL: list --%s %s: %d rows, want %d" % (name, val, len(rows), len(want)))
sys.exit(bad != 0)
PY

# ---- --opcodes: natural order; --json goes with --opcodes and --targets ----
"$mm" list --opcodes >"$tmp/ops"
python3 - "$tmp/ops" <<'PY' && ok || ko "--opcodes is not in natural order"
import re, sys
ops = open(sys.argv[1]).read().split("\n")[:-1]
key = lambda s: [(0, int(t), "") if t.isdigit() else (1, 0, t) for t in re.findall(r"\d+|\D+", s)]
assert ops == sorted(ops, key=key) and len(ops) == len(set(ops)) and len(ops) > 300
i16 = ops.index("wgmma.mma_async.sync.aligned.m64n16k16.f32.bf16.bf16")
i104 = ops.index("wgmma.mma_async.sync.aligned.m64n104k16.f32.bf16.bf16")
assert i16 < i104
PY
"$mm" list --opcodes --json >"$tmp/ops.json"
python3 -c 'import json,sys; assert json.load(open(sys.argv[1])) == open(sys.argv[2]).read().split("\n")[:-1]' \
	"$tmp/ops.json" "$tmp/ops" && ok || ko "list --opcodes --json differs from --opcodes"
"$mm" list --targets >"$tmp/t" && "$mm" list --targets --json >"$tmp/t.json"
python3 -c 'import json,sys; t = json.load(open(sys.argv[1])); assert [x["name"] for x in t] == [l.split()[0] for l in open(sys.argv[2])]; assert all(x["min_ptx"][0].isdigit() for x in t)' \
	"$tmp/t.json" "$tmp/t" && ok || ko "list --targets --json differs from --targets"
err 2 "list prints one of --opcodes, --targets" list --opcodes --targets
err 2 "'list' takes no -o" list --targets -o "$tmp/x"
check '[ ! -e "$tmp/x" ]' "list --targets -o created a file"

# ---- ambiguity: which fields tell the forms apart, and how many ----
err 1 "request matches 6 forms on sm_100a that differ in --cta-group (1, 2), --ws (no, yes), --asrc (smem, tmem)" \
	emit instr --arch sm_100a --family tcgen05 --a f16 --d f32
err 1 "request matches 2 forms on sm_90a that differ in --trans (no, yes)" \
	emit instr --arch sm_90a --family ldmatrix --shape m8n8 --num x4
err 1 "request matches 4 forms on sm_90a that differ in --shape (m8n8k4, m16n8k4, m16n8k8, m16n8k16)" \
	emit instr --arch sm_90a --family mma --a f64
err 1 "differ in --c (f16, f32), --d (f16, f32); give those fields or --opcode (e.g. mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16, mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32)" \
	emit instr --arch sm_90 --family mma --shape m16n8k16 --a f16

# ---- emit tile: the defaults it took, on stderr and in the manifest ----
"$mm" emit tile --arch sm_100a --family tcgen05 --kind mxf4nvf4 --scale-vec 4X --cta-group 1 \
	--format json >"$tmp/m.json" 2>"$tmp/stderr"
check '[ $? -eq 0 ] && [ "$(wc -l <"$tmp/stderr")" -eq 1 ] && grep -qF -- "--stype ue4m3 (also ue8m0)" "$tmp/stderr" && grep -qF -- "--asrc smem (also tmem)" "$tmp/stderr"' \
	"emit tile --kind mxf4nvf4 --scale-vec 4X: stderr $(cat "$tmp/stderr")"
python3 -c 'import json,sys; m = json.load(open(sys.argv[1])); assert m["defaults"] == {"stype": "ue4m3", "asrc": "smem"}, m.get("defaults"); assert [p["type"] for p in m["params"] if p["name"] == "SA"] == ["ue4m3"]' \
	"$tmp/m.json" && ok || ko "manifest defaults for mxf4nvf4 4X"
"$mm" emit tile --arch sm_100a --opcode tcgen05.mma.cta_group::1.kind::f16 --format json >"$tmp/m.json" 2>"$tmp/stderr"
python3 -c 'import json,sys; m = json.load(open(sys.argv[1])); d = m["defaults"]; assert d == {"a": "f16", "b": "f16", "c": "f16", "d": "f16", "asrc": "smem"}, d; assert m["params"][0]["type"] == d["a"]' \
	"$tmp/m.json" && grep -qF -- "--a f16 (also bf16)" "$tmp/stderr" && ok || ko "manifest defaults for a bare tcgen05 opcode: $(cat "$tmp/stderr")"
# fully given: no note, no defaults member, and the other scale type is honoured
"$mm" emit tile --arch sm_100a --family tcgen05 --kind mxf4nvf4 --scale-vec 4X --cta-group 1 \
	--stype ue8m0 --asrc smem --format json >"$tmp/m.json" 2>"$tmp/stderr"
python3 -c 'import json,sys; m = json.load(open(sys.argv[1])); assert "defaults" not in m; assert [p["type"] for p in m["params"] if p["name"] == "SA"] == ["ue8m0"]' \
	"$tmp/m.json" && [ ! -s "$tmp/stderr" ] && ok || ko "a complete request still reports defaults: $(cat "$tmp/stderr")"
"$mm" emit tile --arch sm_90a --opcode mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 --format json >"$tmp/m.json" 2>"$tmp/stderr"
check '[ ! -s "$tmp/stderr" ] && ! grep -q defaults "$tmp/m.json"' "an mma opcode reports defaults: $(cat "$tmp/stderr")"
# the PTX kernel itself: the same note, the kernel unchanged by it
"$mm" emit tile --arch sm_100a --family tcgen05 --kind mxf4nvf4 --scale-vec 4X --cta-group 1 >"$tmp/k1.ptx" 2>"$tmp/stderr"
"$mm" emit tile --arch sm_100a --family tcgen05 --kind mxf4nvf4 --scale-vec 4X --cta-group 1 --stype ue4m3 --asrc smem >"$tmp/k2.ptx" 2>/dev/null
check 'grep -q "took --stype ue4m3" "$tmp/stderr" && cmp -s "$tmp/k1.ptx" "$tmp/k2.ptx"' "emit tile PTX: the default is not what it says"

# ---- suggestions: the right family, classes of types, conflicts ----
err 1 "nearest legal on sm_90a: wgmma.mma_async" emit instr --arch sm_90a --opcode tcgen05.mma.cta_group::1.kind::f16
err 1 "nearest legal on sm_90a: wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16" \
	emit instr --arch sm_90a --family tcgen05 --a f16 --d f32
err 1 "nearest legal on sm_90a: wgmma.mma_async" emit instr --arch sm_90a --family tcgen05 --kind i8
err 2 "unknown element type 'fp8': it names several; use e4m3 or e5m2" emit instr --arch sm_90a --a fp8
err 2 "use e3m2 or e2m3" list --a fp6
err 1 "--opcode mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 conflicts with --a (the opcode has bf16)" \
	emit instr --arch sm_90a --opcode mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 --a f16
grep -qF "nearest the opcode on sm_90a: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32" "$tmp/stderr" && ok ||
	ko "conflict suggests: $(cat "$tmp/stderr")"
err 1 "conflicts with --cta-group (the opcode has 1)" \
	emit instr --arch sm_100a --opcode tcgen05.mma.cta_group::1.kind::f16 --cta-group 2

# ---- finding 6: a huge opcode is cheap to refuse, and not echoed whole ----
# (time limits x MMAGEN_TEST_SLOWDOWN: .ci/sanitize sets it for ASan builds)
slow=${MMAGEN_TEST_SLOWDOWN:-1}
long=$(python3 -c "print('mma.sync.aligned.m16n8k16' + 'x' * 100000)")
start=$(date +%s)
err 1 "is not a legal opcode" emit instr --arch sm_90a --opcode "$long"
check '[ $(($(date +%s) - start)) -le $((2 * slow)) ] && [ "$(wc -c <"$tmp/stderr")" -lt 1100 ]' \
	"a 100000-byte opcode: $(($(date +%s) - start)) s, $(wc -c <"$tmp/stderr") bytes of message"
start=$(date +%s)
i=0
while [ $i -lt 50 ]; do
	"$mm" emit instr --arch sm_90a --opcode "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f9$i" 2>/dev/null
	i=$((i + 1))
done
check '[ $(($(date +%s) - start)) -le $((5 * slow)) ]' "50 failed lookups took $(($(date +%s) - start)) s"

# ---- the request is checked before the driver is looked for ----
err 1 "'bogus' is not a legal opcode on any target" run tile --opcode bogus
echo x >"$tmp/in.f32"
err 2 "unknown block-scaled format 'mxfp9'" quantize --format mxfp9 --in "$tmp/in.f32" --out "$tmp/o" --scales "$tmp/s"

echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
