#!/bin/sh
# gemm.sh [MMAGEN [CSV]] - the GEMM tables of issue 8 on this machine's
# GPU: mmagen's generated GEMM beside cuBLASLt (`mmagen run gemm --bench`),
# on the squares 1024..8192 and the LLM shapes M in {16, 128, 4096} x
# (N, K) in {(4096, 4096), (14336, 4096), (4096, 14336)}, per type.  Prints
# a table per type with each ratio (mmagen / cuBLASLt, TFLOP/s or for
# integer inputs TOP/s), their geometric mean per type and over all, and
# then the time to a runnable GEMM per type (`mmagen run gemm
# --time-load`: generation, a cold JIT with every cache off from process
# start, a warm load from mmagen's cache).  Writes
#   CSV (default gemm-bench.csv)   one row per problem; its last two
#                                  columns, mmagen_mhz and cublaslt_mhz,
#                                  the median SM clock NVML saw while each
#                                  side ran (the bench's "clocks" line;
#                                  empty when not sampled): at large sizes
#                                  the GPU is power-bound and a ratio is
#                                  read beside them
#   CSV without .csv + -load.csv   the load times
#   CSV without .csv + .svg        the plot: TFLOP/s against problem size,
#                                  mmagen beside cuBLASLt, one panel per type
#                                  (tests/bench/gemm_plot.py; skipped with a
#                                  line when python3 is missing)
#   MMAGEN   the binary (default: build/mmagen)
#   TYPES    the problems, space-separated (default "bf16"), each A[xB][:OUT]:
#            bf16 -> bf16, f16 -> f16, tf32 -> f32, e4m3 and e5m2 -> bf16,
#            s8, u8, s4 and u4 -> s32 unless OUT is given; B is A unless
#            given; "all" is "bf16 f16 tf32 e4m3 s8".  E.g.
#            TYPES="e4m3xe5m2:f16 s8:f32".  s4/u4 (packed two a byte) run
#            on the mma.sync path only (PATHS=mma.sync) and cuBLASLt has no
#            int4 GEMM: mmagen's figures alone, no cuBLASLt column or ratio
#   REPS     timed launches per burst (default: run gemm's own, bursts of
#            about 0.3 s, so that large shapes run at their sustained clock)
#   ARGS     more options for every run (e.g. "--cluster 2 --tile 128x256")
#   LOAD=0   leaves the load times out
#   PATHS    the kernels, space-separated: wgmma, mma.sync, or default (the
#            GPU's own); each type is timed on each, side by side with
#            cuBLASLt (e.g. PATHS="wgmma mma.sync"; default "default")
#   SPLIT    --split-k for every run: 1 (never split), S, or auto; default
#            unset: run gemm's own choice (mmagen_gemm_split_for: split-K
#            where the tiles alone leave SMs idle, e.g. M 16 and 128 of the
#            LLM shapes, or where a short last wave is worth splitting,
#            e.g. e4m3 4096^3).  The S used is the table's and the CSV's
#            "split".
# Exit 77 without a GPU, 1 when a run fails.
mm=${1:-build/mmagen}
csv=${2:-gemm-bench.csv}
base=${csv%.csv}
here=$(dirname "$0")
reps=${REPS:-}
types=${TYPES:-bf16}
split=${SPLIT:+--split-k $SPLIT}
[ "$types" = all ] && types="bf16 f16 tf32 e4m3 s8"
# each type on each path: "bf16@mma.sync"; @default passes no --path
specs=
for t in $types; do for p in ${PATHS:-default}; do specs="$specs $t@$p"; done; done
types=$specs
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
	bf16 | f16 | e4m3 | e5m2 | tf32 | s8 | u8 | s4 | u4) ;;
	*) echo "gemm.sh: TYPES: unknown type '$a' in '$1' (bf16, f16, tf32, e4m3, e5m2, s8, u8, s4, u4)" >&2; return 1 ;;
	esac
	if [ -z "$out" ]; then
		case $a in
		bf16 | e4m3 | e5m2) out=bf16 ;;
		f16) out=f16 ;;
		tf32) out=f32 ;;
		s8 | u8 | s4 | u4) out=s32 ;;
		esac
	fi
	echo "$a $b $out"
}

# 4-bit types only on the mma.sync path: said before anything runs
for spec in $types; do
	case ${spec%@*} in
	s4* | u4* | *xs4* | *xu4*)
		[ "${spec#*@}" = mma.sync ] || {
			echo "gemm.sh: TYPES: ${spec%@*} (4-bit) runs on the mma.sync path only; give PATHS=mma.sync" >&2
			exit 2
		} ;;
	esac
done

