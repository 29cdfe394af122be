#!/bin/sh
# test_files.sh MMAGEN - output files as GNU tools write them (issue 11):
# "-" is standard output; a symlink is followed and the file it names is
# replaced; FIFOs, character devices and /dev/fd/N are written through;
# a directory or a missing directory is one line and nothing created; new
# files get 0666 & ~umask, replaced ones keep their mode; quantize's two
# outputs appear together or not at all and never as one file; inputs of
# unknown size stop where the format says; numbers are plain numbers.
# Expectations are by hand.
mm=$1
case $mm in /*) ;; *) mm=$(pwd)/$mm ;; esac    # the tests run elsewhere
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
ok() { pass=$((pass + 1)); }
ko() { fail=$((fail + 1)); echo "FAIL: $*"; }
check() { if eval "$1"; then ok; else ko "$2"; fi; }

OP=mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
E="emit instr --arch sm_90 --opcode $OP --format text"
# shellcheck disable=SC2086
"$mm" $E >"$tmp/want" || { echo "FAIL: emit"; exit 1; }
d=$tmp/d
mkdir "$d"
cd "$d" || exit 1
# emit -o PATH, stderr to $tmp/err
emit() { "$mm" $E -o "$@" 2>"$tmp/err"; }
# no temporaries anywhere under $d
notmp() { ! find "$d" -name '*.tmp*' | grep -q .; }

# ---- "-" is standard output ----
emit - >"$tmp/out"
check '[ $? -eq 0 ] && cmp -s "$tmp/out" "$tmp/want" && [ ! -e ./- ]' "-o - : $(cat "$tmp/err")"

# ---- a symlink chain: the file at its end is replaced, the links stay ----
echo old >real
ln -s real link1
ln -s link1 link2
emit link2
check '[ -L link2 ] && [ -L link1 ] && [ -f real ] && [ ! -L real ] && cmp -s real "$tmp/want"' \
	"-o link2: links $(ls -l link1 link2 real)"
mkdir sub
ln -s ../real sub/up      # relative to the link's own directory
echo old >real
emit sub/up
check '[ -L sub/up ] && cmp -s real "$tmp/want"' "-o sub/up (link to ../real)"
ln -s not-yet dangling
emit dangling
check '[ -L dangling ] && cmp -s not-yet "$tmp/want"' "-o dangling: the file it names is not created"
ln -s loop-a loop-b
ln -s loop-b loop-a
emit loop-a
check '[ $? -eq 1 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -q "loop-a" "$tmp/err"' \
	"-o loop-a: $(cat "$tmp/err")"
check notmp "temporaries left after the links"

# ---- FIFOs and descriptors are written through, never replaced ----
mkfifo fifo
cat fifo >"$tmp/fromfifo" &
reader=$!
# replaced, or not written: no writer comes, so the reader goes
if emit fifo && [ -p fifo ]; then wait $reader; else kill $reader; fi
check '[ -p fifo ] && cmp -s "$tmp/fromfifo" "$tmp/want"' "-o fifo: $(cat "$tmp/err")"
echo first >fd3
emit /dev/fd/3 3>>fd3       # appended: the descriptor's own O_APPEND
check '[ -f fd3 ] && [ "$(head -n 1 fd3)" = first ] && tail -n +2 fd3 | cmp -s - "$tmp/want"' \
	"-o /dev/fd/3 3>>fd3: $(cat "$tmp/err")"
emit /dev/fd/4 4>&1 >/dev/null | cat >"$tmp/out"
check 'cmp -s "$tmp/out" "$tmp/want"' "-o /dev/fd/4 onto a pipe: $(cat "$tmp/err")"
# a link to a descriptor, as /dev/stdout is: ours, since a broken mmagen
# run by root would replace /dev/stdout itself
ln -s /proc/self/fd/1 my-stdout
emit my-stdout >"$tmp/out"
check '[ -L my-stdout ] && cmp -s "$tmp/out" "$tmp/want"' "-o my-stdout (-> /proc/self/fd/1): $(cat "$tmp/err")"
if [ ! -w /dev ]; then
	emit /dev/stdout >"$tmp/out"
	check 'cmp -s "$tmp/out" "$tmp/want"' "-o /dev/stdout: $(cat "$tmp/err")"
fi
emit /dev/fd/9
check '[ $? -eq 1 ] && grep -q "cannot write ./dev/fd/9.: " "$tmp/err"' "-o /dev/fd/9 (closed): $(cat "$tmp/err")"
# a character device: our own node where we may make one (root), else
# /dev/null where its directory is not ours to change
if mknod cdev c 1 3 2>/dev/null; then
	emit cdev
	check '[ -c cdev ]' "-o cdev replaced the device node: $(ls -l cdev)"
elif [ ! -w /dev ]; then
	emit /dev/null
	check '[ $? -eq 0 ] && [ -c /dev/null ]' "-o /dev/null: $(cat "$tmp/err")"
fi
check notmp "temporaries left after FIFOs and descriptors"

# ---- refused: one line naming the path, nothing created ----
# refused CODE PATTERN PATH
refused() {
	want=$1 pat=$2 path=$3
	before=$(find "$d" | sort)
	emit "$path" >"$tmp/out"
	rc=$?
	check '[ $rc -eq $want ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -q -- "$pat" "$tmp/err" && [ ! -s "$tmp/out" ]' \
		"-o $path: exit $rc: $(cat "$tmp/err")"
	check '[ "$(find "$d" | sort)" = "$before" ]' "-o $path changed $d"
}
refused 1 "cannot write 'sub': it is a directory" sub
refused 1 "cannot write 'nodir/x.ptx': no directory 'nodir'" nodir/x.ptx
refused 1 "cannot write 'sub/no/x.ptx': no directory 'sub/no'" sub/no/x.ptx
refused 1 "cannot write 'real/x.ptx'" real/x.ptx
refused 1 "names a directory" new/

# ---- modes: 0666 & ~umask for new files; a replaced file keeps its own ----
(umask 027 && emit m1) && (umask 077 && emit m2) && (umask 0 && emit m3)
check '[ "$(stat -c %a m1 m2 m3 | tr "\n" " ")" = "640 600 666 " ]' \
	"new file modes: $(stat -c %a m1 m2 m3 | tr '\n' ' ')"
echo old >x.sh && chmod 751 x.sh
(umask 077 && emit x.sh)
check '[ "$(stat -c %a x.sh)" = 751 ] && cmp -s x.sh "$tmp/want"' "replaced 751 file: $(stat -c %a x.sh)"
echo old >secret && chmod 600 secret
(umask 0 && emit secret)
check '[ "$(stat -c %a secret)" = 600 ]' "replaced 600 file: $(stat -c %a secret)"

# ---- quantize: both outputs or neither, never one file twice ----
python3 -c 'import struct, sys
open(sys.argv[1], "wb").write(struct.pack("<32f", *[float(i) for i in range(32)]))' "$tmp/a.f32"
Q="quantize --format mxfp8 --in $tmp/a.f32"
echo keep >keep.sc
echo keep >keep.el
# qfail CODE PATTERN ARGS... : one line, files untouched, no temporaries
qfail() {
	want=$1 pat=$2; shift 2
	before=$(find "$d" | sort)
	# shellcheck disable=SC2086
	"$mm" $Q "$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	check '[ $rc -eq $want ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -q -- "$pat" "$tmp/err"' \
		"quantize $*: exit $rc: $(cat "$tmp/err")"
	check '[ "$(cat keep.sc keep.el)" = "keep
keep" ] && [ "$(find "$d" | sort)" = "$before" ]' "quantize $* changed files"
}
qfail 1 "cannot write 'sub': it is a directory" --out sub --scales keep.sc
qfail 1 "cannot write 'nodir/s': no directory 'nodir'" --out keep.el --scales nodir/s
qfail 1 "no directory 'nodir'" --out nodir/e --scales keep.sc
qfail 2 "are both" --out q.el --scales q.el
qfail 2 "'q.el' and './q.el' are one file" --out q.el --scales ./q.el
ln -s keep.el link-el
qfail 2 "'keep.el' and 'link-el' are one file" --out keep.el --scales link-el
rm -f link-el
# an output on the input: the input would be gone (directly or by a link)
cp "$tmp/a.f32" in.f32
ln -s in.f32 link-in
qfail 2 "--out 'in.f32' is its input --in too" --in in.f32 --out in.f32 --scales q.sc
qfail 2 "--scales 'link-in' is its input --in too" --in in.f32 --out q.el --scales link-in
check 'cmp -s in.f32 "$tmp/a.f32"' "quantize replaced its input"
rm -f link-in in.f32
"$mm" $Q --out - --scales q.sc >"$tmp/out" 2>"$tmp/err"
check '[ $? -eq 0 ] && [ "$(wc -c <"$tmp/out")" -eq 32 ] && [ "$(wc -c <q.sc)" -eq 1 ]' \
	"quantize --out -: $(cat "$tmp/err")"
check notmp "temporaries left after quantize"

# ---- input of unknown size is read only as far as the format implies ----
if [ -r /dev/zero ]; then
	printf '\177' >one.sc
	head -c 32 /dev/zero >z.el
	# under a memory limit (the old reader took all there was), where
	# mmagen runs under one: AddressSanitizer's shadow memory does not
	lim=1000000
	(ulimit -v $lim && "$mm" --version) >/dev/null 2>&1 || lim=unlimited
	# dfail PATTERN ARGS...
	dfail() {
		pat=$1; shift
		(ulimit -v $lim 2>/dev/null; "$mm" dequantize --format mxfp8 "$@" --out z.out) \
			>"$tmp/out" 2>"$tmp/err"
		rc=$?
		check '[ $rc -eq 2 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -q -- "$pat" "$tmp/err" && [ ! -e z.out ]' \
			"dequantize $*: exit $rc: $(cat "$tmp/err")"
	}
	dfail "'/dev/zero' holds more than 1 bytes; the scales need 1" --in z.el --scales /dev/zero
	dfail "'/dev/zero' holds more than 32 bytes; the elements need 32" \
		--count 32 --in /dev/zero --scales one.sc
	dfail "'/dev/zero' holds more than 268435456 bytes; give --count" --in /dev/zero --scales one.sc
	head -c 128 /dev/zero | "$mm" quantize --format mxfp8 --count 32 --in /dev/stdin \
		--out z.el2 --scales z.sc2 2>"$tmp/err"
	check '[ $? -eq 0 ] && [ "$(wc -c <z.el2)" -eq 32 ]' "quantize --count from a pipe: $(cat "$tmp/err")"
fi

# ---- bench load leaves nothing in $TMPDIR, whatever its exit ----
mkdir "$tmp/t"
TMPDIR=$tmp/t "$mm" bench load --opcode "$OP" --arch sm_90 >/dev/null 2>&1
check '[ -z "$(ls -A "$tmp/t")" ]' "bench load left $(ls -A "$tmp/t") in TMPDIR"

# ---- numbers are plain: no sign, no blanks, no octal, nothing after ----
# nusage ARGS... : exit 2, one line "bad --OPT"
nusage() {
	"$mm" "$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	check '[ $rc -eq 2 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -q "bad --" "$tmp/err"' \
		"$*: exit $rc: $(cat "$tmp/err")"
}
G="gemm --arch sm_90a --a bf16 --b bf16 --out bf16"
# shellcheck disable=SC2086
{ nusage $G --tile +128x256; nusage $G --tile " 128x256"; nusage $G --tile 128x256x64x8
  nusage $G --tile 128x256x; nusage $G --tile 128x256x0; nusage $G --tile 128; nusage $Q --out c.el --scales c.sc --count " 32"
  nusage $Q --out c.el --scales c.sc --count +32; nusage run tile --opcode $OP --seed 0x; }
"$mm" $G --tile 128x256 >/dev/null 2>"$tmp/err"
check '[ $? -eq 0 ]' "--tile 128x256: $(cat "$tmp/err")"
# the tile K: each path's own, or for mma.sync 64- or 128-byte rows;
# another is refused in one line naming the legal values
"$mm" $G --tile 128x256x64 >/dev/null 2>"$tmp/err"
check '[ $? -eq 0 ]' "--tile 128x256x64 (wgmma bf16's own K): $(cat "$tmp/err")"
"$mm" $G --tile 128x256x32 >/dev/null 2>"$tmp/err"
check '[ $? -eq 1 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -q "tile K for bf16 is 64, not 32" "$tmp/err"' \
	"wgmma --tile 128x256x32: $(cat "$tmp/err")"
for k in 32 64; do
	"$mm" gemm --arch sm_80 --a bf16 --b bf16 --out bf16 --tile 128x128x$k --format json >"$tmp/out" 2>"$tmp/err"
	check '[ $? -eq 0 ] && grep -q "\"tile\": \[128, 128, $k\]" "$tmp/out"' "mma.sync --tile 128x128x$k: $(cat "$tmp/err")"
done
"$mm" gemm --arch sm_80 --a s4 --b u4 --out s32 --tile 128x128x64 >/dev/null 2>"$tmp/err"
check '[ $? -eq 1 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -q "tile K is 128 or 256 for s4" "$tmp/err"' \
	"mma.sync s4 --tile 128x128x64: $(cat "$tmp/err")"
"$mm" run tile --opcode $OP --seed 08 >/dev/null 2>"$tmp/err"
check '[ $? -ne 2 ]' "--seed 08 (decimal, not octal): $(cat "$tmp/err")"

echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
