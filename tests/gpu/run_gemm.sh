#!/bin/sh
# run_gemm.sh MMAGEN - the GPU suite for the generated GEMM: `run gemm
# --check` for every type mix the generator has (bf16, f16, tf32, the four
# e4m3/e5m2 mixes, the four s8/u8 mixes; every output type of each) at
# awkward sizes (M, N, K not multiples of the tile, K below one stage,
# M = 1, N = 8), alpha/beta other than (1, 0), 1- and 2-CTA clusters,
# other tiles and stages; the layouts nn/nt/tt, f16 accumulation and
# e4m3/e5m2 D; --quant fp8-block; then --save / --load round trips.  Each run
# compares every element (or, when large, a sample and the corners) with
# the exact CPU reference and checks the guard bytes around D.
# Exit 77 (skip) without a CUDA driver or GPU.
mm=$1
seed=${MMAGEN_SEED:-$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')}
echo "seed $seed"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
# SECTIONS="mixes tiles layouts split pingpong stores mmasync shapes saveload blockscale" (default:
# all) runs only those parts; "stores" counts the D store paths of the
# parts run before it
want() { [ -z "${SECTIONS:-}" ] && return 0; case " $SECTIONS " in *" $1 "*) return 0 ;; esac; return 1; }
for s in ${SECTIONS:-}; do
	case $s in
	mixes | tiles | layouts | split | pingpong | stores | mmasync | shapes | saveload | blockscale) ;;
	*) echo "run_gemm.sh: SECTIONS: no section '$s'; the sections are mixes tiles layouts split pingpong stores mmasync shapes saveload blockscale" >&2; exit 2 ;;
	esac
done
step() {
	"$mm" run gemm --arch sm_90a --seed "$seed" --check "$@" </dev/null >"$tmp/log" 2>&1
	rc=$?
	[ $rc -eq 77 ] && { cat "$tmp/log"; exit 77; }
	cat "$tmp/log"
	cat "$tmp/log" >>"$tmp/all"
	if [ $rc -eq 0 ] && grep -q '^PASS' "$tmp/log"; then pass=$((pass + 1))
	else fail=$((fail + 1)); echo "FAIL (exit $rc): run gemm $*"; fi
}

# The awkward sizes per element width (K keeps A's and B's rows multiples
# of 16 bytes: K % 8 == 0 for 16-bit types, % 4 for tf32, % 16 for 8-bit
# ones; tile K is 64, 32 and 128 elements; tile N 256, or 128 for FP8):
# the smallest, M = 1 with a long K, nothing whole, alpha/beta, K below one
# stage, a square with alpha and beta, exactly one tile, a sampled one,
# and a tall one.  "M N K [options]" per line.
sizes() {
	case $1 in
	16) echo "1 8 8
1 8 4096
333 258 72
129 250 136 --alpha 1 --beta -1
256 512 8 --beta 1
1000 1000 1000 --alpha 1.5 --beta 0.5
128 256 64 --alpha -2
4096 4096 4096
3000 130 520 --alpha 0.25 --beta 2" ;;
	32) echo "1 8 4
1 8 4096
333 258 36
129 250 132 --alpha 1 --beta -1
256 512 4 --beta 1
1000 1000 1000 --alpha 1.5 --beta 0.5
128 256 32 --alpha -2
4096 4096 4096
3000 130 516 --alpha 0.25 --beta 2" ;;
	8) echo "1 8 16
1 8 4096
333 258 80
129 250 144 --alpha 1 --beta -1
256 512 16 --beta 1
1000 1000 1008 --alpha 1.5 --beta 0.5
128 128 128 --alpha -2
4096 4096 4096
3000 130 528 --alpha 0.25 --beta 2" ;;
	# s32 D: integer alpha and beta (the kernel truncates them), and one
	# fractional pair to see the truncation
	8i) echo "1 8 16
1 8 4096
333 258 80
129 250 144 --alpha 1 --beta -1
256 512 16 --beta 1
1000 1000 1008 --alpha 3 --beta -2
128 256 128 --alpha -2
4096 4096 4096
3000 130 528 --alpha 2.9 --beta -1.5" ;;
	esac
}

