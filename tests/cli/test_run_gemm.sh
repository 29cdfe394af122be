#!/bin/sh
# test_run_gemm.sh MMAGEN - `run gemm` without a GPU: what the command line
# and the files can get wrong is refused with one line before the driver is
# looked for; a request that is right goes on to the GPU (exit 77 without
# one here, 0 where there is one).  The expected messages and the --load
# description below are written by hand, not read from the binary.
mm=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
ok() { pass=$((pass + 1)); }
ko() { fail=$((fail + 1)); echo "FAIL: $*"; }

G="run gemm --a bf16 --b bf16 --out bf16"

# refused RC PATTERN ARGS...: exit RC, one stderr line with PATTERN, no stdout
refused() {
	want=$1 pat=$2; shift 2
	# shellcheck disable=SC2086
	"$mm" "$@" >"$tmp/stdout" 2>"$tmp/stderr"
	rc=$?
	if [ $rc -ne "$want" ]; then ko "exit $rc, not $want, for: $* :: $(cat "$tmp/stderr")"; return; fi
	if [ "$(wc -l <"$tmp/stderr")" -ne 1 ]; then ko "not one stderr line for: $* :: $(cat "$tmp/stderr")"; return; fi
	if ! grep -q -- "$pat" "$tmp/stderr"; then ko "message lacks '$pat' for: $* :: $(cat "$tmp/stderr")"; return; fi
	if [ -s "$tmp/stdout" ]; then ko "stdout not empty for: $*"; return; fi
	ok
}

# accepted ARGS...: exit 0 (a GPU) or 77 with one line (none)
accepted() {
	"$mm" "$@" >"$tmp/stdout" 2>"$tmp/stderr"
	rc=$?
	if [ $rc -eq 77 ] && [ "$(wc -l <"$tmp/stderr")" -eq 1 ]; then ok; return; fi
	if [ $rc -eq 0 ]; then ok; return; fi
	ko "exit $rc for: $* :: $(cat "$tmp/stderr")"
}

"$mm" run gemm --help >"$tmp/help" 2>&1
if [ $? -eq 0 ] && grep -q '^usage: mmagen run gemm ' "$tmp/help" && grep -q -- '--check' "$tmp/help" \
	&& grep -q -- '--load DIR' "$tmp/help" && ! grep -q -- '--format' "$tmp/help"; then ok
else ko "run gemm --help: $(head -n 3 "$tmp/help")"; fi

