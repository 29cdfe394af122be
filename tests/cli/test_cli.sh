#!/bin/sh
# test_cli.sh MMAGEN - the command line: good requests work, bad ones fail
# with one line naming the rule, a non-zero exit and no output file.
mm=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
ok() { pass=$((pass + 1)); }
ko() { fail=$((fail + 1)); echo "FAIL: $*"; }

# expect_fail PATTERN ARGS... : exit != 0, exactly one stderr line matching
# PATTERN, nothing on stdout, and -o target (if any) not created
expect_fail() {
	pat=$1; shift
	rm -f "$tmp/out.ptx"
	"$mm" "$@" >"$tmp/stdout" 2>"$tmp/stderr"
	rc=$?
	lines=$(wc -l <"$tmp/stderr")
	if [ $rc -eq 0 ]; then ko "exit 0 for: $*"; return; fi
	if [ "$lines" -ne 1 ]; then ko "$lines stderr lines for: $* :: $(cat "$tmp/stderr")"; return; fi
	if ! grep -q -- "$pat" "$tmp/stderr"; then ko "message lacks '$pat' for: $* :: $(cat "$tmp/stderr")"; return; fi
	if [ -s "$tmp/stdout" ]; then ko "stdout not empty for: $*"; return; fi
	if [ -e "$tmp/out.ptx" ]; then ko "output file left for: $*"; return; fi
	if ls "$tmp" | grep -q tmp; then ko "temporary file left for: $*"; return; fi
	ok
}

expect_ok() {
	"$mm" "$@" >"$tmp/stdout" 2>"$tmp/stderr" || { ko "failed: $* :: $(cat "$tmp/stderr")"; return 1; }
	ok
}

O="$tmp/out.ptx"
expect_fail "wgmma has no s4/u4 (INT4) form; INT4 runs only through mma.sync" \
	emit instr --arch sm_90a --family wgmma --a s4 --b s4 -o "$O"
expect_fail "bf16 and tf32 inputs accumulate only in f32" \
	emit instr --arch sm_90 --family mma --shape m16n8k16 --a bf16 --b bf16 --d f16 -o "$O"
expect_fail "wgmma needs target sm_90a, not sm_90" \
	emit instr --arch sm_90 --family wgmma --shape m64n64k16 --a f16 --d f32 -o "$O"
expect_fail "tcgen05 does not exist on sm_120a; use mma.sync kind::f8f6f4" \
	emit instr --arch sm_120a --family tcgen05 --a f16 -o "$O"
expect_fail "unknown target 'sm_91'; nearest: sm_90" emit instr --arch sm_91 --family mma -o "$O"
expect_fail "unknown option '--bogus'" emit instr --arch sm_90 --bogus 1 -o "$O"
expect_fail "option --arch needs a value" emit instr --family mma --arch
expect_fail "unknown element type 'fp9'" emit instr --arch sm_90 --a fp9 -o "$O"
expect_fail "bad --shape 'm16x8'" emit instr --arch sm_90 --shape m16x8 -o "$O"
expect_fail "bad value 'maybe' for --satfinite" emit instr --arch sm_90 --satfinite maybe -o "$O"
expect_fail "unknown family 'mmx'" emit instr --arch sm_90 --family mmx -o "$O"
expect_fail "is not a legal opcode; nearest legal on sm_90: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32" \
	emit instr --arch sm_90 --opcode mma.sync.aligned.m16n8k16.row.col.f16.bf16.bf16.f32 -o "$O"
expect_fail "needs target sm_90a" emit instr --arch sm_80 --opcode wgmma.mma_async.sync.aligned.m64n8k16.f32.bf16.bf16 -o "$O"
expect_fail "request matches" emit instr --arch sm_90 --family mma --shape m16n8k16 --a f16 -o "$O"
expect_fail "unknown command 'frobnicate'" frobnicate
expect_fail "bad value 'sass' for --format" emit instr --arch sm_90 --family mma --format sass -o "$O"
expect_fail "cannot" emit instr --arch sm_90 --opcode mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 -o "$tmp/no/such/dir/x.ptx"
expect_fail "unknown target" list --arch sm_42

# an existing file is not clobbered by a failing request
echo keep >"$tmp/keep.ptx"
"$mm" emit instr --arch sm_90 --family wgmma --a f16 -o "$tmp/keep.ptx" 2>/dev/null
[ "$(cat "$tmp/keep.ptx")" = keep ] && ok || ko "failing emit clobbered an existing file"

# -o writes what stdout would, and twice the same bytes (determinism)
OP=mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
for fmt in ptx cuda text; do
	expect_ok emit instr --arch sm_90 --opcode $OP --format $fmt -o "$tmp/a.$fmt"
	expect_ok emit instr --arch sm_90 --opcode $OP --format $fmt
	cmp -s "$tmp/stdout" "$tmp/a.$fmt" && ok || ko "-o and stdout differ ($fmt)"