# every type mix: A B OUT, and its sizes
cat >"$tmp/mixes" <<'MIXES'
bf16 bf16 bf16 16
bf16 bf16 f16 16
bf16 bf16 f32 16
f16 f16 f16 16
f16 f16 f32 16
f16 f16 bf16 16
tf32 tf32 f32 32
tf32 tf32 bf16 32
tf32 tf32 f16 32
e4m3 e4m3 bf16 8
e4m3 e4m3 f16 8
e4m3 e4m3 f32 8
e4m3 e5m2 bf16 8
e4m3 e5m2 f16 8
e4m3 e5m2 f32 8
e5m2 e4m3 bf16 8
e5m2 e4m3 f16 8
e5m2 e4m3 f32 8
e5m2 e5m2 bf16 8
e5m2 e5m2 f16 8
e5m2 e5m2 f32 8
s8 s8 s32 8i
s8 u8 s32 8i
u8 s8 s32 8i
u8 u8 s32 8i
s8 s8 f32 8
s8 u8 f32 8
u8 s8 f32 8
u8 u8 f32 8
MIXES
if want mixes; then
while read -r ab bb out w; do
	sizes "$w" >"$tmp/sizes"
	for cl in 1 2; do
		# cluster 1: run gemm's choice (split-K for small M x N, long K);
		# cluster 2: never split
		sk=; [ "$cl" = 2 ] && sk="--split-k 1"
		while read -r m n k rest; do
			# shellcheck disable=SC2086
			step --a "$ab" --b "$bb" --out "$out" --cluster "$cl" --m "$m" --n "$n" --k "$k" $rest $sk
		done <"$tmp/sizes"
	done
done <"$tmp/mixes"
fi

if want tiles; then
# other tiles, stages and groups
# shellcheck disable=SC2086
{
step --a e4m3 --b e4m3 --out bf16 --m 777 --n 1000 --k 1024 --tile 128x192
step --a s8 --b s8 --out s32 --m 200 --n 96 --k 336 --tile 128x64 --stages 6 --beta 1
step --a tf32 --b tf32 --out f32 --m 2048 --n 2048 --k 2048 --stages 3 --group 4 --cluster 2
step --a bf16 --b bf16 --out bf16 --m 777 --n 1000 --k 1000 --tile 128x128
step --a bf16 --b bf16 --out f32 --m 200 --n 96 --k 328 --tile 128x64 --stages 6 --beta 1
step --a f16 --b f16 --out f16 --m 2048 --n 2048 --k 2048 --stages 3 --group 4 --cluster 2
step --a bf16 --b bf16 --out bf16 --m 8 --n 16 --k 24 --tile 128x16 --stages 2
# small-M tiles (16/32/64 rows, one warpgroup): M past the tile (the rows
# of the warpgroup's 64 beyond it are another tile's and never stored),
# TMA and direct stores, C, split-K, a 2-CTA cluster, layout tt, FP8 D
step --a bf16 --b bf16 --out bf16 --m 100 --n 250 --k 136 --tile 16x128 --alpha 1 --beta -1
step --a bf16 --b bf16 --out bf16 --m 37 --n 1000 --k 1000 --tile 32x64 --cluster 2
step --a bf16 --b bf16 --out bf16 --m 200 --n 334 --k 520 --tile 64x256 --split-k 3 --beta 0.5
step --a bf16 --b bf16 --out bf16 --m 70 --n 130 --k 72 --tile 16x64 --split-k 2
step --a e4m3 --b e5m2 --out f32 --m 50 --n 258 --k 512 --tile 16x64
step --a s8 --b s8 --out s32 --m 64 --n 1000 --k 1024 --tile 64x128 --beta 2
step --a f16 --b f16 --acc f16 --out f16 --m 40 --n 264 --k 136 --tile 16x128
step --a bf16 --b bf16 --out bf16 --m 30 --n 256 --k 128 --layout tt --tile 32x128 --cluster 1
step --a e4m3 --b e4m3 --out e4m3 --m 33 --n 384 --k 256 --tile 32x192 --d-scale 0.5
step --a tf32 --b tf32 --out f32 --m 16 --n 3000 --k 520
# FP8 tiles under 128 rows take K blocks in pairs (two sets of partial
# sums): even and odd block counts, one block, split-K units of 4, 4
# and 3, every FP8 mix, C, FP8 D, M past the tile
step --a e4m3 --b e4m3 --out bf16 --m 16 --n 4096 --k 4096
step --a e5m2 --b e4m3 --out f32 --m 40 --n 300 --k 1152 --tile 64x128 --beta 0.5
step --a e4m3 --b e5m2 --out f16 --m 100 --n 500 --k 1408 --tile 64x96 --split-k 3
step --a e5m2 --b e5m2 --out e4m3 --m 16 --n 256 --k 256 --tile 16x32 --d-scale 2
step --a e4m3 --b e4m3 --out bf16 --m 64 --n 128 --k 128 --tile 32x64 --alpha -1
# D's staging in as many buffers as fit (4 of 6 chunks, 5 of 8), the
# buffers taken in turn across a CTA's tiles (496 tiles of 128x192 with
# C: several per CTA)
step --a s8 --b u8 --out s32 --m 1000 --n 1000 --k 512 --tile 128x192 --beta 2
step --a s8 --b u8 --out s32 --m 4000 --n 3000 --k 256 --tile 128x192 --beta 2
step --a bf16 --b bf16 --out f32 --m 1500 --n 2000 --k 512
step --a tf32 --b tf32 --out f32 --m 1000 --n 1300 --k 256 --tile 128x256 --stages 3 --beta -0.5
}