# usage (2)
# shellcheck disable=SC2086
refused 2 "needs --m, --n and --k" $G --m 64 --k 64
refused 2 "needs --a, --b and --out" run gemm --a bf16 --b bf16 --m 8 --n 8 --k 8
# shellcheck disable=SC2086
{
refused 2 "bad --m '0'" $G --m 0 --n 8 --k 8
refused 2 "bad --k '2147483648'" $G --m 8 --n 8 --k 2147483648
refused 2 "bad --alpha 'inf'" $G --m 8 --n 8 --k 8 --alpha inf
refused 2 "d-scale scales an FP8 D" $G --m 8 --n 8 --k 8 --d-scale 5
refused 2 "bad --alpha ' 1.5'" $G --m 8 --n 8 --k 8 --alpha " 1.5"
refused 2 "bad --beta '0x10'" $G --m 8 --n 8 --k 8 --beta 0x10
refused 2 "below the smallest f32 (1.4e-45); give 0 or a larger value" $G --m 8 --n 8 --k 8 --alpha 1e-50
refused 1 "--load needs a directory" $G --m 8 --n 8 --k 8 --load ""
refused 2 "--reps counts the timed launches of --bench and --tune" $G --m 8 --n 8 --k 8 --reps 5
refused 2 "bad --cluster '0'; give 1 or 2" $G --m 8 --n 8 --k 8 --cluster 0
mkdir "$tmp/mine" && echo keep >"$tmp/mine/notes.txt"
refused 1 "holds files a save does not write (notes.txt)" $G --m 8 --n 8 --k 8 --save "$tmp/mine"
[ "$(ls "$tmp/mine")" = notes.txt ] && ok || ko "a refused --save wrote into the directory"
refused 2 "bad --beta '1e39'" $G --m 8 --n 8 --k 8 --beta 1e39
refused 2 "bad --alpha 'one'" $G --m 8 --n 8 --k 8 --alpha one
refused 2 "bad --reps '0'" $G --m 8 --n 8 --k 8 --bench --reps 0
refused 2 "takes no --format" $G --m 8 --n 8 --k 8 --format json
refused 2 "takes no -o" $G --m 8 --n 8 --k 8 -o "$tmp/x"
refused 2 "takes no --swizzle" $G --m 8 --n 8 --k 8 --swizzle 64
}
# the request and the problem's rules (1), before any GPU
# shellcheck disable=SC2086
{
# shapes as cuBLAS takes them: rows not 16-byte multiples, odd N, K = 1
# (libmmart's launcher stages what the kernel cannot read in place)
accepted $G --m 8 --n 8 --k 7
accepted $G --m 1 --n 9 --k 1
refused 1 "gemm writes D as s32 or f32" run gemm --a s8 --b s8 --out bf16 --m 8 --n 8 --k 8
refused 1 "gemm takes A and B as" run gemm --a s8 --b bf16 --out bf16 --m 8 --n 8 --k 8
refused 1 "cluster is 1 or 2" $G --m 8 --n 8 --k 8 --cluster 4
refused 1 "gemm runs on sm_90a" $G --arch sm_100a --m 8 --n 8 --k 8
# FP8's promotion interval: K blocks of 128 times a power of two up to 8
F8="run gemm --a e4m3 --b e4m3 --out bf16 --arch sm_90a --m 8 --n 8 --k 128"
refused 1 "not 384; use 256" $F8 --promote 384
refused 1 "not 100; use 128" $F8 --promote 100
refused 1 "not 4096; use 1024" $F8 --promote 4096
refused 2 "bad --promote '0'" $F8 --promote 0
refused 1 "applies to FP8 A and B.*not bf16; leave it out" $G --arch sm_90a --m 8 --n 8 --k 8 --promote 256
refused 1 "--promote is the sm_90a wgmma path's" run gemm --a e4m3 --b e4m3 --out bf16 --arch sm_89 --m 8 --n 8 --k 128 --promote 256
accepted $F8 --promote 512
# --schedule: cooperative or pingpong (whole 128-row tiles, no FP8)
refused 2 "bad value 'ping' for --schedule; legal: cooperative, pingpong" $G --arch sm_90a --m 8 --n 8 --k 8 --schedule ping
refused 1 "use --schedule cooperative for e4m3" $F8 --schedule pingpong
refused 1 "whole tile of 128 rows, not 64; use --tile 128x" $G --arch sm_90a --m 8 --n 8 --k 8 --schedule pingpong --tile 64x128
refused 1 "--schedule is the sm_90a wgmma kernel's" $G --arch sm_80 --m 8 --n 8 --k 8 --schedule pingpong
accepted $G --arch sm_90a --m 8 --n 8 --k 8 --schedule pingpong
accepted $G --arch sm_90a --m 8 --n 8 --k 8 --schedule cooperative
# tile N: the nearest multiple of 16 in wgmma's range
refused 1 "not 1024; use 256" $G --arch sm_90a --m 8 --n 8 --k 8 --tile 128x1024
refused 1 "not 100; use 96" $G --arch sm_90a --m 8 --n 8 --k 8 --tile 128x100
refused 1 "not 8; use 16" $G --arch sm_90a --m 8 --n 8 --k 8 --tile 128x8
# --group takes 1 to 65535 tile rows (100 was refused as malformed)
accepted $G --arch sm_90a --m 8 --n 8 --k 8 --group 100
refused 1 "group 70000 is out of range; use 1 to 65535 tile rows" $G --arch sm_90a --m 8 --n 8 --k 8 --group 70000
# 4-bit operands: K a multiple of 32 (two a byte, 16-byte chunks), K-major
# only (the generator says so), no wgmma form; a right request goes on
refused 1 "A: s4 packs two elements a byte.*K must be a multiple of 32: use K = 32$" \
	run gemm --a s4 --b s4 --out s32 --arch sm_80 --m 8 --n 8 --k 16
refused 1 "A: s4 packs two elements a byte.*use K = 32 or 64" \
	run gemm --a s4 --b u4 --out f32 --arch sm_80 --m 8 --n 8 --k 48
refused 1 "K-major only.*use layout tn" run gemm --a s4 --b s4 --out s32 --arch sm_80 --layout nt --m 8 --n 8 --k 64
refused 1 "gemm takes A and B as.*s4/u4 run on the mma.sync path: add --path mma.sync" run gemm --a s4 --b s4 --out s32 --arch sm_90a --m 8 --n 8 --k 64
# without --arch, s4/u4 go to the GPU's own target (not sm_120a's rules)
accepted run gemm --a s4 --b s4 --out s32 --m 8 --n 8 --k 64
# operands past 2^47 bytes: refused before any allocation
refused 1 "A would take .* bytes.*at most 2\^47" run gemm --a bf16 --b bf16 --out bf16 --arch sm_90a --m 1073741824 --n 8 --k 1073741824
accepted run gemm --a s4 --b s4 --out s32 --arch sm_80 --m 8 --n 8 --k 64
accepted run gemm --a u4 --b s4 --out f32 --arch sm_90a --path mma.sync --m 1 --n 8 --k 32 --check
accepted $G --arch sm_80 --layout nn --m 9 --n 8 --k 8
refused 1 "cannot open $tmp/none/gemm.json" $G --m 8 --n 8 --k 8 --load "$tmp/none"
# the other types' rules: K per element width, the mixes the generator has
accepted run gemm --a tf32 --b tf32 --out f32 --m 8 --n 8 --k 6
accepted run gemm --a e4m3 --b e5m2 --out bf16 --m 8 --n 9 --k 8
refused 1 "gemm takes A and B as" run gemm --a e4m3 --b s8 --out f32 --m 8 --n 8 --k 16
refused 1 "gemm takes A and B as" run gemm --a tf32 --b f32 --out f32 --m 8 --n 8 --k 16
refused 1 "gemm writes D as bf16, f16, f32, e4m3 or e5m2" run gemm --a e4m3 --b e4m3 --out s32 --m 8 --n 8 --k 16
refused 1 "K-major only: use layout tn" run gemm --a e5m2 --b e5m2 --out f16 --layout nt --m 8 --n 8 --k 16
}
# shellcheck disable=SC2086
{
accepted run gemm --a tf32 --b tf32 --out bf16 --m 1 --n 8 --k 4 --check --seed 1
accepted run gemm --a e4m3 --b e5m2 --out f16 --m 1 --n 8 --k 16 --check --seed 1
accepted run gemm --a u8 --b s8 --out s32 --m 1 --n 8 --k 16 --alpha 3 --beta -2 --check --seed 1
}

