#!/bin/sh
# run_tiles.sh MMAGEN - the GPU suite for tile kernels: every mma.sync and
# mma.sp form the GPU can run, on fresh random inputs, then edge cases.
# Exit 77 (skip) without a CUDA driver or GPU.
mm=$1
seed=${MMAGEN_SEED:-$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')}
echo "seed $seed"
"$mm" run tile --all --arch sm_90a --seed "$seed"
rc=$?
[ $rc -eq 77 ] && exit 77
pass=0 fail=0
[ $rc -eq 0 ] && pass=$((pass + 1)) || fail=$((fail + 1))

# edge cases: one representative form per accumulator class
edge() {
	inputs=$1; shift
	if "$mm" run tile --arch sm_90a --seed "$seed" --inputs "$inputs" "$@"; then
		pass=$((pass + 1))
	else
		fail=$((fail + 1)); echo "FAIL: --inputs $inputs $*"
	fi
}
for inputs in max subnormal special; do
	edge $inputs --opcode mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
	edge $inputs --opcode mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16
	edge $inputs --opcode mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
	edge $inputs --opcode mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32
	edge $inputs --opcode mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e5m2.f32
	edge $inputs --opcode mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64
done
for op in mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32 \
	  mma.sync.aligned.m16n8k32.row.col.satfinite.s32.s8.s8.s32 \
	  mma.sync.aligned.m16n8k32.row.col.s32.u8.u8.s32 \
	  mma.sync.aligned.m16n8k32.row.col.satfinite.s32.u8.s8.s32 \
	  mma.sync.aligned.m16n8k64.row.col.s32.s4.s4.s32 \
	  mma.sync.aligned.m16n8k64.row.col.satfinite.s32.u4.u4.s32; do
	edge overflow --opcode $op
done
echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