fi

if want layouts; then
# the wgmma path's MN-major layouts (16-bit types: A M-major for nn/nt, B
# N-major for nt/tt, M or N then a multiple of 8), f16 accumulation, and
# e4m3/e5m2 D scaled by --d-scale and saturated (C of D's type; tile N
# 128 stages D through TMA, 64 stores it directly)
# shellcheck disable=SC2086
{
for l in nn nt tt; do
	# an N-major B (nt, tt) takes cluster 1 (its multicast gave wrong D)
	cl=2; [ $l = nn ] || cl=1
	for t in "bf16 bf16 bf16" "f16 f16 f32"; do
		set -- $t
		step --layout $l --a $1 --b $2 --out $3 --m 8 --n 8 --k 8
		step --layout $l --a $1 --b $2 --out $3 --m 8 --n 16 --k 4096 --alpha 0.5
		step --layout $l --a $1 --b $2 --out $3 --m 264 --n 200 --k 24 --beta -1
		step --layout $l --a $1 --b $2 --out $3 --m 1000 --n 1000 --k 1000 --alpha 1.5 --beta 0.5
		step --layout $l --a $1 --b $2 --out $3 --m 1000 --n 520 --k 1000 --cluster $cl --beta 1
		step --layout $l --a $1 --b $2 --out $3 --m 4096 --n 4096 --k 4096
	done
	step --layout $l --a bf16 --b bf16 --out f16 --m 776 --n 1000 --k 1000 --tile 128x128 --cluster $cl
	step --layout $l --a f16 --b f16 --out bf16 --m 200 --n 96 --k 328 --tile 128x64 --stages 6 --beta 1
	step --layout $l --a f16 --b f16 --out f16 --acc f16 --m 336 --n 264 --k 520 --beta -1
done
for o in f16 f32 bf16; do
	step --a f16 --b f16 --acc f16 --out $o --m 333 --n 258 --k 520
	step --a f16 --b f16 --acc f16 --out $o --m 1000 --n 1000 --k 1000 --alpha 1.5 --beta 0.5
	step --a f16 --b f16 --acc f16 --out $o --m 4096 --n 4096 --k 4096 --cluster 2
done
for t in "bf16 bf16 e4m3" "bf16 bf16 e5m2" "f16 f16 e4m3" "tf32 tf32 e5m2" "e4m3 e4m3 e4m3" \
	 "e4m3 e5m2 e5m2" "e5m2 e5m2 e4m3"; do
	set -- $t
	step --a $1 --b $2 --out $3 --m 1 --n 8 --k 64
	step --a $1 --b $2 --out $3 --m 333 --n 258 --k 512 --d-scale 0.25 --beta 1
	step --a $1 --b $2 --out $3 --m 1000 --n 1024 --k 1024 --alpha 1.5 --beta 0.5 --cluster 2
	step --a $1 --b $2 --out $3 --m 500 --n 640 --k 256 --tile 128x64 --beta -1 --d-scale 2
	step --a $1 --b $2 --out $3 --m 256 --n 512 --k 1024 --d-scale 10000
	step --a $1 --b $2 --out $3 --m 4096 --n 4096 --k 4096
done
step --layout nt --a bf16 --b bf16 --out e4m3 --m 1000 --n 1024 --k 1000 --d-scale 3 --beta 1
step --layout tt --a f16 --b f16 --acc f16 --out e5m2 --m 520 --n 264 --k 1000 --d-scale 0.5
}
fi

if want split; then
# split-K (the wgmma path): every type mix and output type; S that does
# not divide the K blocks (K 1000 bf16: 16 blocks, S 3), S > K blocks
# (clamped to one slice per block; K below one block: no split), M = 1,
# N = 8, alpha/beta, clusters, auto, and run gemm's own choice on small M
s0=$(grep -c '^PASS.*split-K' "$tmp/all" 2>/dev/null)
while read -r ab bb out w; do
	case $w in 16) k1=1000 k2=200 k3=8 ;; 32) k1=500 k2=100 k3=4 ;; *) k1=1008 k2=400 k3=16 ;; esac
	case $out in s32) ab2="--alpha 3 --beta -2" ;; *) ab2="--alpha 1.5 --beta 0.5" ;; esac
	# shellcheck disable=SC2086
	{
	step --a "$ab" --b "$bb" --out "$out" --m 333 --n 258 --k "$k1" --split-k 3 $ab2
	step --a "$ab" --b "$bb" --out "$out" --m 1 --n 8 --k "$k2" --split-k 7
	step --a "$ab" --b "$bb" --out "$out" --m 129 --n 250 --k "$k3" --split-k 4 --beta 1
	step --a "$ab" --b "$bb" --out "$out" --m 300 --n 520 --k 4096 --split-k auto --cluster 2 $ab2
	# more tiles than the grid (752 of 128 x 64): whole waves, then the
	# tail of 92 tiles split in 3
	step --a "$ab" --b "$bb" --out "$out" --m 2000 --n 3000 --k "$k1" --tile 128x64 --cluster 1 --split-k 3 $ab2
	}
