#!/bin/sh
# gemm.sh [MMAGEN [CSV]] - the bf16 GEMM table of issue 8 on this machine's
# GPU: mmagen's generated GEMM beside cuBLASLt (`mmagen run gemm --bench`),
# on the squares 1024..8192 and the LLM shapes M in {16, 128, 4096} x
# (N, K) in {(4096, 4096), (14336, 4096), (4096, 14336)}.  Prints a table
# with each ratio (mmagen / cuBLASLt TFLOP/s) and their geometric mean, and
# writes the rows to CSV (default gemm-bench.csv).
#   MMAGEN   the binary (default: build/mmagen)
#   REPS     timed launches per shape (default 30)
#   ARGS     more options for every run (e.g. "--cluster 2 --tile 128x256")
# Exit 77 without a GPU, 1 when a run fails.
mm=${1:-build/mmagen}
csv=${2:-gemm-bench.csv}
reps=${REPS:-30}
log=$(mktemp)
trap 'rm -f "$log"' EXIT

shapes="1024 1024 1024
2048 2048 2048
4096 4096 4096
8192 8192 8192"
for m in 16 128 4096; do
	shapes="$shapes
$m 4096 4096
$m 14336 4096
$m 4096 14336"
done

echo "m,n,k,type,mmagen_tflops,cublaslt_tflops,ratio" >"$csv.tmp" || exit 1
printf '| %5s | %5s | %5s | %14s | %16s | %6s |\n|---|---|---|---|---|---|\n' \
	M N K "mmagen TFLOP/s" "cuBLASLt TFLOP/s" ratio
status=0
echo "$shapes" | while read -r m n k; do
	# shellcheck disable=SC2086
	"$mm" run gemm --a bf16 --b bf16 --out bf16 --m "$m" --n "$n" --k "$k" \
		--bench --reps "$reps" $ARGS >"$log" 2>&1
	rc=$?
	[ $rc -eq 77 ] && { cat "$log"; exit 77; }
	if [ $rc -ne 0 ]; then cat "$log"; echo "FAIL: $m x $n x $k"; exit 1; fi
	ours=$(awk '$1 == "mmagen" { print $2 }' "$log")
	theirs=$(awk '$1 == "cuBLASLt" && $3 == "TFLOP/s" { print $2 }' "$log")
	ratio=$(awk '$1 == "ratio" { print $2 }' "$log")
	printf '| %5s | %5s | %5s | %14s | %16s | %6s |\n' "$m" "$n" "$k" "$ours" \
		"${theirs:--}" "${ratio:--}"
	echo "$m,$n,$k,bf16,$ours,$theirs,$ratio" >>"$csv.tmp"
done
status=$?
[ $status -ne 0 ] && { rm -f "$csv.tmp"; exit $status; }
mv "$csv.tmp" "$csv"
# the geometric mean of the ratios (rows without cuBLASLt are left out)
awk -F, 'NR > 1 && $7 != "" { s += log($7); n++ }
	END { if (n) printf "geometric mean of %d ratios: %.3f\n", n, exp(s / n);
	      else print "no cuBLASLt figures: no ratios" }' "$csv"
echo "wrote $csv"
