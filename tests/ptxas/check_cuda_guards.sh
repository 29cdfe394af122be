#!/bin/sh
# check_cuda_guards.sh MMAGEN NVCC DIR - CUDA headers build the way CUDA
# projects build: guards.cu calls an mma.sync bf16 (sm_80 and later), a
# wgmma (sm_90a) and a tcgen05 (sm_100 family) wrapper and must compile
# with -arch=sm_90a, -arch=sm_100a, -arch=sm_90 (what -arch=native picks on
# an H100/H200) and -gencode for sm_80 + sm_90a, without a diagnostic.
# With MMAGEN_OFF_TARGET=1 an off-target call is a warning naming the
# instruction, with 2 an error.  Off target the code traps: the compute_80
# PTX has trap and no wgmma; the sm_90a PTX has the wgmma.  Exit 77
# without nvcc.
nvcc=$2 dir=$3/cuda-guards
[ -x "$nvcc" ] || { echo "nvcc not found: skipped"; exit 77; }
mm=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
src=$(cd "$(dirname "$0")" && pwd)/guards.cu
rm -rf "$dir" && mkdir -p "$dir" || exit 1
cd "$dir" || exit 1
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { echo "FAIL: $*"; fail=$((fail + 1)); }

"$mm" emit instr --arch sm_80 --opcode mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 \
	--format cuda -o mma.cuh &&
"$mm" emit instr --arch sm_90a --family wgmma --shape m64n64k16 --a bf16 --d f32 --asrc smem \
	--format cuda -o wgmma.cuh &&
"$mm" emit instr --arch sm_100a --opcode tcgen05.mma.cta_group::1.kind::f16 --format cuda -o tc.cuh &&
"$mm" emit instr --arch sm_80 --family mma --shape m16n8k16 --a bf16 --d f32 --all \
	--format cuda -o mma_again.cuh || { echo "FAIL: mmagen emit"; exit 1; }
cp "$src" guards.cu

# build NAME EXPECT-RC ARGS...: nvcc -c guards.cu ARGS, log in NAME.log
build() {
	name=$1 want=$2; shift 2
	"$nvcc" -c guards.cu -o "$name.o" "$@" >"$name.log" 2>&1
	rc=$?
	if [ $want = 0 ] && [ $rc != 0 ]; then bad "$name: nvcc $*: rc $rc"; sed 5q "$name.log"; return 1; fi
	if [ $want != 0 ] && [ $rc = 0 ]; then bad "$name: nvcc $* built"; return 1; fi
	ok
}
# warns NAME PATTERN: the log has an off-target warning naming PATTERN
warns() {
	if grep -q "deprecated (\"$2[^ ]* needs" "$1.log"; then ok; else bad "$1: no off-target warning for $2"; fi
}
# quiet NAME PATTERN: no warning at all (PATTERN 'warning'), or none
# about an instruction matching PATTERN
quiet() {
	case $2 in warning) re=warning ;; *) re="deprecated (\"$2\|mmagen_$2[^ ]*(.*deleted" ;; esac
	if grep -q "$re" "$1.log"; then bad "$1: unexpected diagnostic about $2:"; sed 5q "$1.log"; else ok; fi
}

# the default: no compile-time diagnostic (nvcc -arch=sm_90a also builds
# compute_90 PTX, where wgmma is off target)
build sm90a 0 -arch=sm_90a && quiet sm90a 'warning'
build sm100a 0 -arch=sm_100a && quiet sm100a 'warning'
build sm90 0 -arch=sm_90 && quiet sm90 'warning'
build gencode 0 -gencode arch=compute_80,code=sm_80 -gencode arch=compute_90a,code=sm_90a &&
	quiet gencode 'warning'
# MMAGEN_OFF_TARGET=1: a warning where a call is off target, only there
build w90a 0 -gencode arch=compute_90a,code=sm_90a -DMMAGEN_OFF_TARGET=1 &&
	{ warns w90a tcgen05; quiet w90a wgmma; quiet w90a mma.sync; }
build w100a 0 -gencode arch=compute_100a,code=sm_100a -DMMAGEN_OFF_TARGET=1 &&
	{ warns w100a wgmma; quiet w100a tcgen05; quiet w100a mma.sync; }
build wgencode 0 -gencode arch=compute_80,code=sm_80 -gencode arch=compute_90a,code=sm_90a \
	-DMMAGEN_OFF_TARGET=1 && { warns wgencode wgmma; warns wgencode tcgen05; quiet wgencode mma.sync; }
# MMAGEN_OFF_TARGET=2: an error where a call is off target, only there
build strict 1 -gencode arch=compute_90a,code=sm_90a -DMMAGEN_OFF_TARGET=2 && {
	if grep -q "tcgen05.*deleted" strict.log; then ok; else bad "strict: no error for tcgen05"; sed 5q strict.log; fi
	quiet strict 'wgmma'; }

# what the device code is: traps off target, the instruction on target
if "$nvcc" -arch=compute_80 -ptx guards.cu -o c80.ptx >c80.log 2>&1; then
	if grep -q 'trap;' c80.ptx && ! grep -q 'wgmma.mma_async' c80.ptx &&
	   grep -q 'mma.sync.aligned.m16n8k16' c80.ptx; then ok
	else bad "compute_80 PTX: expected mma.sync and trap, no wgmma"; fi
else bad "nvcc -arch=compute_80 -ptx"; sed 5q c80.log; fi
if "$nvcc" -arch=sm_90a -ptx guards.cu -o s90a.ptx >s90a.log 2>&1; then
	if grep -q 'wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16' s90a.ptx &&
	   ! grep -q 'tcgen05.mma' s90a.ptx; then ok
	else bad "sm_90a PTX: expected the wgmma and no tcgen05"; fi
else bad "nvcc -arch=sm_90a -ptx"; sed 5q s90a.log; fi

echo "$pass passed, $fail failed"
[ $fail = 0 ] && { cd / && rm -rf "$dir"; }
[ $fail = 0 ]