done <"$tmp/mixes"
# shellcheck disable=SC2086
{
c0=$(grep -c '^mmagen: run gemm: chosen for .* --split-k [2-9]' "$tmp/all" 2>/dev/null)
step --a bf16 --b bf16 --out bf16 --m 16 --n 4096 --k 4096
step --a bf16 --b bf16 --out f32 --m 128 --n 4096 --k 14336 --beta 1
step --a tf32 --b tf32 --out f32 --m 16 --n 4096 --k 14336 --alpha 0.5
step --a e4m3 --b e4m3 --out bf16 --m 16 --n 14336 --k 4096 --alpha 0.5
step --a e4m3 --b e4m3 --out bf16 --m 128 --n 4096 --k 14336 --beta 1
step --a s8 --b s8 --out s32 --m 128 --n 4096 --k 4096 --split-k 16 --alpha 2 --beta -1
step --a tf32 --b tf32 --out f32 --m 300 --n 200 --k 4096 --split-k 256 --tile 128x64
step --a f16 --b f16 --out f16 --m 77 --n 1000 --k 2000 --split-k 5 --tile 128x128 --cluster 2 --stages 3
# the tail alone: clusters of 2 (376 cluster tiles, 46 past 5 waves of 66),
# M past the tile, FP8 with a long promotion interval, run gemm's own S
step --a bf16 --b bf16 --out f32 --m 2000 --n 3000 --k 1000 --tile 128x64 --cluster 2 --split-k 5 --beta 1
step --a bf16 --b bf16 --out bf16 --m 1999 --n 3000 --k 1000 --tile 128x64 --cluster 2 --split-k 2
step --a f16 --b f16 --out f16 --m 2000 --n 3000 --k 1000 --tile 128x64 --cluster 2 --split-k 2 --layout nn
step --a e4m3 --b e5m2 --out f16 --m 2000 --n 3000 --k 2048 --tile 128x64 --split-k 4 --promote 512 --alpha 0.5
step --a e4m3 --b e4m3 --out bf16 --m 4096 --n 4096 --k 4096
}
if grep -q '^mmagen: run gemm: chosen for 4096 x 4096 x 4096 .* --split-k [2-9]' "$tmp/all"; then pass=$((pass + 1))
else fail=$((fail + 1)); echo "FAIL: run gemm should have split the tail of e4m3 4096^3"; fi
# run gemm's own choice (mmagen_gemm_choose) for the FP8 M = 128 run
# with the long K: 64x64 tiles unsplit (their K blocks go in pairs, one
# promoted while the next one's wgmma run; before the pairs, 128x64 tiles
# in 2 slices were faster); 16-bit types stream 64x64 tiles unsplit, and
# M = 16 takes a 16-row tile, mostly unsplit: the model allows at most 2
# slices there
chosen=$(($(grep -c '^mmagen: run gemm: chosen for .* --split-k [2-9]' "$tmp/all" 2>/dev/null) - ${c0:-0}))
echo "split-K chosen by run gemm: $chosen of the small-M runs"
# (the bf16 run of the same shape prints the same "chosen" line: the PASS
# line is e4m3's own; unsplit, it names no split-K; test_gemm_split.c
# checks the tile)
if grep '^PASS run gemm e4m3 x e4m3 -> bf16, M 128 N 4096 K 14336,' "$tmp/all" | grep -qv 'split-K'; then pass=$((pass + 1))
else fail=$((fail + 1)); echo "FAIL: run gemm should have run e4m3 128 x 4096 x 14336 unsplit (64x64 tiles)"; fi
# at least three split runs per mix here (K below one block does not split)
splits=$(($(grep -c '^PASS.*split-K' "$tmp/all" 2>/dev/null) - ${s0:-0}))
echo "split-K: $splits runs passed"
if [ "$splits" -ge $((3 * $(wc -l <"$tmp/mixes"))) ]; then pass=$((pass + 1))
else fail=$((fail + 1)); echo "FAIL: the split-K runs should have passed (run gemm names them 'split-K S')"; fi
# deterministic: the same S twice gives the same D, bit for bit
# twice NAME WHAT RUN-GEMM-OPTIONS...
twice() {
	n=$1 what=$2
	shift 2
	if "$mm" run gemm --arch sm_90a "$@" --seed "$seed" --check --save "$tmp/${n}1" >"$tmp/log" 2>&1 &&
	   "$mm" run gemm --arch sm_90a "$@" --seed "$seed" --check --save "$tmp/${n}2" >>"$tmp/log" 2>&1 &&
	   cmp -s "$tmp/${n}1/D.bin" "$tmp/${n}2/D.bin"; then
		pass=$((pass + 1))
	else
		cat "$tmp/log"
		fail=$((fail + 1)); echo "FAIL: $what twice did not give the same D"
	fi
}
twice s "split-K 9" --a bf16 --b bf16 --out f32 --m 200 --n 300 --k 4096 --split-k 9 --beta 1
# and a split tail
twice t "a split tail" --a bf16 --b bf16 --out f32 --m 2000 --n 3000 --k 1000 --tile 128x64 --split-k 3 --beta 1

