#!/bin/sh
# run_tiles.sh MMAGEN - the GPU suite for tile kernels: every mma.sync,
# mma.sp and wgmma form the GPU can run, on fresh random inputs; wgmma
# again for every swizzle mode (smallest N, 128, largest), with negated
# A/B and with scale-d off; then edge-case inputs.
# Exit 77 (skip) without a CUDA driver or GPU.
mm=$1
seed=${MMAGEN_SEED:-$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')}
echo "seed $seed"
pass=0 fail=0
step() {
	"$mm" run tile --arch sm_90a --seed "$seed" "$@" >"$log" 2>&1
	rc=$?
	[ $rc -eq 77 ] && { cat "$log"; exit 77; }
	grep -v '^PASS' "$log"
	if [ $rc -eq 0 ]; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL: run tile $*"; fi
}
log=$(mktemp)
trap 'rm -f "$log"' EXIT
# every form (wgmma at N = 8, 128, 256), then wgmma dense and sparse for
# every swizzle mode, MN-major (transposed) f16/bf16 operands, negation
# and scale-d off
step --all --sample-n
for sw in none 32 64; do
	step --all --family wgmma --sample-n --swizzle $sw
	step --all --family wgmma.sp --sample-n --swizzle $sw
done
for sw in none 32 64 128; do
	step --all --family wgmma --a f16 --sample-n --swizzle $sw --major-a mn --major-b mn
	step --all --family wgmma --a bf16 --sample-n --swizzle $sw --major-b mn
	step --all --family wgmma.sp --a bf16 --sample-n --swizzle $sw --major-a mn
done
step --all --family wgmma --sample-n --neg-a
step --all --family wgmma --sample-n --neg-b --swizzle 64
step --all --family wgmma --sample-n --scale-d no
step --all --family wgmma.sp --sample-n --neg-a --neg-b --scale-d no

# edge cases: one representative form per accumulator class
for inputs in max subnormal special; do
	for op in mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 \
		  mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16 \
		  mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 \
		  mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 \
		  mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e5m2.f32 \
		  mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 \
		  wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 \
		  wgmma.mma_async.sync.aligned.m64n64k32.f16.e4m3.e4m3; do
		step --inputs $inputs --opcode $op
	done
done
for op in mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32 \
	  mma.sync.aligned.m16n8k32.row.col.satfinite.s32.s8.s8.s32 \
	  mma.sync.aligned.m16n8k32.row.col.s32.u8.u8.s32 \
	  mma.sync.aligned.m16n8k32.row.col.satfinite.s32.u8.s8.s32 \
	  mma.sync.aligned.m16n8k64.row.col.s32.s4.s4.s32 \
	  mma.sync.aligned.m16n8k64.row.col.satfinite.s32.u4.u4.s32 \
	  wgmma.mma_async.sync.aligned.m64n64k32.s32.s8.s8 \
	  wgmma.mma_async.sync.aligned.m64n64k32.satfinite.s32.s8.u8; do
	step --inputs overflow --opcode $op
done
echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