# --load: a description written by hand, 2 x 4 x 8, bf16 in, f32 out
d="$tmp/ops"
mkdir "$d"
head -c 32 /dev/zero | tr '\0' '\077' >"$d/A.bin"     # 0x3f3f: 0.74 in bf16
head -c 64 /dev/zero | tr '\0' '\077' >"$d/B.bin"
head -c 32 /dev/zero | tr '\0' '\077' >"$d/C.bin"
cat >"$d/gemm.json" <<'JSON'
{
  "format": "mmagen gemm operands", "version": 1, "byte_order": "little-endian",
  "layout": "tn", "m": 2, "n": 4, "k": 8, "alpha": 0.5, "beta": 2,
  "operands": {
    "A": {"file": "A.bin", "type": "bf16", "shape": [2, 8], "strides": [8, 1], "order": "row-major"},
    "B": {"file": "B.bin", "type": "bf16", "shape": [4, 8], "strides": [8, 1], "order": "row-major"},
    "C": {"file": "C.bin", "type": "f32", "shape": [2, 4], "strides": [4, 1], "order": "row-major"}
  }
}
JSON
L="run gemm --a bf16 --b bf16 --out f32 --alpha 0.5 --beta 2 --load $d"
# shellcheck disable=SC2086
{
accepted $L --m 2 --n 4 --k 8 --check
refused 1 "m is 2, the request has 4" $L --m 4 --n 4 --k 8
refused 1 "beta is 2, the request has 1; give --beta 2" $L --m 2 --n 4 --k 8 --beta 1
refused 1 "A.type is \"bf16\", not \"f16\"" run gemm --a f16 --b f16 --out f32 --alpha 0.5 --beta 2 \
	--load "$d" --m 2 --n 4 --k 8
}
head -c 30 /dev/zero >"$d/B.bin"
# shellcheck disable=SC2086
refused 1 "B.bin has 30 bytes; B (4 x 8 bf16) needs 64" $L --m 2 --n 4 --k 8

