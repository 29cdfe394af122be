#!/bin/sh
# test_bench_instr.sh MMAGEN FAKE_CUDA FAKE_NVML - `mmagen bench instr`
# without a GPU: what it refuses (one line, exit 2, before looking for a
# GPU), no driver (77, one line), and the whole command on fake_cuda,
# whose events time every launch at $FAKE_CUDA_EVENT_MS, with NVML from
# fake_nvml or missing: the three lines, the rate worked out here from
# the iterations the calibration chose, the unit, the counting rule.
mm=$1 cuda=$2 nvml=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
ok() { pass=$((pass + 1)); }
ko() { fail=$((fail + 1)); echo "FAIL: $*"; }
check() { if eval "$1"; then ok; else ko "$2"; cat "$tmp/out" "$tmp/err"; fi; }
BF16=mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
WGMMA=wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16

# refused RC PATTERN ARGS...: exit RC, one stderr line with PATTERN, no
# stdout; the GPU is never looked for (a driver that would answer is set)
refused() {
	want=$1 pat=$2; shift 2
	NVDISASM= CUOBJDUMP= MMAGEN_LIBCUDA=$cuda FAKE_CUDA_EVENT_MS=2 "$mm" bench instr "$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	check '[ $rc -eq "$want" ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -q -- "$pat" "$tmp/err" && [ ! -s "$tmp/out" ]' \
		"refused $*: exit $rc, want $want"
}
WHY="only mma.sync / mma.sp forms run in a register loop"
refused 2 "bench instr: $WHY; wgmma needs shared-memory operands" --opcode "$WGMMA"
refused 2 "bench instr: $WHY; wgmma needs shared-memory operands" --opcode "$WGMMA" --arch sm_90a
refused 2 "tcgen05.mma needs shared-memory and Tensor Memory operands" --family tcgen05
refused 2 "ldmatrix and stmatrix move data" --opcode ldmatrix.sync.aligned.m8n8.x4.shared.b16 --arch sm_90a
refused 2 "block-scaled forms (.block_scale) need scale-factor operands (not yet); kind::f8f6f4 forms without .block_scale run" \
	--opcode mma.sync.aligned.m16n8k64.row.col.kind::mxf4nvf4.block_scale.scale_vec::4X.f32.e2m1.e2m1.f32.ue4m3
refused 2 "bad --reps '0'; give 1 to 100000 timed launches such as 30" --opcode "$BF16" --reps 0
refused 2 "bad --reps '100001'" --opcode "$BF16" --reps 100001
refused 2 "bad --reps 'x'" --opcode "$BF16" --reps x
refused 2 "'bench instr' takes no --seed" --opcode "$BF16" --seed 1
refused 1 "'mma.sync.bogus' is not a legal opcode on any target; see 'mmagen list --opcodes'" \
	--opcode mma.sync.bogus
refused 1 "needs target sm_89" --opcode mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32 --arch sm_80
# forms ptxas emulates (FP8 and INT4 mma.sync on sm_90): their loop would time the emulation
refused 2 "on sm_90a is emulated: ptxas lowers FP8" --opcode mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32 --arch sm_90a
refused 2 "time a native form" --opcode mma.sync.aligned.m16n8k64.row.col.s32.s4.s4.s32 --arch sm_90a

# no driver: one line, 77 (the suites count it as skipped)
MMAGEN_LIBCUDA=/nonexistent/libcuda.so.1 "$mm" bench instr --opcode "$BF16" >"$tmp/out" 2>"$tmp/err"
rc=$?
check '[ $rc -eq 77 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -q "no CUDA driver" "$tmp/err" && [ ! -s "$tmp/out" ]' \
	"no driver: exit $rc"

