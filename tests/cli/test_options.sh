#!/bin/sh
# test_options.sh MMAGEN - the table-driven command line: help for every
# subcommand, options scoped to subcommands, --opt=value, spelling
# suggestions, quoting of hostile arguments, write errors on stdout.
# The expectations are written here by hand, not read from the binary.
mm=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
ok() { pass=$((pass + 1)); }
ko() { fail=$((fail + 1)); echo "FAIL: $*"; }
check() { if eval "$1"; then ok; else ko "$2"; fi; }

OP=mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
O="$tmp/out.ptx"

# usage RC PATTERN ARGS... : exit RC, one stderr line with PATTERN, no
# stdout, no $O and no temporary left
usage() {
	want=$1 pat=$2; shift 2
	rm -f "$O"
	"$mm" "$@" >"$tmp/stdout" 2>"$tmp/stderr"
	rc=$?
	if [ $rc -ne "$want" ]; then ko "exit $rc, not $want, for: $* :: $(cat "$tmp/stderr")"; return; fi
	if [ "$(wc -l <"$tmp/stderr")" -ne 1 ]; then ko "not one stderr line for: $* :: $(cat "$tmp/stderr")"; return; fi
	if ! grep -q -- "$pat" "$tmp/stderr"; then ko "message lacks '$pat' for: $* :: $(cat "$tmp/stderr")"; return; fi
	if [ -s "$tmp/stdout" ]; then ko "stdout not empty for: $*"; return; fi
	if [ -e "$O" ] || ls "$tmp" | grep -q 'tmp'; then ko "output file left for: $*"; return; fi
	ok
}

