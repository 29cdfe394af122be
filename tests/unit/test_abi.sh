#!/bin/sh
# test_abi.sh - the shared libraries export their public API and nothing else.
#
# usage: test_abi.sh NM CC CXX  LIB HEADER PREFIX MACRO  [LIB HEADER PREFIX MACRO ...]
#
# For each library:
#   1. every symbol `nm -D --defined-only LIB` lists starts with PREFIX;
#   2. every function HEADER declares is marked MACRO (on the line before
#      its declaration; a column-0 line naming PREFIXsomething( is a
#      declaration) and is exported;
#   3. every exported symbol is declared in HEADER (an internal helper that
#      happens to carry the prefix, like mmagen_set_error, is a leak too);
#   4. HEADER compiles alone as C11 and as C++ with -Wall -Wextra -pedantic
#      -Werror (CXX "-": skipped);
#   5. LIB imports nothing that ends the process or prints on its own
#      (abort, exit, printf, stdout, stderr, ...); assert's own
#      __assert_fail is allowed: internal bugs are asserts.
# Exit 77 (skipped) without nm.
set -u
LC_ALL=C
export LC_ALL   # sort and comm agree
NM=$1 CC=$2 CXX=$3
shift 3
if [ ! -x "$NM" ]; then
	echo "SKIP: no nm ($NM)"
	exit 77
fi
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
fail=0
bad() { echo "FAIL: $*"; fail=1; }

while [ $# -ge 4 ]; do
	lib=$1 header=$2 prefix=$3 macro=$4
	shift 4
	name=$(basename "$lib")
	if ! "$NM" -D --defined-only "$lib" >"$tmp/nm.txt"; then
		bad "$NM -D --defined-only $lib failed"
		continue
	fi
	# "address type name" lines; drop symbol versions (name@@V).
	awk 'NF >= 3 { sub(/@.*/, "", $3); print $3 }' "$tmp/nm.txt" | sort -u >"$tmp/exported"

	# Declarations: MACRO alone on a line, the function's name on the next.
	awk -v m="$macro" -v p="$prefix" '
		prev == m { if (match($0, p "[A-Za-z0-9_]*[ \t]*\\(")) {
				s = substr($0, RSTART, RLENGTH); sub(/[ \t]*\($/, "", s); print s
			} else print "?" NR }
		{ prev = $0 }' "$header" | sort -u >"$tmp/declared"
	# Column-0 lines naming a function that are not marked.
	awk -v m="$macro" -v p="$prefix" '
		/^[A-Za-z]/ && $0 !~ /^(typedef|enum|struct|union)[ \t{]/ &&
		    match($0, "[ *]" p "[A-Za-z0-9_]*\\(") && prev != m { print FILENAME ":" NR ": " $0 }
		{ prev = $0 }' "$header" >"$tmp/unmarked"

	n_exp=$(wc -l <"$tmp/exported")
	n_decl=$(grep -vc "^?" "$tmp/declared")
	[ "$n_decl" -gt 0 ] || bad "$header: no function marked $macro"
	grep '^?' "$tmp/declared" | while read -r l; do
		echo "FAIL: $header:${l#?}: $macro not followed by a $prefix function"
	done
	grep -q '^?' "$tmp/declared" && fail=1
	if [ -s "$tmp/unmarked" ]; then
		bad "declared in the header without $macro (so not exported):"
		cat "$tmp/unmarked"
	fi
	for s in $(grep -v "^$prefix" "$tmp/exported"); do
		bad "$name exports $s: not $prefix*"
	done
	for s in $(comm -23 "$tmp/exported" "$tmp/declared" | grep "^$prefix"); do
		bad "$name exports $s, which $header does not declare"
	done
	for s in $(comm -13 "$tmp/exported" "$tmp/declared" | grep -v '^?'); do
		bad "$header declares $s, which $name does not export"
	done
	echo "$name: $n_exp exported, $n_decl declared in $(basename "$header")"

	# Imports a library must not have.
	"$NM" -D --undefined-only "$lib" | awk '{ sub(/@.*/, "", $NF); print $NF }' |
		grep -xE 'abort|exit|_exit|_Exit|quick_exit|printf|vprintf|puts|putchar|perror|stdout|stderr' \
		>"$tmp/imports"
	for s in $(cat "$tmp/imports"); do
		bad "$name calls $s: a library returns a status, never ends the process or prints"
	done
	if "$NM" -D --undefined-only "$lib" | grep -qw umask; then
		bad "$name calls umask: that sets the mask of every thread (modes come from open or fchmod)"
	fi

	# The header alone, as C11 and as C++.
	hdir=$(dirname "$header") hname=$(basename "$header")
	printf '#include "%s"\nint main(void) { return 0; }\n' "$hname" >"$tmp/h.c"
	# shellcheck disable=SC2086 # CC and CXX may be "ccache cc"
	$CC -std=c11 -Wall -Wextra -pedantic -Werror -I"$hdir" -c "$tmp/h.c" \
		-o "$tmp/h.o" || bad "$hname does not compile as C11 with -pedantic -Werror"
	if [ "$CXX" != "-" ]; then
		cp "$tmp/h.c" "$tmp/h.cc"
		$CXX -std=c++11 -Wall -Wextra -pedantic -Werror -I"$hdir" -c "$tmp/h.cc" \
			-o "$tmp/h.o" || bad "$hname does not compile as C++11 with -pedantic -Werror"
	fi
done
[ $# -eq 0 ] || bad "usage: stray arguments: $*"
[ $fail -eq 0 ] && echo "PASS"
exit $fail