# bench MS LIBNVML ARGS...: the command on fake_cuda (H100-like: sm_90a,
# 132 SMs), stdout in $tmp/out, exit in $rc
# Without nvdisasm and cuobjdump (NVDISASM= CUOBJDUMP=: none) the native
# check cannot run: one note on stderr says so, kept in $tmp/note and taken
# out of $tmp/err
NOTE="^mmagen: note: bench instr: not checked that .* runs natively on sm_90a (no nvdisasm or cuobjdump"
bench() {
	ms=$1 lib=$2; shift 2
	NVDISASM= CUOBJDUMP= MMAGEN_LIBCUDA=$cuda MMAGEN_LIBNVML=$lib FAKE_CUDA_EVENT_MS=$ms MMAGEN_CACHE=0 \
		MMART_JIT=driver "$mm" bench instr "$@" >"$tmp/out" 2>"$tmp/all"
	rc=$?
	grep -- "$NOTE" "$tmp/all" >"$tmp/note"
	grep -v -- "$NOTE" "$tmp/all" >"$tmp/err"
}
words() { awk '{ print $1 }' "$tmp/out" | tr '\n' ' '; }
# the rate for OPS operations a warp's instruction at MS a launch, from the
# iterations the first line gives: 16 accumulators, 8 warps, 132 CTAs
rate() {
	it=$(sed -n 's/.* \([0-9][0-9]*\) iterations a launch.*/\1/p' "$tmp/out")
	awk -v ops="$1" -v ms="$2" -v it="$it" 'BEGIN { printf "%.1f", ops * 16 * 8 * 132 * it / (ms * 1e-3) / 1e12 }'
}

bench 2 "$nvml" --opcode "$BF16"
check '[ $rc -eq 0 ] && [ ! -s "$tmp/err" ] && [ "$(wc -l <"$tmp/note")" -eq 1 ]' "bf16: exit $rc, the note once"
check '[ "$(words)" = "bench peak clocks " ]' "bf16: lines $(words)"
check 'grep -qx "bench instr $BF16 on fake (sm_90a): 132 CTAs of 8 warps, one per SM, 16 independent accumulators a warp, [0-9]* iterations a launch, median of 30 launches" "$tmp/out"' \
	"bf16: the first line"
# 1024 iterations took 2 ms (>= 1 ms): scaled to 10 ms, 5120
check 'grep -q " 5120 iterations a launch" "$tmp/out"' "bf16: calibrated iterations"
want=$(rate 4096 2)
check 'grep -qx "peak *$want TFLOP/s  (median 2.000 ms, min 2.000, max 2.000; 2\*m\*n\*k per instruction)" "$tmp/out"' \
	"bf16: the peak line (want $want TFLOP/s)"
check 'grep -Eqx "clocks    1[456]00 MHz  \(NVML: median SM clock while the timed launches ran; [0-9]+ samples?(; launches under 0.2 s may run or read above the sustained clock: more --reps give longer ones)?\)" "$tmp/out"' \
	"bf16: the clocks line"

# integers in TOP/s; mma.sp counted dense-equivalent (logical K 64)
bench 2 "$nvml" --opcode mma.sp::ordered_metadata.sync.aligned.m16n8k64.row.col.s32.s8.s8.s32 --reps 3
want=$(rate 16384 2)
check '[ $rc -eq 0 ] && grep -qx "peak *$want TOP/s  (median 2.000 ms, min 2.000, max 2.000; 2\*m\*n\*k per instruction, dense-equivalent: K is mma.sp.s logical K)" "$tmp/out"' \
	"sparse s8: want $want TOP/s"
check 'grep -q "median of 3 launches$" "$tmp/out"' "sparse s8: --reps 3"
# b1: TOP/s too
bench 2 "$nvml" --opcode mma.sync.aligned.m16n8k256.row.col.s32.b1.b1.s32.and.popc --reps 1
check '[ $rc -eq 0 ] && grep -q "^peak .* TOP/s " "$tmp/out" && grep -q "median of 1 launch$" "$tmp/out"' "b1: TOP/s, one launch"
# m8n8k4 f16: four quad-pairs a warp, each its own m8n8k4
bench 2 "$nvml" --opcode mma.sync.aligned.m8n8k4.row.col.f32.f16.f16.f16 --reps 2
want=$(rate 2048 2)
check '[ $rc -eq 0 ] && grep -q "^peak *$want TFLOP/s .*4 x 2\*m\*n\*k per instruction: each quad-pair does its own m8n8k4)$" "$tmp/out"' \
	"m8n8k4 f16: want $want TFLOP/s"