# the CSV column says TFLOP/s; for integer inputs the figures are TOP/s
echo "m,n,k,type,mmagen_tflops,cublaslt_tflops,ratio,split,mmagen_mhz,cublaslt_mhz" >"$csv.tmp" || exit 1
for spec in $types; do
	path=${spec#*@} spec=${spec%@*}
	[ "$path" = default ] && path=
	abo=$(parse_type "$spec") || { rm -f "$csv.tmp"; exit 2; }
	read -r a b out <<EOF
$abo
EOF
	name="${a}x$b:$out"
	name="$name${path:+@$path}"
	unit="TFLOP/s"
	case $a in s8 | u8 | s4 | u4) unit="TOP/s" ;; esac
	printf '\n%s x %s -> %s%s\n\n| %5s | %5s | %5s | %14s | %16s | %6s | %5s |\n|---|---|---|---|---|---|---|\n' \
		"$a" "$b" "$out" "${path:+ ($path)}" M N K "mmagen $unit" "cuBLASLt $unit" ratio split
	echo "$shapes" | while read -r m n k; do
		# shellcheck disable=SC2086
		"$mm" run gemm --a "$a" --b "$b" --out "$out" --m "$m" --n "$n" --k "$k" \
			--bench ${reps:+--reps "$reps"} ${path:+--path "$path"} $split $ARGS </dev/null >"$log" 2>&1
		rc=$?
		[ $rc -eq 77 ] && { cat "$log"; exit 77; }
		if [ $rc -ne 0 ]; then cat "$log"; echo "FAIL: $name $m x $n x $k"; exit 1; fi
		ours=$(awk '$1 == "mmagen" { print $2 }' "$log")
		theirs=$(awk '$1 == "cuBLASLt" && ($3 == "TFLOP/s" || $3 == "TOP/s") { print $2 }' "$log")
		ratio=$(awk '$1 == "ratio" { print $2 }' "$log")
		# "clocks    mmagen 1500 MHz, cuBLASLt 1515 MHz  (...)";
		# "clocks    not sampled: ..." gives neither
		mhz=$(awk '$1 == "clocks" && $2 == "mmagen" { print $3 }' "$log")
		lt_mhz=$(awk '$1 == "clocks" && $2 == "mmagen" && $5 == "cuBLASLt" { print $6 }' "$log")
		# the K slices of split-K ("..., split-K 8: ..." in the bench line)
		sk=$(sed -n 's/^bench gemm .*, split-K \([0-9]*\).*/\1/p' "$log" | head -n 1)
		# cuBLASLt's refusal, when it said one
		grep '^cuBLASLt: not measured' "$log" | head -n 1 >&2
		printf '| %5s | %5s | %5s | %14s | %16s | %6s | %5s |\n' "$m" "$n" "$k" "$ours" \
			"${theirs:--}" "${ratio:--}" "${sk:-1}"
		echo "$m,$n,$k,$name,$ours,$theirs,$ratio,${sk:-1},$mhz,$lt_mhz" >>"$csv.tmp"
	done
	status=$?
	[ $status -ne 0 ] && { rm -f "$csv.tmp"; exit $status; }
	awk -F, -v t="$name" 'NR > 1 && $4 == t && $7 != "" { s += log($7); n++ }
		END { if (n) printf "\ngeometric mean of %d ratios (%s): %.3f\n", n, t, exp(s / n);
		      else printf "\nno cuBLASLt figures for %s: no ratios\n", t }' "$csv.tmp"
done
awk -F, 'NR > 1 && $7 != "" { s += log($7); n++ }
	END { if (n) printf "\ngeometric mean of all %d ratios: %.3f\n", n, exp(s / n) }' "$csv.tmp"
mv "$csv.tmp" "$csv"
echo "wrote $csv"

# ---- time to a runnable GEMM ----
if [ "${LOAD:-1}" != 0 ]; then
	echo "type,step,median_ms,min_ms,max_ms" >"$base-load.csv.tmp" || exit 1
	for spec in $types; do
		path=${spec#*@} spec=${spec%@*}
		[ "$path" = default ] && path=
		abo=$(parse_type "$spec") || exit 2
		read -r a b out <<EOF
$abo
EOF
		name="${a}x$b:$out"
		name="$name${path:+@$path}"
		# shellcheck disable=SC2086
		"$mm" run gemm --a "$a" --b "$b" --out "$out" --time-load ${path:+--path "$path"} $ARGS \
			</dev/null >"$log" 2>&1
		rc=$?
		[ $rc -eq 77 ] && { cat "$log"; rm -f "$base-load.csv.tmp"; exit 77; }
		if [ $rc -ne 0 ]; then
			cat "$log"
			echo "FAIL: time to load $name"
			rm -f "$base-load.csv.tmp"
			exit 1
		fi
		printf '\ntime to a runnable GEMM, %s\n\n' "$name"
		grep '^|' "$log"
		awk -F'|' -v t="$name" '/^\| / && $2 !~ /step|---/ {
			gsub(/^ +| +$/, "", $2); gsub(/ /, "", $4); gsub(/ /, "", $5); gsub(/ /, "", $6)
			printf "%s,\"%s\",%s,%s,%s\n", t, $2, $4, $5, $6 }' "$log" >>"$base-load.csv.tmp"
	done
	mv "$base-load.csv.tmp" "$base-load.csv"
	echo "wrote $base-load.csv"
fi

# ---- the plot ----
if command -v python3 >/dev/null 2>&1; then
	python3 "$here/gemm_plot.py" "$csv" "$base.svg" && echo "wrote $base.svg"
else
	echo "no python3: the plot ($base.svg) is not drawn; the CSV has the figures"
fi