# --tune picks the choices itself, on the wgmma path; --time-load only loads
# shellcheck disable=SC2086
refused 2 "--tune chooses --tile, --stages, --cluster, --group and --schedule itself" $G --m 64 --n 64 --k 64 --tune --tile 128x128
# shellcheck disable=SC2086
refused 2 "--tune chooses --tile, --stages, --cluster, --group and --schedule itself" $G --m 64 --n 64 --k 64 --tune --group 4
refused 2 "--tune chooses --tile, --stages, --cluster, --group and --schedule itself" $G --m 64 --n 64 --k 64 --tune --schedule pingpong
# shellcheck disable=SC2086
refused 2 "the mma.sync path has no choices to try yet" $G --arch sm_80 --m 64 --n 64 --k 64 --tune
# the candidates are launched without split-K's parameters
# shellcheck disable=SC2086
refused 2 "--tune times kernels without split-K; leave --split-k out" $G --m 64 --n 64 --k 64 --tune --split-k 3
# shellcheck disable=SC2086
refused 2 "--tune times kernels without split-K; leave --split-k out" $G --m 64 --n 64 --k 64 --tune --split-k auto
# shellcheck disable=SC2086
refused 2 "--time-load only times loading" $G --time-load --bench

# a right request goes on to the GPU
# shellcheck disable=SC2086
accepted $G --m 1 --n 8 --k 8 --check --seed 1
# (its record goes to a scratch cache directory, not the user's)
MMAGEN_CACHE_DIR=$tmp/cache
export MMAGEN_CACHE_DIR
# shellcheck disable=SC2086
accepted $G --m 256 --n 256 --k 64 --tune --seed 1
unset MMAGEN_CACHE_DIR
# sm_120a kernels: skipped (77, one line) without an SM120 GPU
"$mm" run gemm --arch sm_120a --a e2m1 --b e2m1 --out f32 --quant nvfp4 --m 64 --n 64 --k 64 \
	>"$tmp/stdout" 2>"$tmp/stderr"
rc=$?
if [ $rc -eq 77 ] && [ "$(wc -l <"$tmp/stderr")" -eq 1 ]; then ok
else ko "sm_120a run gemm: exit $rc: $(cat "$tmp/stderr")"; fi

# --quant fp8-block: sm_90a's (without --arch too), FP8 A and B, its
# scale layout; --save, --load and --tune do not carry its scales
B8="run gemm --a e4m3 --b e5m2 --out bf16 --m 100 --n 300 --k 136"
# shellcheck disable=SC2086
{
accepted $B8 --quant fp8-block --check --seed 1
accepted $B8 --quant deepseek-fp8 --scale-layout col --split-k 3 --check --seed 1
accepted $B8 --arch sm_90a --quant W8A8-FP8-block --tile 64x64 --scale-layout row
refused 2 "--scale-layout lays out --quant fp8-block's scales" $B8 --scale-layout col
refused 2 "bad value 'diag' for --scale-layout; legal: row, col" $B8 --quant fp8-block --scale-layout diag
refused 2 "bad --quant 'fp8-blocks'; legal: .*fp8-block (sm_90a" $B8 --quant fp8-blocks
refused 2 "leave --save out" $B8 --quant fp8-block --save "$tmp/bs"
refused 2 "leave --load out" $B8 --quant fp8-block --load "$tmp/bs"
refused 2 "leave --tune out" $B8 --quant fp8-block --tune
refused 1 "scales FP8 A and B.*not bf16 and bf16" $G --m 8 --n 8 --k 8 --quant fp8-block
refused 1 "leave --promote out" $B8 --quant fp8-block --promote 256
refused 1 "wgmma path's, not mma.sync's; use --arch sm_90a" $B8 --arch sm_89 --quant fp8-block
refused 1 "is the sm_90a wgmma GEMM's; on sm_120a use --quant mxfp8" $B8 --arch sm_120a --quant fp8-block
refused 1 "gemm --quant mxfp8 is sm_120a's.*takes --quant fp8-block" $B8 --arch sm_90a --quant mxfp8
refused 1 "pass 2\^32, the kernel's 32-bit index" run gemm --a e4m3 --b e4m3 --out bf16 --quant fp8-block --m 1048576 --n 8 --k 1048576
}
[ ! -e "$tmp/bs" ] && ok || ko "a refused fp8-block --save made its directory"

# sm_120a: the problem's rules before the driver; without --arch a
# block-scaled request is sm_120a's (skipped without an SM120 GPU)
S="run gemm --a e2m1 --b e2m1 --out bf16 --quant nvfp4"
# shellcheck disable=SC2086
refused 1 "K = 100: .*multiple of 32.*use K = 96 or 128" $S --m 64 --n 64 --k 100
# shellcheck disable=SC2086
refused 1 "ldd = N = 63 is odd.*use N = 62 or 64" $S --m 64 --n 63 --k 64
# shellcheck disable=SC2086
refused 2 "not offered for sm_120a" $S --m 64 --n 64 --k 64 --tune
# shellcheck disable=SC2086
accepted $S --m 64 --n 64 --k 64 --check --save "$tmp/sm120"

echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
