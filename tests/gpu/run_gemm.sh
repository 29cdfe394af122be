#!/bin/sh
# run_gemm.sh MMAGEN - the GPU suite for the generated GEMM: `run gemm
# --check` at awkward sizes (M, N, K not multiples of the 128 x 256 x 64
# tile, K below one stage, M = 1, N = 8), alpha/beta other than (1, 0),
# every output type, f16 inputs, other tiles and stages, and 2-CTA
# clusters; then a --save / --load round trip.  Each run compares every
# element (or, when large, a sample and the corners) with the exact CPU
# reference and checks the guard bytes around D.
# Exit 77 (skip) without a CUDA driver or GPU.
mm=$1
seed=${MMAGEN_SEED:-$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')}
echo "seed $seed"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
step() {
	"$mm" run gemm --arch sm_90a --seed "$seed" --check "$@" >"$tmp/log" 2>&1
	rc=$?
	[ $rc -eq 77 ] && { cat "$tmp/log"; exit 77; }
	cat "$tmp/log"
	if [ $rc -eq 0 ] && grep -q '^PASS' "$tmp/log"; then pass=$((pass + 1))
	else fail=$((fail + 1)); echo "FAIL (exit $rc): run gemm $*"; fi
}

for t in "bf16 bf16" "bf16 f16" "bf16 f32" "f16 f16" "f16 f32" "f16 bf16"; do
	ab=${t% *} out=${t#* }
	T="--a $ab --b $ab --out $out"
	for cl in 1 2; do
		C="--cluster $cl"
		# shellcheck disable=SC2086
		{
		step $T $C --m 1 --n 8 --k 8                           # the smallest
		step $T $C --m 1 --n 8 --k 4096                        # M = 1, long K
		step $T $C --m 333 --n 258 --k 72                      # nothing whole
		step $T $C --m 129 --n 250 --k 136 --alpha 1 --beta -1
		step $T $C --m 256 --n 512 --k 8 --beta 1              # K below a stage
		step $T $C --m 1000 --n 1000 --k 1000 --alpha 1.5 --beta 0.5
		step $T $C --m 128 --n 256 --k 64 --alpha -2           # exactly one tile
		step $T $C --m 4096 --n 4096 --k 4096                  # sampled
		step $T $C --m 3000 --n 130 --k 520 --alpha 0.25 --beta 2
		}
	done
done
# other tiles, stages and groups
# shellcheck disable=SC2086
{
step --a bf16 --b bf16 --out bf16 --m 777 --n 1000 --k 1000 --tile 128x128
step --a bf16 --b bf16 --out f32 --m 200 --n 96 --k 328 --tile 128x64 --stages 6 --beta 1
step --a f16 --b f16 --out f16 --m 2048 --n 2048 --k 2048 --stages 3 --group 4 --cluster 2
step --a bf16 --b bf16 --out bf16 --m 8 --n 16 --k 24 --tile 128x16 --stages 2
}

# save, load, and the same D again
B="run gemm --arch sm_90a --a bf16 --b bf16 --out bf16 --m 300 --n 200 --k 96 --alpha 0.5 --beta 1.5"
# shellcheck disable=SC2086
if "$mm" $B --seed "$seed" --check --save "$tmp/ops" >"$tmp/log" 2>&1 &&
   "$mm" $B --seed 1 --check --load "$tmp/ops" --save "$tmp/again" >>"$tmp/log" 2>&1 &&
   cmp -s "$tmp/ops/D.bin" "$tmp/again/D.bin" && cmp -s "$tmp/ops/A.bin" "$tmp/again/A.bin"; then
	pass=$((pass + 1))
else
	cat "$tmp/log"
	fail=$((fail + 1)); echo "FAIL: --save then --load did not give the same D"
fi

echo "$pass passed, $fail failed (seed $seed)"
[ $fail -eq 0 ]