# ---- help: every subcommand, both spellings, on stdout, exit 0 ----
# SUB|an option it takes|an option it does not take
for row in "list|--json|--output" "emit instr|--format ptx|cuda|text|--swizzle" \
	   "emit tile|--swizzle none|32|64|128|--seed" "run tile|--seed N|--output" \
	   "bench load|--device D|--seed" "bench instr|--reps R|--swizzle" \
	   "quantize|--scales FILE|--arch" \
	   "dequantize|--global-scale X|--opcode" "doc signatures|-o, --output FILE|--arch" \
	   "doc cli|-o, --output FILE|--json" "doc completion|-o, --output FILE|--arch"; do
	sub=${row%%|*}
	has=${row#*|}; has=${has%|*}
	hasnt=${row##*|}
	# shellcheck disable=SC2086
	"$mm" $sub --help >"$tmp/h1" 2>"$tmp/e1"; rc1=$?
	# shellcheck disable=SC2086
	"$mm" help $sub >"$tmp/h2" 2>"$tmp/e2"; rc2=$?
	check '[ $rc1 -eq 0 ] && [ $rc2 -eq 0 ] && [ ! -s "$tmp/e1" ] && [ ! -s "$tmp/e2" ]' \
		"$sub --help / help $sub: exit $rc1/$rc2, stderr $(cat "$tmp/e1" "$tmp/e2")"
	check 'cmp -s "$tmp/h1" "$tmp/h2"' "'$sub --help' and 'help $sub' differ"
	check 'head -n 1 "$tmp/h1" | grep -q "^usage: mmagen $sub "' "$sub --help: no usage line"
	check 'grep -qF -- "  $has" "$tmp/h1"' "$sub --help lacks '$has'"
	check '! grep -q -- "^  $hasnt\\b" "$tmp/h1" && ! grep -q -- ", $hasnt\\b" "$tmp/h1"' \
		"$sub --help lists '$hasnt'"
	check 'grep -qF -- "-h, --help" "$tmp/h1"' "$sub --help lacks -h, --help"
done
# --help wins wherever it stands, also after options with values
"$mm" emit tile --arch sm_90a --opcode "$OP" --help >"$tmp/h1" 2>&1
check '[ $? -eq 0 ] && head -n 1 "$tmp/h1" | grep -q "^usage: mmagen emit tile"' \
	"emit tile ... --help: $(head -n 2 "$tmp/h1")"
"$mm" run tile -h >"$tmp/h1" 2>&1
check '[ $? -eq 0 ] && grep -q "^usage: mmagen run tile" "$tmp/h1"' "run tile -h"
"$mm" --help >"$tmp/h1" 2>&1 && "$mm" help >"$tmp/h2" 2>&1
check 'cmp -s "$tmp/h1" "$tmp/h2"' "--help and help differ"
for sub in list "emit instr" "emit tile" "run tile" "bench load" "bench instr" quantize dequantize \
	   "doc signatures" "doc cli" "doc completion"; do
	check 'grep -q "^       mmagen $sub \|^usage: mmagen $sub " "$tmp/h1"' "--help lacks usage of $sub"
done
"$mm" emit --help >"$tmp/h1" 2>&1
check '[ $? -eq 0 ] && [ "$(grep -c "mmagen emit instr\|mmagen emit tile" "$tmp/h1")" -eq 2 ]' \
	"emit --help: $(cat "$tmp/h1")"
usage 2 "unknown command 'bogus'" help bogus
usage 2 "help takes one command" help list extra
usage 2 "emit needs one of: instr, tile" emit
usage 2 "emit needs one of: instr, tile (got 'instrr')" emit instrr

# ---- options a subcommand does not take: one line, exit 2, no file ----
usage 2 "'emit tile' takes no --json; see 'mmagen emit tile --help'" \
	emit tile --arch sm_90a --opcode "$OP" --json -o "$O"
usage 2 "'emit instr' takes no --swizzle" emit instr --arch sm_90 --opcode "$OP" --swizzle 64 -o "$O"
usage 2 "'list' takes no -o" list --targets -o "$O"
usage 2 "'doc signatures' takes no --arch" doc signatures --arch sm_90 -o "$O"
usage 2 "'doc cli' takes no --format" doc cli --format ptx -o "$O"
usage 2 "'quantize' takes no --arch" quantize --arch sm_90 --format mxfp8 --in x --out "$O" --scales y
usage 2 "'bench load' takes no --seed" bench load --opcode "$OP" --seed 1
usage 2 "'bench instr' takes no --swizzle" bench instr --opcode "$OP" --swizzle 64
usage 2 "'emit tile' takes no --all" emit tile --arch sm_90a --opcode "$OP" --output="$O" --all
usage 2 "list prints one of --opcodes, --targets" list --opcodes --targets
usage 2 "list --targets prints every target" list --targets --family wgmma
usage 2 "--sample-n samples --all" run tile --opcode "$OP" --sample-n
# the request is checked before looking for a GPU (no GPU: exit 77)
usage 1 "'bogus' is not a legal opcode on any target" run tile --opcode bogus
usage 1 "no form of any target has these fields" run tile --all --family wgmma --a s4

# ---- --opt=value is --opt value ----
"$mm" emit instr --arch sm_90 --opcode "$OP" --format text >"$tmp/a" 2>&1
"$mm" emit instr --arch=sm_90 --opcode="$OP" --format=text >"$tmp/b" 2>&1
check '[ -s "$tmp/a" ] && cmp -s "$tmp/a" "$tmp/b"' "--opt=value differs from --opt value"
"$mm" emit tile --arch=sm_90a --opcode "$OP" --output="$tmp/t.ptx" 2>"$tmp/stderr"
"$mm" emit tile --arch sm_90a --opcode "$OP" -o "$tmp/u.ptx" 2>>"$tmp/stderr"
check 'cmp -s "$tmp/t.ptx" "$tmp/u.ptx" && grep -q "^\.target sm_90a" "$tmp/t.ptx"' \
	"--output=FILE: $(cat "$tmp/stderr")"
rm -f "$tmp/t.ptx" "$tmp/u.ptx"
"$mm" list --family=wgmma.sp --arch=sm_90a --opcodes >"$tmp/a" 2>/dev/null
check '[ -s "$tmp/a" ] && ! grep -qv "^wgmma.mma_async.sp" "$tmp/a"' "list --family=wgmma.sp"
usage 2 "option --json takes no value" list --json=yes
usage 2 "option --arch needs a value" emit instr --opcode "$OP" --arch
usage 2 "missing target" emit instr --arch= --opcode "$OP" -o "$O"
usage 2 "bad value 'sass' for --format; legal: ptx, cuda, text" \
	emit instr --arch sm_90 --opcode "$OP" --format=sass -o "$O"

# ---- misspellings: a suggestion from the table, cheap on long input ----
usage 2 "unknown option '--familly' for 'emit instr'; did you mean --family?" \
	emit instr --arch sm_90 --familly mma -o "$O"
usage 2 "did you mean --scales?" quantize --format mxfp8 --scale x
usage 2 "did you mean --opcodes?" list --opcdes
usage 2 "did you mean 'emit'?" emti instr
usage 2 "did you mean 'quantize'?" quantise
usage 2 "unknown option '--zzzzzz' for 'list'; see 'mmagen list --help'" list --zzzzzz
long=$(python3 -c "print('--famil' + 'y' * 100000)")
start=$(date +%s)
usage 2 "unknown option '--familyyyy" emit instr --arch sm_90 "$long" mma
check '[ $(($(date +%s) - start)) -le $((2 * ${MMAGEN_TEST_SLOWDOWN:-1})) ]' "a 100000-byte option took $(($(date +%s) - start)) s"
check '[ "$(wc -c <"$tmp/stderr")" -lt 1000 ]' "a 100000-byte option is echoed whole"
check '! grep -q "did you mean" "$tmp/stderr"' "suggestion computed on a 100000-byte option"

# ---- hostile text is quoted: no raw control bytes reach the terminal ----
esc=$(printf 'sm_9\033[31m')
nl=$(printf 'mm\na')
usage 2 "unknown target 'sm_9\\\\x1b\[31m'" emit instr --arch "$esc" --family mma -o "$O"
usage 2 "unknown family 'mm\\\\x0aa'" emit instr --arch sm_90 --family "$nl" -o "$O"
usage 2 "unknown option '--x\\\\x1b\[2J'" list "$(printf -- '--x\033[2J')"
usage 2 "bad value 'it\\\\x27s' for --satfinite" emit instr --arch sm_90 --satfinite "it's"
usage 2 "unexpected argument 'a\\\\x07b' for 'list'" list "$(printf 'a\007b')"
usage 2 "bad --shape 'm16\\\\x09n8'" emit instr --arch sm_90 --shape "$(printf 'm16\tn8')"
for f in "$tmp/stderr"; do
	check '! LC_ALL=C grep -q "$(printf "[\001-\010\013-\037\177]")" "$f"' "raw control bytes in $f"
done

# ---- strict values ----
usage 2 "bad --shape 'm65535n8k16'" emit instr --arch sm_90 --shape m65535n8k16 -o "$O"
usage 2 "bad --shape 'm+16n8k16'" emit instr --arch sm_90 --shape m+16n8k16 -o "$O"
usage 2 "bad --shape ' m16n8k16'" emit instr --arch sm_90 --shape " m16n8k16" -o "$O"
usage 2 "bad --seed '-1'" run tile --opcode "$OP" --seed -1
usage 2 "bad --seed '18446744073709551616'" run tile --opcode "$OP" --seed 18446744073709551616
usage 2 "bad --layout 'r.c'" emit instr --arch sm_90 --layout r.c -o "$O"
usage 2 "bad --m '0'" emit tile --arch sm_100a --family tcgen05 --m 0 -o "$O"
usage 2 "bad --device '+1'" run tile --opcode "$OP" --device +1
echo x >"$tmp/in.f32"
usage 2 "--out and --scales are both" quantize --format mxfp8 --in "$tmp/in.f32" --out "$O" --scales "$O"
usage 2 "--format: unknown block-scaled format 'mxfp9'" \
	quantize --format mxfp9 --in "$tmp/in.f32" --out "$O" --scales "$tmp/s"

# ---- every selector field filters list; list's family labels round-trip ----
"$mm" list --shape m16n8k16 --a bf16 --opcodes >"$tmp/a"
check '[ -s "$tmp/a" ] && ! grep -v "m16n8k16" "$tmp/a" | grep -q . && ! grep -v "bf16" "$tmp/a" | grep -q .' \
	"list --shape/--a do not filter"
"$mm" list --arch sm_100a --kind f16 --cta-group 2 --opcodes >"$tmp/a"
check '[ -s "$tmp/a" ] && ! grep -qv "cta_group::2.kind::f16" "$tmp/a"' "list --kind/--cta-group do not filter"
"$mm" list --opcode "$OP" >"$tmp/a"
check '[ "$(wc -l <"$tmp/a")" -eq 2 ] && grep -q " $OP\$" "$tmp/a"' "list --opcode: $(cat "$tmp/a")"
"$mm" list --arch sm_100a | awk 'NR > 1 { print $1 }' | sort -u >"$tmp/fams"
while read -r fam; do
	"$mm" list --arch sm_100a --family "$fam" >"$tmp/a" 2>"$tmp/stderr"
	check '[ $? -eq 0 ] && ! awk "NR > 1 { print \$1 }" "$tmp/a" | grep -qvx -- "$fam"' \
		"list prints family '$fam' that --family does not select alone: $(cat "$tmp/stderr")"
done <"$tmp/fams"

# ---- write errors on stdout: one line on stderr, non-zero exit ----
if [ -w /dev/full ]; then
	for args in "--help" "--version" "help emit tile" "emit tile --help" "list --targets" \
		    "list --arch sm_90 --opcodes" "emit instr --arch sm_90 --opcode $OP"; do
		# shellcheck disable=SC2086
		"$mm" $args >/dev/full 2>"$tmp/stderr"
		rc=$?
		check '[ $rc -ne 0 ] && [ "$(wc -l <"$tmp/stderr")" -eq 1 ] && grep -q "cannot write standard output" "$tmp/stderr"' \
			"'$args > /dev/full': exit $rc, stderr: $(cat "$tmp/stderr")"
	done
fi

# ---- docs/cli.md is complete: every option of every help is in it ----
"$mm" doc cli >"$tmp/cli.md"
for sub in list "emit instr" "emit tile" "run tile" "bench load" "bench instr" quantize dequantize \
	   "doc signatures" "doc cli" "doc completion"; do
	check 'grep -q "^## $sub\$" "$tmp/cli.md"' "doc cli lacks a section for $sub"
	# shellcheck disable=SC2086
	"$mm" help $sub 2>/dev/null | grep -o -- "^  \(-., \)\?--[a-z-]*" | sed 's/.*--/--/' | sort -u >"$tmp/opts"
	while read -r opt; do
		check 'grep -q -- "\`$opt" "$tmp/cli.md"' "doc cli lacks $opt ($sub)"
	done <"$tmp/opts"
done

# ---- the bash completion script, from the same tables ----
"$mm" doc completion >"$tmp/completion.bash"
# complete WORDS... : what bash would offer for the last word
complete_words() {
	bash -c '. "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _mmagen
		 printf "%s\n" "${COMPREPLY[@]}"' sh "$tmp/completion.bash" "$@" | sort | tr '\n' ' '
}
if command -v bash >/dev/null; then
	check '[ "$(complete_words mmagen em)" = "emit " ]' "complete 'em': $(complete_words mmagen em)"
	check '[ "$(complete_words mmagen emit "")" = "instr tile " ]' "complete 'emit '"
	check '[ "$(complete_words mmagen emit tile --sw)" = "--swizzle " ]' "complete 'emit tile --sw'"
	check '[ "$(complete_words mmagen emit instr --sw)" = " " ]' "emit instr completes --swizzle"
	check '[ "$(complete_words mmagen emit instr --format "")" = "cuda ptx text " ]' \
		"complete 'emit instr --format': $(complete_words mmagen emit instr --format "")"
	check '[ "$(complete_words mmagen emit tile --format "")" = "json ptx " ]' "complete 'emit tile --format'"
	check '[ "$(complete_words mmagen list --ws "")" = "no yes " ]' "complete 'list --ws'"
	check '[ "$(complete_words mmagen quantize --form)" = "--format " ]' "complete 'quantize --form'"
	check '[ "$(complete_words mmagen help d)" = "dequantize doc " ]' "complete 'help d'"
fi

echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