fi

if want pingpong; then
# --schedule pingpong (each consumer warpgroup every other tile, whole):
# every non-FP8 mix at M = 1, nothing whole with C, K below one stage,
# several tiles per warpgroup (3000 x 3000: 384 tiles of 128x192 on at
# most 132 CTAs), N = 250 (no tensor map of D: direct stores), both
# clusters (rank 1's tile past M at M = 347); tiles 128x64/128x192, 2
# and 3 stages (K blocks past the ring), the 16-bit layouts, f16
# accumulation, FP8 D; run gemm's own pick at 2048^3 (ping-pong 128x128)
while read -r ab bb out k0; do
	for cl in 1 2; do
		# shellcheck disable=SC2086
		{
		step --a "$ab" --b "$bb" --out "$out" --schedule pingpong --cluster "$cl" --m 1 --n 8 --k "$k0"
		step --a "$ab" --b "$bb" --out "$out" --schedule pingpong --cluster "$cl" --m 347 --n 258 --k $((k0 * 9)) --alpha 1.5 --beta -1
		step --a "$ab" --b "$bb" --out "$out" --schedule pingpong --cluster "$cl" --m 3000 --n 3000 --k $((k0 * 40)) --tile 128x192 --beta 0.5
		step --a "$ab" --b "$bb" --out "$out" --schedule pingpong --cluster "$cl" --m 1000 --n 250 --k $((k0 * 4)) --beta 1
		}
	done
done <<'PP'
bf16 bf16 bf16 8
f16 f16 f32 8
tf32 tf32 f32 4
s8 s8 s32 16
u8 s8 f32 16
PP
# shellcheck disable=SC2086
{
step --a s8 --b u8 --out s32 --schedule pingpong --m 2000 --n 1500 --k 4096 --tile 128x64 --stages 2
step --a bf16 --b bf16 --out bf16 --schedule pingpong --m 2000 --n 1500 --k 1000 --stages 3 --cluster 1
step --a bf16 --b bf16 --out bf16 --schedule pingpong --layout nn --m 704 --n 1000 --k 296 --cluster 1
step --a f16 --b f16 --out f16 --schedule pingpong --layout nt --m 704 --n 1000 --k 296 --cluster 1
step --a bf16 --b bf16 --out f32 --schedule pingpong --layout tt --m 1000 --n 704 --k 296 --cluster 1 --beta 0.5
step --a f16 --b f16 --acc f16 --out f16 --schedule pingpong --m 1500 --n 2000 --k 1000
step --a bf16 --b bf16 --out e4m3 --schedule pingpong --m 1000 --n 1000 --k 512 --beta 1
step --a bf16 --b bf16 --out bf16 --m 2048 --n 2048 --k 2048 --beta 0.5
}
if grep '^mmagen: run gemm: chosen for 2048 x 2048 x 2048' "$tmp/all" | grep -q 'schedule pingpong'; then pass=$((pass + 1))
else fail=$((fail + 1)); echo "FAIL: run gemm should have chosen ping-pong for bf16 2048^3"; fi
fi

if want stores; then
# D through TMA stores (aligned D) and directly (N * elem_bytes not a
# multiple of 16) must both have run above
tma=$(grep -c 'D stored through its tensor map' "$tmp/all" 2>/dev/null) || tma=0
direct=$(grep -c 'D stored directly' "$tmp/all" 2>/dev/null) || direct=0
echo "D stores: $tma runs through TMA, $direct direct"
if [ "$tma" -gt 0 ] && [ "$direct" -gt 0 ]; then pass=$((pass + 1))
else fail=$((fail + 1)); echo "FAIL: both D store paths should have run"; fi

