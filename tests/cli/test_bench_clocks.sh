#!/bin/sh
# test_bench_clocks.sh MMAGEN FAKE_CUDA FAKE_NVML FAKE_CUBLASLT - `run gemm
# --bench`'s clocks line without a GPU: the bench on fake_cuda, beside a
# fake cuBLASLt (s8 -> s32, whose poisoned D is -1 on both sides, so they
# agree) or alone, with NVML from fake_nvml (its GPU at fake_cuda's PCI
# address) or missing.  The line starts with "clocks", comes after the
# ratio line (after mmagen's line when alone), and when NVML is missing
# or refuses, says why in one line and leaves the exit status as it was.
mm=$1 cuda=$2 nvml=$3 lt=$4
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
check() {
	if eval "$1"; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL: $2"; cat "$tmp/out"; fi
}
# bench LIBNVML CUBLASLT TYPE: the bench's stdout in $tmp/out, its exit in $rc
bench() {
	MMAGEN_LIBCUDA=$cuda MMAGEN_LIBNVML=$1 MMAGEN_CUBLASLT=$2 MMAGEN_CACHE=0 MMART_JIT=driver \
		"$mm" run gemm --a "$3" --b "$3" --out "$4" --m 256 --n 256 --k 256 --bench --reps 3 \
		>"$tmp/out" 2>"$tmp/err"
	rc=$?
}
# the first word of each line, in order
words() { awk '{ print $1 }' "$tmp/out" | tr '\n' ' '; }

bench "$nvml" "$lt" s8 s32
check '[ $rc -eq 0 ]' "with cuBLASLt: exit $rc: $(cat "$tmp/err")"
check '[ "$(words)" = "bench mmagen cuBLASLt ratio clocks D host " ]' "with cuBLASLt: lines $(words)"
# the fake's clock steps 1400, 1500, 1600: any median lies in 1400-1600;
# its bursts last milliseconds, so they are flagged
check 'grep -Eq "^clocks    mmagen 1[456][0-9]{2} MHz, cuBLASLt 1[456][0-9]{2} MHz  \(NVML: median SM clock while each side.s timed launches ran; [0-9]+ and [0-9]+ samples; bursts under 0.2 s may run or read above the sustained clock: more --reps give longer ones\)$" "$tmp/out"' \
	"with cuBLASLt: the clocks line"
# what tests/bench/gemm.sh reads: one figure each
check '[ "$(awk '\''$1 == "mmagen" { print $2 }'\'' "$tmp/out" | wc -l)" -eq 1 ] && [ "$(awk '\''$1 == "ratio" { print $2 }'\'' "$tmp/out" | wc -l)" -eq 1 ]' \
	"one mmagen and one ratio line"

bench "$nvml" /nonexistent/libcublasLt.so bf16 bf16
check '[ $rc -eq 0 ]' "alone: exit $rc: $(cat "$tmp/err")"
check '[ "$(words)" = "bench mmagen clocks cuBLASLt: " ]' "alone: lines $(words)"
check 'grep -Eq "^clocks    mmagen 1[456][0-9]{2} MHz  \(NVML: median SM clock while its timed launches ran; [0-9]+ samples?; a burst under 0.2 s may run or read above the sustained clock: more --reps give longer ones\)$" "$tmp/out"' \
	"alone: the clocks line"

bench /nonexistent/libnvidia-ml.so.1 "$lt" s8 s32
check '[ $rc -eq 0 ]' "no NVML: exit $rc: $(cat "$tmp/err")"
check '[ "$(words)" = "bench mmagen cuBLASLt ratio clocks D host " ]' "no NVML: lines $(words)"
check 'grep -qx "clocks    not sampled: MMAGEN_LIBNVML=/nonexistent/libnvidia-ml.so.1: .*" "$tmp/out"' \
	"no NVML: not sampled, and why"

FAKE_NVML_CLOCK=0 bench "$nvml" /nonexistent/libcublasLt.so bf16 bf16
check '[ $rc -eq 0 ] && grep -qx "clocks    not sampled: nvmlDeviceGetClockInfo(NVML_CLOCK_SM): Not Supported" "$tmp/out"' \
	"no SM clock: exit $rc"

echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
