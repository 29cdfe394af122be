#!/bin/sh
# test_gemm_sh.sh SCRATCH - tests/bench/gemm.sh on the CPU, with a fake
# mmagen that prints what `run gemm --bench` and `--time-load` print
# (figures made from M, N, K so every row is known here): the table rows,
# the CSV (13 problems per type), the per-type and overall geometric
# means, the load-time CSV, and the SVG plot (well-formed XML with both
# series; 77 for that part without python3 is not taken: the plot is
# skipped with a line, and that line is checked instead).
here=$(dirname "$0")
dir=$(mktemp -d "${1:-/tmp}/gemm-sh-XXXXXX") || exit 1
trap 'rm -rf "$dir"' EXIT
passed=0 failed=0
check() {
	if eval "$1"; then passed=$((passed + 1)); else failed=$((failed + 1)); echo "FAIL: $2"; fi
}

# the fake: mmagen 2 * cuBLASLt's figure at M 16, else M/1024 + 100 and
# cuBLASLt 100 (ratios 2 and (M/1024 + 100)/100); clocks 1500 + M/1024
# and 1600 MHz for bf16, not sampled for s8
cat >"$dir/mmagen" <<'FAKE'
#!/bin/sh
echo "$*" >>"$(dirname "$0")/args"
m=0 load=0 a=
while [ $# -gt 0 ]; do
	case $1 in
	--m) m=$2; shift ;;
	--a) a=$2; shift ;;
	--time-load) load=1 ;;
	esac
	shift
done
if [ $load = 1 ]; then
	echo "bench load: gemm fake, 1234 bytes of PTX, medians of 9"
	echo "| step | caches | median ms | min ms | max ms |"
	echo "|---|---|---|---|---|"
	echo "| generate | - | 0.400 | 0.300 | 0.500 |"
	echo "| cold load (JIT) | all off: CUDA_CACHE_DISABLE=1 and MMAGEN_CACHE=0 before the driver loaded | 90.000 | 80.000 | 99.000 |"
	echo "| first load, empty driver JIT cache | driver cache on | 91.000 | 81.000 | 98.000 |"
	echo "| warm load (mmagen disk cache) | mmagen disk cache on | 2.000 | 1.500 | 2.500 |"
	exit 0
fi
if [ "$m" = 16 ]; then ours=200.0; else ours=$(awk -v m="$m" 'BEGIN { printf "%.1f", m / 1024 + 100 }'); fi
ratio=$(awk -v a="$ours" 'BEGIN { printf "%.3f", a / 100 }')
echo "bench gemm fake"
echo "mmagen      $ours TFLOP/s  (median 1.0 ms, min 1.0, max 1.0)"
echo "cuBLASLt    100.0 TFLOP/s  (median 1.0 ms, min 1.0, max 1.0)"
echo "ratio        $ratio  (mmagen / cuBLASLt; fake)"
if [ "$a" = bf16 ]; then
	echo "clocks    mmagen $((1500 + m / 1024)) MHz, cuBLASLt 1600 MHz  (NVML: median SM clock while each side's timed launches ran; 24 and 25 samples)"
else
	echo "clocks    not sampled: libnvidia-ml.so.1: cannot open shared object file"
fi
FAKE
chmod +x "$dir/mmagen"

TYPES="bf16 s8" REPS=3 sh "$here/gemm.sh" "$dir/mmagen" "$dir/out.csv" >"$dir/log" 2>&1
rc=$?
check '[ $rc -eq 0 ]' "gemm.sh exit $rc: $(tail -5 "$dir/log")"
check '[ "$(grep -cE -- "--bench --reps 3( |$)" "$dir/args")" -eq 26 ]' "REPS=3: every bench run with --reps 3"
check '[ "$(head -n 1 "$dir/out.csv")" = "m,n,k,type,mmagen_tflops,cublaslt_tflops,ratio,split,mmagen_mhz,cublaslt_mhz" ]' "CSV header"
check '[ "$(grep -c ",bf16xbf16:bf16," "$dir/out.csv")" -eq 13 ] && [ "$(grep -c ",s8xs8:s32," "$dir/out.csv")" -eq 13 ]' \
	"13 problems per type: $(wc -l <"$dir/out.csv") lines"