fi

if want mixes; then
# FP8's promotion every 2, 4 or 8 K blocks (--promote), the second
# warpgroup half an interval behind: K not a multiple of the interval,
# split-K slices, one warpgroup (tile M 64), a 1-CTA cluster, FP8 D
# shellcheck disable=SC2086
{
step --a e4m3 --b e4m3 --out bf16 --m 300 --n 200 --k 1008 --promote 512 --split-k 3
step --a e4m3 --b e5m2 --out f16 --m 1000 --n 1500 --k 1008 --promote 256 --beta 0.5
step --a e5m2 --b e4m3 --out f32 --m 64 --n 520 --k 3200 --promote 1024 --tile 64x192 --cluster 1
step --a e4m3 --b e4m3 --out e4m3 --m 256 --n 384 --k 8192 --promote 1024 --d-scale 0.01
step --a e5m2 --b e5m2 --out bf16 --m 777 --n 640 --k 640 --promote 512 --alpha -2
}
fi
if want mmasync; then
# the warp-level path (mma.sync + ldmatrix + cp.async), forced on sm_90a:
# every type it has, the MN-major layouts of the 16-bit types (M or N a
# multiple of 8 where that operand is MN-major), f16 accumulation, split-K
# (a workspace slot per slice, added in slice order), FP8, the tile choice and s4/u4
# shellcheck disable=SC2086
{
for t in "bf16 bf16 bf16" "bf16 bf16 f32" "f16 f16 f16" "f16 f16 f32" "tf32 tf32 f32" \
	 "s8 s8 s32" "s8 u8 s32" "u8 u8 f32" "e4m3 e4m3 bf16" "e4m3 e5m2 f32" "e5m2 e5m2 f16"; do
	set -- $t
	step --path mma.sync --a $1 --b $2 --out $3 --m 333 --n 258 --k 128
	step --path mma.sync --a $1 --b $2 --out $3 --m 1 --n 8 --k 4096 --alpha 0.5
	step --path mma.sync --a $1 --b $2 --out $3 --m 1000 --n 1000 --k 1024 --alpha 1.5 --beta 0.5
done
for l in nn nt tt; do
	step --path mma.sync --layout $l --a bf16 --b bf16 --out bf16 --m 136 --n 264 --k 72
	step --path mma.sync --layout $l --a f16 --b f16 --out f32 --m 1000 --n 520 --k 1000 --beta 1
done
step --path mma.sync --a f16 --b f16 --out f32 --acc f16 --m 96 --n 96 --k 64
step --path mma.sync --a f16 --b f16 --out f16 --acc f16 --m 300 --n 130 --k 520 --beta -1
step --path mma.sync --a bf16 --b bf16 --out f32 --m 300 --n 300 --k 4096 --split-k 4 --beta 1
step --path mma.sync --a s8 --b s8 --out s32 --m 64 --n 64 --k 4096 --split-k 7
# split-K into a D that is not the accumulator's type (the same workspace:
# a slot per tile and K slice, the last slice writes D and leaves the
# counters zero: run gemm checks them)
step --path mma.sync --a bf16 --b bf16 --out bf16 --m 300 --n 300 --k 4096 --split-k 4 --beta 1
step --path mma.sync --a f16 --b f16 --out f16 --m 1000 --n 1000 --k 1024 --split-k 3 --alpha 1.5 --beta 0.5
step --path mma.sync --a s8 --b s8 --out f32 --m 129 --n 250 --k 2000 --split-k 5 --alpha 2 --beta -1
step --path mma.sync --a e4m3 --b e5m2 --out bf16 --m 70 --n 136 --k 3008 --split-k 2
step --path mma.sync --layout nt --a bf16 --b bf16 --out f16 --m 136 --n 264 --k 4096 --split-k 6
step --path mma.sync --a tf32 --b tf32 --out bf16 --m 16 --n 4096 --k 14336
step --path mma.sync --a bf16 --b bf16 --out bf16 --tile 64x64 --m 1 --n 8 --k 8
step --path mma.sync --a bf16 --b bf16 --out bf16 --m 4096 --n 4096 --k 4096
# both stage-row widths: 64-byte rows asked for on layout tn (whose
# default is 128-byte rows where 4 stages fit), 128-byte rows asked for on
# an MN-major layout (whose default is 64), each element width, split-K
step --path mma.sync --a bf16 --b bf16 --out bf16 --m 333 --n 258 --k 200 --tile 128x256x32 --beta 1
step --path mma.sync --a s8 --b u8 --out s32 --m 333 --n 258 --k 400 --tile 128x128x128
step --path mma.sync --a s8 --b s8 --out f32 --m 129 --n 250 --k 2000 --tile 128x128x64 --split-k 3
step --path mma.sync --layout nt --a f16 --b f16 --out f16 --m 136 --n 264 --k 200 --tile 128x128x64
step --path mma.sync --layout nn --a bf16 --b bf16 --out f32 --m 200 --n 72 --k 1000 --tile 64x64x64 --alpha 2
step --path mma.sync --layout tt --a f16 --b f16 --out f32 --acc f16 --m 72 --n 200 --k 136 --tile 128x64x64
step --path mma.sync --a tf32 --b tf32 --out f32 --m 100 --n 300 --k 100 --tile 64x64x32
step --path mma.sync --a e4m3 --b e5m2 --out bf16 --m 70 --n 136 --k 3008 --tile 64x128x128 --split-k 2
step --path mma.sync --a s4 --b u4 --out s32 --m 64 --n 72 --k 544 --tile 64x64x256
# 4-bit operands (m16n8k64; K-major only, K a multiple of 32), packed two
# a byte by run gemm; ptxas emulates INT4 on sm_90: correctness only.
# alpha/beta integers, so that s32 D (which truncates them) sees beta * C
for t in "s4 s4 s32" "u4 s4 s32" "s4 u4 f32"; do
	set -- $t
	step --path mma.sync --a $1 --b $2 --out $3 --m 1 --n 8 --k 32
	step --path mma.sync --a $1 --b $2 --out $3 --m 333 --n 258 --k 128
	step --path mma.sync --a $1 --b $2 --out $3 --m 1000 --n 1000 --k 1024 --alpha 3 --beta -2
	step --path mma.sync --a $1 --b $2 --out $3 --m 300 --n 200 --k 4096 --split-k 4 --beta 1
done
}
# split-K's f32 sums: the tile's last slice adds the slots in slice order,
# so D is the same bits launch after launch (atomics added them in the
# order the slices came)
B="run gemm --arch sm_90a --path mma.sync --a bf16 --b bf16 --out f32 --m 200 --n 300 --k 8192 --split-k 8 --alpha 1.5"
# shellcheck disable=SC2086
if "$mm" $B --seed "$seed" --check --save "$tmp/sk1" >"$tmp/log" 2>&1 &&
   "$mm" $B --seed 1 --check --load "$tmp/sk1" --save "$tmp/sk2" >>"$tmp/log" 2>&1 &&
   cmp -s "$tmp/sk1/D.bin" "$tmp/sk2/D.bin"; then
	pass=$((pass + 1))