done
expect_ok emit instr --arch sm_90 --family mma --shape m16n8k16 --a bf16 --b bf16 --c f32 --d f32 --sparse none
cmp -s "$tmp/stdout" "$tmp/a.ptx" && ok || ko "field selection and opcode selection differ"

# list: filters and JSON
expect_ok list --arch sm_90a --family wgmma --type e4m3 --json
python3 - "$tmp/stdout" <<'PY' && ok || ko "list --json is not the expected array"
import json, sys
rows = json.load(open(sys.argv[1]))
assert rows and all(r["family"].startswith("wgmma") for r in rows)
need = {"opcode", "family", "shape", "a", "b", "c", "d", "min_arch", "min_ptx"}
assert all(need <= set(r) for r in rows)
assert all("e4m3" in (r["a"], r["b"]) for r in rows)
assert any(r["shape"] == "m64n256k32" for r in rows)
PY
expect_ok list --arch sm_90 --opcodes
python3 -c 'import re,sys; o = open(sys.argv[1]).read().split(); k = lambda s: [(0, int(t), "") if t.isdigit() else (1, 0, t) for t in re.findall(r"\d+|\D+", s)]; sys.exit(o != sorted(o, key=k))' \
	"$tmp/stdout" && ok || ko "--opcodes not in natural order"
grep -qx "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32" "$tmp/stdout" && ok || ko "--opcodes lacks the bf16 form"
grep -q "wgmma" "$tmp/stdout" && ko "sm_90 lists wgmma" || ok
[ "$(uniq -d "$tmp/stdout" | wc -l)" -eq 0 ] && ok || ko "--opcodes has duplicates"
expect_ok list --arch sm_120a --opcodes
grep -q "^tcgen05" "$tmp/stdout" && ko "sm_120a lists tcgen05" || ok
grep -qx "mma.sync.aligned.m16n8k64.row.col.kind::mxf4nvf4.block_scale.scale_vec::4X.f32.e2m1.e2m1.f32.ue4m3" "$tmp/stdout" && ok || ko "sm_120a lacks NVFP4 mma"
# tile kernels
expect_fail "ldmatrix has no tile kernel" emit tile --arch sm_90a --family ldmatrix --shape m8n8 --num x4 --trans no -o "$O"
expect_fail "swizzle" emit tile --arch sm_90a --opcode $OP --swizzle 48 -o "$O"
expect_fail "bad value 'cuda' for --format" emit tile --arch sm_90 --opcode $OP --format cuda -o "$O"
expect_fail "bad --seed 'abc'" run tile --opcode $OP --seed abc
expect_fail "bad --device 'x'" run tile --opcode $OP --device x
expect_fail "bad value 'huge' for --inputs" run tile --opcode $OP --inputs huge
expect_fail "'run tile' takes no -o" run tile --opcode $OP -o "$O"
expect_ok emit tile --arch sm_80 --opcode mma.sp::ordered_metadata.sync.aligned.m16n8k32.row.col.f32.bf16.bf16.f32 --format json
python3 - "$tmp/stdout" <<'PY' && ok || ko "tile manifest is not the expected JSON"
import json, sys
m = json.load(open(sys.argv[1]))
names = [p["name"] for p in m["params"]]
assert names == ["A", "B", "C", "D", "E"], names
a = m["params"][0]
assert (a["rows"], a["cols"], a["elem_bits"]) == (16, 16, 16), a
assert m["block"] == [32, 1, 1] and m["kernel"] == "mmagen_tile"
assert m["fragment_loads"] == "ldmatrix" and m["static_shared_bytes"] > 0
PY
expect_ok emit tile --arch sm_80 --opcode mma.sync.aligned.m16n8k32.row.col.s32.s8.u8.s32 -o "$tmp/t.ptx"
grep -q "^\.target sm_80" "$tmp/t.ptx" && grep -q "mma.sync.aligned.m16n8k32.row.col.s32.s8.u8.s32" "$tmp/t.ptx" && ok || ko "tile kernel lacks its target or instruction"
# without a GPU, run reports it and exits 77 (with one, it must pass)
"$mm" run tile --opcode $OP --seed 1 >"$tmp/stdout" 2>"$tmp/stderr"
rc=$?
if [ $rc -eq 77 ]; then grep -q "no CUDA driver\|no such CUDA device" "$tmp/stderr" && ok || ko "run without a GPU: $(cat "$tmp/stderr")"
elif [ $rc -eq 0 ]; then grep -q "^PASS" "$tmp/stdout" && ok || ko "run printed no PASS"
else ko "run tile failed ($rc): $(cat "$tmp/stderr" "$tmp/stdout")"; fi

expect_ok --help
expect_ok --version

echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
