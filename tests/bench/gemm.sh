#!/bin/sh
# gemm.sh [MMAGEN [CSV]] - the GEMM tables of issue 8 on this machine's
# GPU: mmagen's generated GEMM beside cuBLASLt (`mmagen run gemm --bench`),
# on the squares 1024..8192 and the LLM shapes M in {16, 128, 4096} x
# (N, K) in {(4096, 4096), (14336, 4096), (4096, 14336)}, per type.  Prints
# a table per type with each ratio (mmagen / cuBLASLt, TFLOP/s or for
# integer inputs TOP/s) and their geometric mean, and writes the rows to
# CSV (default gemm-bench.csv).
#   MMAGEN   the binary (default: build/mmagen)
#   TYPES    the problems, space-separated (default "bf16"), each A[xB][:OUT]:
#            bf16 -> bf16, f16 -> f16, tf32 -> f32, e4m3 and e5m2 -> bf16,
#            s8 and u8 -> s32 unless OUT is given; B is A unless given;
#            "all" is "bf16 f16 tf32 e4m3 s8".  E.g. TYPES="e4m3xe5m2:f16 s8:f32"
#   REPS     timed launches per shape (default 30)
#   ARGS     more options for every run (e.g. "--cluster 2 --tile 128x256")
#   SPLIT    --split-k for every run: 1 (never split), S, or auto; default
#            unset: run gemm's own choice (mmagen_gemm_split_for: split-K
#            where the tiles alone leave SMs idle, e.g. M 16 and 128 of the
#            LLM shapes).  The S used is the table's and the CSV's "split".
# Exit 77 without a GPU, 1 when a run fails.
mm=${1:-build/mmagen}
csv=${2:-gemm-bench.csv}
reps=${REPS:-30}
types=${TYPES:-bf16}
split=${SPLIT:+--split-k $SPLIT}
[ "$types" = all ] && types="bf16 f16 tf32 e4m3 s8"
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

# A[xB][:OUT] -> "A B OUT"
parse_type() {
	t=$1 out=${1#*:}
	[ "$out" = "$t" ] && out=
	t=${t%%:*}
	a=${t%%x*} b=${t#*x}
	case $a in
	bf16 | f16 | e4m3 | e5m2 | tf32 | s8 | u8) ;;
	*) echo "gemm.sh: TYPES: unknown type '$a' in '$1' (bf16, f16, tf32, e4m3, e5m2, s8, u8)" >&2; return 1 ;;
	esac
	if [ -z "$out" ]; then
		case $a in
		bf16 | e4m3 | e5m2) out=bf16 ;;
		f16) out=f16 ;;
		tf32) out=f32 ;;
		s8 | u8) out=s32 ;;
		esac
	fi
	echo "$a $b $out"
}

# the CSV column says TFLOP/s; for integer inputs the figures are TOP/s
echo "m,n,k,type,mmagen_tflops,cublaslt_tflops,ratio,split" >"$csv.tmp" || exit 1
for spec in $types; do
	abo=$(parse_type "$spec") || { rm -f "$csv.tmp"; exit 2; }
	read -r a b out <<EOF
$abo
EOF
	name="${a}x$b:$out"
	unit="TFLOP/s"
	case $a in s8 | u8) unit="TOP/s" ;; esac
	printf '\n%s x %s -> %s\n\n| %5s | %5s | %5s | %14s | %16s | %6s | %5s |\n|---|---|---|---|---|---|---|\n' \
		"$a" "$b" "$out" M N K "mmagen $unit" "cuBLASLt $unit" ratio split
	echo "$shapes" | while read -r m n k; do
		# shellcheck disable=SC2086
		"$mm" run gemm --a "$a" --b "$b" --out "$out" --m "$m" --n "$n" --k "$k" \
			--bench --reps "$reps" $split $ARGS </dev/null >"$log" 2>&1
		rc=$?
		[ $rc -eq 77 ] && { cat "$log"; exit 77; }
		if [ $rc -ne 0 ]; then cat "$log"; echo "FAIL: $name $m x $n x $k"; exit 1; fi
		ours=$(awk '$1 == "mmagen" { print $2 }' "$log")
		theirs=$(awk '$1 == "cuBLASLt" && ($3 == "TFLOP/s" || $3 == "TOP/s") { print $2 }' "$log")
		ratio=$(awk '$1 == "ratio" { print $2 }' "$log")
		# the K slices of split-K ("..., split-K 8: ..." in the bench line)
		sk=$(sed -n 's/^bench gemm .*, split-K \([0-9]*\).*/\1/p' "$log" | head -n 1)
		# cuBLASLt's refusal, when it said one
		grep '^cuBLASLt: not measured' "$log" | head -n 1 >&2
		printf '| %5s | %5s | %5s | %14s | %16s | %6s | %5s |\n' "$m" "$n" "$k" "$ours" \
			"${theirs:--}" "${ratio:--}" "${sk:-1}"
		echo "$m,$n,$k,$name,$ours,$theirs,$ratio,${sk:-1}" >>"$csv.tmp"
	done
	status=$?
	[ $status -ne 0 ] && { rm -f "$csv.tmp"; exit $status; }
	awk -F, -v t="$name" 'NR > 1 && $4 == t && $7 != "" { s += log($7); n++ }
		END { if (n) printf "\ngeometric mean of %d ratios (%s): %.3f\n", n, t, exp(s / n);
		      else printf "\nno cuBLASLt figures for %s: no ratios\n", t }' "$csv.tmp"
done
mv "$csv.tmp" "$csv"
echo "wrote $csv"
