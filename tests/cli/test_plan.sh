#!/bin/sh
# test_plan.sh MMAGEN - `mmagen plan`: plans print (text, JSON, -o), bad
# requests fail with one line and the right exit status, and every command
# line a plan prints runs.
mm=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
ok() { pass=$((pass + 1)); }
ko() { fail=$((fail + 1)); echo "FAIL: $*"; }

# expect_fail RC PATTERN ARGS...: exit RC, one stderr line matching
# PATTERN, nothing on stdout, an existing -o file untouched
expect_fail() {
	want=$1 pat=$2; shift 2
	echo keep >"$tmp/out.txt"
	"$mm" "$@" >"$tmp/stdout" 2>"$tmp/stderr"
	rc=$?
	if [ $rc -ne "$want" ]; then ko "exit $rc (want $want) for: $*"; return; fi
	if [ "$(wc -l <"$tmp/stderr")" -ne 1 ]; then ko "not one stderr line for: $*: $(cat "$tmp/stderr")"; return; fi
	if ! grep -q -- "$pat" "$tmp/stderr"; then ko "message lacks '$pat' for: $*: $(cat "$tmp/stderr")"; return; fi
	if [ -s "$tmp/stdout" ]; then ko "stdout not empty for: $*"; return; fi
	if [ "$(cat "$tmp/out.txt")" != keep ]; then ko "-o file changed for: $*"; return; fi
	ok
}

expect_fail 2 "unknown quantization config 'w4a4'; nearest: w4a4-nvfp4 (nvfp4)" \
	plan --quant w4a4 --arch sm_90a -o "$tmp/out.txt"
expect_fail 2 "plan needs --quant" plan --arch sm_90a
expect_fail 2 "plan needs --arch" plan --quant fp8
expect_fail 2 "sm_91" plan --quant fp8 --arch sm_91
expect_fail 2 "--shape" plan --quant fp8 --arch sm_90a --shape m16n8k16
expect_fail 1 "fp64 on sm_75: not native: .*native on sm_80 (mma.sync); no path on sm_75" \
	plan --quant fp64 --arch sm_75 -o "$tmp/out.txt"

# text: the verdict first
"$mm" plan --quant W8A8_FP8 --arch sm_90a >"$tmp/plan.txt" 2>"$tmp/stderr" && ok || ko "plan w8a8-fp8: $(cat "$tmp/stderr")"
head -1 "$tmp/plan.txt" | grep -q "^w8a8-fp8 on sm_90a: native: .*(wgmma: e4m3 x e4m3 -> f32)" && ok ||
	ko "verdict: $(head -1 "$tmp/plan.txt")"
"$mm" plan --quant nvfp4 --arch sm_90a | head -1 |
	grep -q "not native: .*native on sm_100a (tcgen05), sm_120a (mma.sync); best path on sm_90a: .*(wgmma)" &&
	ok || ko "nvfp4 on sm_90a verdict"
# -o writes what stdout gets
"$mm" plan --quant w8a8-fp8 --arch sm_90a -o "$tmp/o.txt" && cmp -s "$tmp/o.txt" "$tmp/plan.txt" && ok ||
	ko "-o differs from stdout"

# JSON parses and says the same
"$mm" plan --quant nvfp4 --arch sm_120a --json >"$tmp/plan.json" && ok || ko "plan --json"
python3 - "$tmp/plan.json" <<'PY' && ok || ko "plan --json is not the expected object"
import json, sys
p = json.load(open(sys.argv[1]))
assert p["config"] == "nvfp4" and p["target"] == "sm_120a" and p["native"] is True
b = p["paths"][0]
assert b["native"] and b["a"] == "e2m1" and b["b"] == "e2m1" and b["acc"] == "f32"
assert b["scale_type"] == "ue4m3" and b["scale_block"] == 16
assert all(f["family"] == "mma.sync" and "mxf4nvf4" in f["opcode"] for f in b["forms"])
assert b["emit"].startswith("mmagen emit instr --arch sm_120a --opcode ")
PY

# every emit and gemm line the plans print runs
for arch in sm_80 sm_89 sm_90 sm_90a sm_100a sm_120a; do
	for q in w4a16 w8a8-int8 w8a8-fp8 w4a8 w4a8-fp4 nvfp4 mxfp8 mxfp6 mxfp4 w4a4-int4 tf32 fp64; do
		"$mm" plan --quant $q --arch $arch >"$tmp/p.txt" 2>/dev/null || continue
		grep -E '^  (emit|gemm): ' "$tmp/p.txt" | sed 's/^  [a-z]*: *mmagen //; s/   (the MMA.*//' |
		while read -r line; do
			# shellcheck disable=SC2086
			if "$mm" $line -o "$tmp/x.out" 2>"$tmp/stderr"; then echo ok; else
				echo "FAIL: $q on $arch: mmagen $line: $(cat "$tmp/stderr")"; fi
		done
	done
done >"$tmp/runs"
n_ok=$(grep -c '^ok$' "$tmp/runs")
if grep -q FAIL "$tmp/runs"; then ko "$(grep FAIL "$tmp/runs" | head -3)"; else ok; fi
[ "$n_ok" -ge 100 ] && ok || ko "only $n_ok command lines ran"

echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