# --arch: that target's PTX (the GPU runs sm_80 code too), --device 0
bench 2 "$nvml" --opcode "$BF16" --arch sm_80 --device 0 --reps 2
check '[ $rc -eq 0 ] && grep -q "^bench instr $BF16 on fake (sm_80): " "$tmp/out"' "--arch sm_80"

# NVML missing, or without an SM clock: said in the clocks line, exit 0
bench 2 /nonexistent/libnvidia-ml.so.1 --opcode "$BF16" --reps 2
check '[ $rc -eq 0 ] && [ "$(words)" = "bench peak clocks " ] && grep -qx "clocks    not sampled: MMAGEN_LIBNVML=/nonexistent/libnvidia-ml.so.1: .*" "$tmp/out"' \
	"no NVML: exit $rc"
FAKE_NVML_CLOCK=0 bench 2 "$nvml" --opcode "$BF16" --reps 2
check '[ $rc -eq 0 ] && grep -qx "clocks    not sampled: nvmlDeviceGetClockInfo(NVML_CLOCK_SM): Not Supported" "$tmp/out"' \
	"no SM clock: exit $rc"

# events that read 0 ms give no rate: one line, exit 1, no figure
bench 0 "$nvml" --opcode "$BF16" --reps 2
check '[ $rc -eq 1 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -q "timed the launches at 0 ms" "$tmp/err" && [ ! -s "$tmp/out" ]' \
	"0 ms: exit $rc"

# With ptxas and nvdisasm, the form's SASS on the GPU's target (the fake:
# sm_90a) must be native, as inspect judges it, whatever --arch says: sm_90
# emulates b1 .xor (a routine around BMMA .and) and m8n8k4 f16 (no tensor
# instruction at all); bf16 runs, with no note.  The tools: $PTXAS or
# ptxas on PATH or in /usr/local/cuda/bin; $NVDISASM or nvdisasm there or
# where .ci/deps puts its pip wheel
ptxas=${PTXAS:-$(command -v ptxas || echo /usr/local/cuda/bin/ptxas)}
nvd=${NVDISASM:-$(command -v nvdisasm || ls /usr/local/cuda/bin/nvdisasm "$HOME"/.local/mmagen-cuda-tools/nvidia/cu*/bin/nvdisasm 2>/dev/null | head -n 1)}
if [ -x "$ptxas" ] && [ -x "$nvd" ]; then
	tools() {
		PTXAS=$ptxas NVDISASM=$nvd MMAGEN_LIBCUDA=$cuda MMAGEN_LIBNVML=$nvml FAKE_CUDA_EVENT_MS=2 \
			MMAGEN_CACHE=0 MMART_JIT=driver "$mm" bench instr "$@" >"$tmp/out" 2>"$tmp/err"
		rc=$?
	}
	for op in mma.sync.aligned.m8n8k128.row.col.s32.b1.b1.s32.xor.popc mma.sync.aligned.m8n8k4.row.col.f32.f16.f16.f16; do
		tools --opcode $op --reps 2
		check '[ $rc -eq 2 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -q "is emulated on sm_90a" "$tmp/err" && [ ! -s "$tmp/out" ]' \
			"$op refused as emulated: exit $rc"
		tools --opcode $op --arch sm_80 --reps 2
		check '[ $rc -eq 2 ] && grep -q "is emulated on sm_90a" "$tmp/err"' "$op with --arch sm_80: still judged on the GPU's sm_90a: exit $rc"
	done
	tools --opcode "$BF16" --reps 2
	check '[ $rc -eq 0 ] && [ ! -s "$tmp/err" ] && grep -q "^peak " "$tmp/out"' "bf16 with the tools: native, no note: exit $rc"
else
	echo "note: no ptxas and nvdisasm here ($ptxas, ${nvd:-none}): the native check's cases did not run"
fi

echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