else
	cat "$tmp/log"
	fail=$((fail + 1)); echo "FAIL: split-K 8 (bf16 -> f32) gave two different D for the same inputs"
fi
# 4-bit operands saved (packed, the description says so), loaded, the same D
B="run gemm --arch sm_90a --path mma.sync --a s4 --b u4 --out s32 --m 130 --n 66 --k 256 --alpha 2 --beta -1"
# shellcheck disable=SC2086
if "$mm" $B --seed "$seed" --check --save "$tmp/ops4" >"$tmp/log" 2>&1 &&
   "$mm" $B --seed 1 --check --load "$tmp/ops4" --save "$tmp/again4" >>"$tmp/log" 2>&1 &&
   cmp -s "$tmp/ops4/D.bin" "$tmp/again4/D.bin" && cmp -s "$tmp/ops4/A.bin" "$tmp/again4/A.bin" &&
   [ "$(wc -c <"$tmp/ops4/A.bin")" -eq $((130 * 256 / 2)) ] && grep -q '"packing"' "$tmp/ops4/gemm.json"; then
	pass=$((pass + 1))
else
	cat "$tmp/log"
	fail=$((fail + 1)); echo "FAIL: --save then --load (s4 x u4 -> s32) did not give the same D"
fi

fi

# Shapes as cuBLAS takes them (dense operands: lda = K, ldd = N): odd N,
# M = 1, K = 1, K and N not multiples of 8 (rows not 16-byte multiples):
# libmmart's launcher stages what the kernel cannot read in place
if want shapes; then
	for t in "bf16 bf16 bf16" "f16 f16 f32" "tf32 tf32 f32" "e4m3 e5m2 bf16" "s8 u8 s32"; do
		set -- $t
		for shape in "1 1 1" "1 257 64" "77 9 1" "129 255 100 --beta 1" "333 131 333 --alpha 0.5 --beta -1" "2000 1001 77"; do
			# shellcheck disable=SC2086
			step --a "$1" --b "$2" --out "$3" --m ${shape%% *} --n $(echo "$shape" | cut -d' ' -f2) \
				--k $(echo "$shape" | cut -d' ' -f3) $(echo "$shape" | cut -d' ' -f4-)
		done
	done
	for shape in "1 9 7" "100 33 77 --beta 1"; do
		# shellcheck disable=SC2086
		step --a bf16 --b bf16 --out bf16 --path mma.sync --m ${shape%% *} \
			--n $(echo "$shape" | cut -d' ' -f2) --k $(echo "$shape" | cut -d' ' -f3) \
			$(echo "$shape" | cut -d' ' -f4-)
	done
	step --a bf16 --b bf16 --out bf16 --layout nn --m 13 --n 9 --k 21
	step --a f16 --b f16 --out f16 --layout nt --path mma.sync --m 13 --n 9 --k 24