for row in "1024,1024,1024,bf16xbf16:bf16,101.0,100.0,1.010,1,1501,1600" "8192,8192,8192,s8xs8:s32,108.0,100.0,1.080,1,," \
	   "16,14336,4096,bf16xbf16:bf16,200.0,100.0,2.000,1,1500,1600" "4096,4096,14336,s8xs8:s32,104.0,100.0,1.040,1,," \
	   "128,4096,4096,bf16xbf16:bf16,100.1,100.0,1.001,1,1500,1600"; do
	check 'grep -qx "$row" "$dir/out.csv"' "CSV row $row"
done
check 'grep -q "^|  1024 |  1024 |  1024 |          101.0 |            100.0 |  1.010 |     1 |" "$dir/log"' "table row 1024"
check 'grep -q "TOP/s" "$dir/log"' "s8 in TOP/s"
# geometric mean per type: ratios of both types are the same list
gm=$(awk 'BEGIN { n = split("1.010 1.020 1.040 1.080 2 2 2 1.001 1.001 1.001 1.040 1.040 1.040", r, " ");
	for (i = 1; i <= n; i++) s += log(r[i]); printf "%.3f", exp(s / n) }')
check 'grep -q "geometric mean of 13 ratios (bf16xbf16:bf16): $gm" "$dir/log"' "geometric mean bf16 $gm: $(grep geometric "$dir/log")"
check 'grep -q "geometric mean of all 26 ratios: $gm" "$dir/log"' "overall geometric mean"
check '[ "$(grep -c "" "$dir/out-load.csv")" -eq 9 ] && grep -qx "bf16xbf16:bf16,\"cold load (JIT)\",90.000,80.000,99.000" "$dir/out-load.csv" &&
       grep -qx "s8xs8:s32,\"first load, empty driver JIT cache\",91.000,81.000,98.000" "$dir/out-load.csv"' \
	"load CSV: $(cat "$dir/out-load.csv")"
check 'grep -q "^| warm load (mmagen disk cache) |" "$dir/log"' "load table printed"
if command -v python3 >/dev/null 2>&1; then
	check '[ -s "$dir/out.svg" ]' "no SVG"
	check 'python3 -c "import sys, xml.etree.ElementTree as E
t = E.parse(sys.argv[1]).getroot()
ns = \"{http://www.w3.org/2000/svg}\"
lines = t.findall(ns + \"polyline\")
dots = t.findall(ns + \"circle\")
assert t.tag == ns + \"svg\" and len(lines) == 4 and len(dots) == 52, (len(lines), len(dots))
assert all(len(l.get(\"points\").split()) == 13 for l in lines)
" "$dir/out.svg"' "SVG: 2 panels x 2 series of 13 points"
else
	check 'grep -q "no python3: the plot" "$dir/log"' "the plot is skipped with a line"
fi
# without REPS, run gemm sizes its own bursts: no --reps
rm -f "$dir/args"
TYPES=bf16 LOAD=0 sh "$here/gemm.sh" "$dir/mmagen" "$dir/out2.csv" >"$dir/log3" 2>&1
rc=$?
check '[ $rc -eq 0 ] && [ "$(grep -c -- "--bench" "$dir/args")" -eq 13 ] && ! grep -q -- "--reps" "$dir/args"' \
	"REPS unset: exit $rc, $(grep -c -- "--reps" "$dir/args") runs with --reps"
# a failing run stops it with exit 1 and no CSV
printf '#!/bin/sh\necho "mmagen: run gemm: boom" >&2\nexit 1\n' >"$dir/bad"
chmod +x "$dir/bad"
sh "$here/gemm.sh" "$dir/bad" "$dir/bad.csv" >"$dir/log2" 2>&1
rc=$?
check '[ $rc -eq 1 ] && [ ! -e "$dir/bad.csv" ] && [ ! -e "$dir/bad.csv.tmp" ] && grep -q "FAIL: bf16xbf16:bf16 1024 x 1024 x 1024" "$dir/log2"' \
	"a failure: exit $rc, $(tail -2 "$dir/log2")"
echo "$passed passed, $failed failed"
[ $failed -eq 0 ]
