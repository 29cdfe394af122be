#!/bin/sh
# test_formats.sh MMAGEN - mmagen quantize / dequantize: known bytes for
# hand-computed blocks, round trips, and failures that print one line,
# exit non-zero and leave no output (or temporary) files behind.
mm=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
ok() { pass=$((pass + 1)); }
ko() { fail=$((fail + 1)); echo "FAIL: $*"; }

# f32 FILE V... : raw little-endian f32 values
f32() { out=$1; shift; python3 -c 'import struct, sys
v = [float(a) for a in sys.argv[2:]]
open(sys.argv[1], "wb").write(struct.pack("<%df" % len(v), *v))' "$out" "$@"; }
# zeros N : N "0" words for f32
zeros() { python3 -c "print(' '.join(['0'] * $1))"; }
# hex FILE : the file's bytes as hex
hex() { python3 -c 'import sys; print(open(sys.argv[1], "rb").read().hex())' "$1"; }
# floats FILE : the f32 values, repr'd, space separated
floats() { python3 -c 'import struct, sys
d = open(sys.argv[1], "rb").read()
print(" ".join(repr(x) for x in struct.unpack("<%df" % (len(d) // 4), d)))' "$1"; }

expect_eq() {   # WHAT GOT WANT
	if [ "$2" = "$3" ]; then ok; else ko "$1: got '$2', want '$3'"; fi
}

# expect_fail PATTERN ARGS... : exit != 0, one stderr line with PATTERN,
# empty stdout, and none of out.*, scales.* or temporaries in $tmp/o
expect_fail() {
	pat=$1; shift
	rm -rf "$tmp/o"; mkdir "$tmp/o"
	"$mm" "$@" >"$tmp/stdout" 2>"$tmp/stderr"
	rc=$?
	lines=$(wc -l <"$tmp/stderr")
	if [ $rc -eq 0 ]; then ko "exit 0 for: $*"; return; fi
	if [ "$lines" -ne 1 ]; then ko "$lines stderr lines for: $* :: $(cat "$tmp/stderr")"; return; fi
	if ! grep -q -- "$pat" "$tmp/stderr"; then ko "message lacks '$pat' for: $* :: $(cat "$tmp/stderr")"; return; fi
	if [ -s "$tmp/stdout" ]; then ko "stdout not empty for: $*"; return; fi
	if [ -n "$(ls "$tmp/o")" ]; then ko "files left for: $* :: $(ls "$tmp/o")"; return; fi
	ok
}

run() { "$mm" "$@" >"$tmp/stdout" 2>"$tmp/stderr" || { ko "failed: $* :: $(cat "$tmp/stderr")"; return 1; }; ok; }

# ---- known blocks (the arithmetic is in tests/unit/test_formats.c) ----
# mxfp8 e4m3, amax 100: scale 2^-2 (0x7d); 3 -> 0x54, -0.5 -> 0xc0,
# 100 -> 400, a tie between 384 and 416: 384 = 0x7c, back to 96
f32 "$tmp/a.f32" 3 -0.5 100 $(zeros 29)
if run quantize --format mxfp8 --in "$tmp/a.f32" --out "$tmp/a.el" --scales "$tmp/a.sc"; then
	expect_eq "mxfp8 elements" "$(hex "$tmp/a.el")" "54c07c$(python3 -c "print('00' * 29)")"
	expect_eq "mxfp8 scales" "$(hex "$tmp/a.sc")" "7d"
	run dequantize --format mxfp8 --in "$tmp/a.el" --scales "$tmp/a.sc" --out "$tmp/a.out"
	expect_eq "mxfp8 values" "$(floats "$tmp/a.out" | cut -d' ' -f1-4)" "3.0 -0.5 96.0 0.0"
fi

# mxfp8 e5m2: 61440 saturates to 57344 (0x7b) under scale 1 (0x7f)
f32 "$tmp/b.f32" 61440 0.75 $(zeros 30)
run quantize --format mxfp8 --elem e5m2 --in "$tmp/b.f32" --out "$tmp/b.el" --scales "$tmp/b.sc" &&
	expect_eq "mxfp8 e5m2" "$(hex "$tmp/b.el" | cut -c1-4)$(hex "$tmp/b.sc")" "7b3a7f"

# mxfp6 e2m3: scale 2^-2; 1 -> 0x18, 0.3 -> 1.25 (0x0a) -> 0.3125
f32 "$tmp/c.f32" 1 0.3 $(zeros 30)
if run quantize --format mxfp6 --elem e2m3 --in "$tmp/c.f32" --out "$tmp/c.el" --scales "$tmp/c.sc"; then
	expect_eq "mxfp6 e2m3" "$(hex "$tmp/c.el" | cut -c1-4)$(hex "$tmp/c.sc")" "180a7d"
	run dequantize --format mxfp6 --elem e2m3 --in "$tmp/c.el" --scales "$tmp/c.sc" --out "$tmp/c.out"
	expect_eq "mxfp6 values" "$(floats "$tmp/c.out" | cut -d' ' -f1-2)" "1.0 0.3125"
fi

# mxfp4, 33 values: 17 element bytes (last high nibble 0), 2 scales
f32 "$tmp/d.f32" 1 0.2 -0.75 0.5 $(zeros 28) 3
if run quantize --format mxfp4 --in "$tmp/d.f32" --out "$tmp/d.el" --scales "$tmp/d.sc"; then
	expect_eq "mxfp4 elements" "$(hex "$tmp/d.el")" "264d$(python3 -c "print('00' * 14)")07"
	# block 1 is the lone 3: floor(log2 3) - 2 = -1, 0x7e; 3/0.5 = 6 = 0111
	expect_eq "mxfp4 scales" "$(hex "$tmp/d.sc")" "7d7e"
	expect_eq "mxfp4 last element" "$(hex "$tmp/d.el" | cut -c33-34)" "07"
	run dequantize --format mxfp4 --count 33 --in "$tmp/d.el" --scales "$tmp/d.sc" --out "$tmp/d.out"
	expect_eq "mxfp4 values" "$(floats "$tmp/d.out" | cut -d' ' -f1-4,33)" "1.0 0.25 -0.75 0.5 3.0"
fi

# nvfp4: amax 6 and 10 -> scales 0x38 and 1.625 (0x3d); 10 -> 9.75
f32 "$tmp/e.f32" 6 1 -3 $(zeros 13) 10 2 $(zeros 14)
if run quantize --format nvfp4 --in "$tmp/e.f32" --out "$tmp/e.el" --scales "$tmp/e.sc"; then
	expect_eq "nvfp4 scales" "$(hex "$tmp/e.sc")" "383d"
	run dequantize --format nvfp4 --in "$tmp/e.el" --scales "$tmp/e.sc" --out "$tmp/e.out"
	expect_eq "nvfp4 values" "$(floats "$tmp/e.out" | cut -d' ' -f1-3,17,18)" "6.0 1.0 -3.0 9.75 1.625"
fi

# nvfp4 with the conventional global scale: amax 8064 -> 3; the amax
# block gets the top ue4m3 (0x7e) and the tensor comes back exactly
f32 "$tmp/g.f32" 8064 -2016 $(zeros 14)
if run quantize --format nvfp4 --global-scale auto --in "$tmp/g.f32" --out "$tmp/g.el" --scales "$tmp/g.sc"; then
	expect_eq "nvfp4 auto global scale" "$(cat "$tmp/stdout")" "global_scale 3"
	expect_eq "nvfp4 global block scale" "$(hex "$tmp/g.sc")" "7e"
	run dequantize --format nvfp4 --global-scale 3 --in "$tmp/g.el" --scales "$tmp/g.sc" --out "$tmp/g.out"
	expect_eq "nvfp4 global values" "$(floats "$tmp/g.out" | cut -d' ' -f1-2)" "8064.0 -2016.0"
fi

# a NaN block: NaN scale, the whole block NaN, the next block intact
f32 "$tmp/n.f32" nan 1 $(zeros 30) 2 $(zeros 31)
if run quantize --format mxfp8 --in "$tmp/n.f32" --out "$tmp/n.el" --scales "$tmp/n.sc"; then
	expect_eq "NaN block scales" "$(hex "$tmp/n.sc")" "ff78"
	run dequantize --format mxfp8 --in "$tmp/n.el" --scales "$tmp/n.sc" --out "$tmp/n.out"
	expect_eq "NaN block values" "$(floats "$tmp/n.out" | cut -d' ' -f1,2,33)" "nan nan 2.0"
fi

# ---- failures ----
O="$tmp/o/out"; S="$tmp/o/scales"
expect_fail "unknown block-scaled format 'mxfp5'" \
	quantize --format mxfp5 --in "$tmp/a.f32" --out "$O" --scales "$S"
expect_fail "mxfp4 elements are e2m1, not e4m3" \
	quantize --format mxfp4 --elem e4m3 --in "$tmp/a.f32" --out "$O" --scales "$S"
expect_fail "mxfp8 elements are e4m3 or e5m2, not e2m3" \
	quantize --format mxfp8 --elem e2m3 --in "$tmp/a.f32" --out "$O" --scales "$S"
expect_fail "unknown element type 'fp9'" \
	quantize --format mxfp8 --elem fp9 --in "$tmp/a.f32" --out "$O" --scales "$S"
expect_fail "quantize needs --format, --in, --out and --scales" \
	quantize --format mxfp8 --in "$tmp/a.f32" --out "$O"
expect_fail "unknown option '--bogus'" \
	quantize --format mxfp8 --bogus 1 --in "$tmp/a.f32" --out "$O" --scales "$S"
expect_fail "option --scales needs a value" \
	quantize --format mxfp8 --in "$tmp/a.f32" --out "$O" --scales
expect_fail "cannot read '$tmp/none.f32': No such file" \
	quantize --format mxfp8 --in "$tmp/none.f32" --out "$O" --scales "$S"
printf 'abcde' >"$tmp/odd.f32"
expect_fail "not a non-empty f32 array" \
	quantize --format mxfp8 --in "$tmp/odd.f32" --out "$O" --scales "$S"
expect_fail "holds 128 bytes; the f32 values need 132" \
	quantize --format mxfp8 --count 33 --in "$tmp/a.f32" --out "$O" --scales "$S"
expect_fail "bad --count 'x'" \
	quantize --format mxfp8 --count x --in "$tmp/a.f32" --out "$O" --scales "$S"
expect_fail "mxfp8 has no global scale" \
	quantize --format mxfp8 --global-scale 2 --in "$tmp/a.f32" --out "$O" --scales "$S"
expect_fail "bad --global-scale '-1'" \
	quantize --format nvfp4 --global-scale -1 --in "$tmp/a.f32" --out "$O" --scales "$S"
expect_fail "dequantize needs the global scale's value" \
	dequantize --format nvfp4 --global-scale auto --in "$tmp/e.el" --scales "$tmp/e.sc" --out "$O"
expect_fail "holds 2 bytes; the scales need 1" \
	dequantize --format mxfp8 --in "$tmp/a.el" --scales "$tmp/e.sc" --out "$O"
expect_fail "holds 16 bytes; the elements need 17" \
	dequantize --format mxfp4 --count 34 --in "$tmp/e.el" --scales "$tmp/d.sc" --out "$O"
# scales cannot be written: the elements file must not appear either
expect_fail "cannot write '$tmp/o/no/dir/s': no directory '$tmp/o/no/dir'" \
	quantize --format mxfp8 --in "$tmp/a.f32" --out "$O" --scales "$tmp/o/no/dir/s"
expect_fail "cannot write '$tmp/o/no/dir/e': no directory '$tmp/o/no/dir'" \
	quantize --format mxfp8 --in "$tmp/a.f32" --out "$tmp/o/no/dir/e" --scales "$S"

# an existing output is not clobbered by a failing request
echo keep >"$tmp/keep"
"$mm" quantize --format mxfp4 --elem e5m2 --in "$tmp/a.f32" --out "$tmp/keep" --scales "$tmp/keep" 2>/dev/null
expect_eq "existing file kept" "$(cat "$tmp/keep")" "keep"

echo "cli formats: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