fi

if want saveload; then
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

# and for a mix of 8-bit types into s32
B="run gemm --arch sm_90a --a u8 --b s8 --out s32 --m 300 --n 200 --k 96 --alpha 2 --beta -3"
# shellcheck disable=SC2086
if "$mm" $B --seed "$seed" --check --save "$tmp/ops8" >"$tmp/log" 2>&1 &&
   "$mm" $B --seed 1 --check --load "$tmp/ops8" --save "$tmp/again8" >>"$tmp/log" 2>&1 &&
   cmp -s "$tmp/ops8/D.bin" "$tmp/again8/D.bin" && cmp -s "$tmp/ops8/B.bin" "$tmp/again8/B.bin"; then
	pass=$((pass + 1))
else
	cat "$tmp/log"
	fail=$((fail + 1)); echo "FAIL: --save then --load (u8 x s8 -> s32) did not give the same D"
fi

fi

# --quant fp8-block: the four FP8 mixes and every D type; tiles whose
# columns lie in one, two (128x192 at n0 % 128 = 64) or three (128x176)
# B blocks; tiles of 16-64 rows (K blocks in pairs, a second set of
# scales); K = 1, 136 (a partial last block), odd M and N (rows and B
# blocks past them clamped); split-K S and auto (the slice's first K
# block); column-major scales (--scale-layout col); cluster 2; beta
if want blockscale; then
# shellcheck disable=SC2086
{
for t in "e4m3 e4m3 bf16" "e4m3 e5m2 f16" "e5m2 e4m3 f32" "e5m2 e5m2 bf16" "e4m3 e4m3 e4m3"; do
	set -- $t
	step --quant fp8-block --a $1 --b $2 --out $3 --m 1 --n 8 --k 1
	step --quant fp8-block --a $1 --b $2 --out $3 --m 333 --n 259 --k 136 --beta 1
	step --quant fp8-block --a $1 --b $2 --out $3 --m 1000 --n 1000 --k 1000 --alpha 1.5 --beta 0.5 --scale-layout col
	step --quant fp8-block --a $1 --b $2 --out $3 --m 4096 --n 4096 --k 4096
done
for tile in 128x192 128x176 128x160 128x128 128x64 64x192 64x128 64x64 32x96 16x64 16x48; do
	step --quant fp8-block --a e4m3 --b e4m3 --out bf16 --m 777 --n 1001 --k 1300 --tile $tile
	step --quant fp8-block --a e4m3 --b e5m2 --out f32 --m 77 --n 1001 --k 700 --tile $tile --scale-layout col --beta -1
done
step --quant fp8-block --a e4m3 --b e4m3 --out bf16 --m 4096 --n 4096 --k 14336 --split-k 3
step --quant fp8-block --a e4m3 --b e4m3 --out bf16 --m 4096 --n 4096 --k 4096 --split-k auto
step --quant fp8-block --a e4m3 --b e4m3 --out bf16 --m 777 --n 1001 --k 1300 --split-k 4 --scale-layout col
step --quant fp8-block --a e4m3 --b e4m3 --out bf16 --m 16 --n 7168 --k 2048 --tile 16x64 --split-k 2
step --quant fp8-block --a e4m3 --b e4m3 --out bf16 --m 2000 --n 1000 --k 1000 --cluster 2 --beta 1
step --quant fp8-block --a e4m3 --b e4m3 --out e4m3 --m 1000 --n 1000 --k 1000 --d-scale 0.5 --tile 128x128
# run gemm's own choices for DeepSeek-V3's shapes (small and large M)
for shape in "64 2112 7168" "128 7168 2048" "4096 24576 1536" "4096 7168 16384"; do
	set -- $shape
	step --quant fp8-block --a e4m3 --b e4m3 --out bf16 --m $1 --n $2 --k $3
done
}
fi

echo "$pass passed, $fail failed (seed $seed)"
[ $fail -eq 0 ]
