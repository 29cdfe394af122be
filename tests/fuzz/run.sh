#!/bin/sh
# tests/fuzz/run.sh - fuzz each harness of tests/fuzz for a while.
#
#   tests/fuzz/run.sh [-t SECONDS] [-j JOBS] [-b BUILDDIR] [HARNESS...]
#
# -t   seconds per harness (default 60)
# -j   harnesses run at once (default 1)
# -b   build directory (default build-fuzz); configured here when it does
#      not exist: clang, ASan+UBSan, -Dfuzz=true
# HARNESS: select cli quant cache ... (default: every tests/fuzz/fuzz_*.c)
#
# Each harness starts from its seed corpus (tests/fuzz/corpus/NAME, read
# only) and keeps what it finds in BUILDDIR/fuzz-corpus/NAME.  A crash,
# sanitizer report or failed check is saved as
# BUILDDIR/fuzz-artifacts/NAME-crash-...; replay it with
#   BUILDDIR/tests/fuzz/fuzz_NAME FILE
# and, once fixed, copy it into tests/fuzz/corpus/NAME so that the
# `fuzz` suite replays it from then on.  Exit 1 if any harness failed.
set -e
src=$(cd "$(dirname "$0")/../.." && pwd)
secs=60 jobs=1 build=build-fuzz
while getopts t:j:b: o; do
	case $o in
	t) secs=$OPTARG ;;
	j) jobs=$OPTARG ;;
	b) build=$OPTARG ;;
	*) echo "usage: $0 [-t SECONDS] [-j JOBS] [-b BUILDDIR] [HARNESS...]" >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
all=$(cd "$src/tests/fuzz" && for f in fuzz_*.c; do n=${f#fuzz_}; printf '%s ' "${n%.c}"; done)
names=${*:-$all}

if [ ! -f "$build/build.ninja" ]; then
	CC=${CC:-clang} meson setup "$build" "$src" -Dfuzz=true \
		-Db_sanitize=address,undefined -Db_lundef=false >/dev/null
fi
grep -q -- '-fsanitize=fuzzer ' "$build/build.ninja" || {
	echo "run.sh: $build was configured without -Dfuzz=true (clang); use another -b" >&2
	exit 2
}
targets=
for n in $names; do
	[ -f "$src/tests/fuzz/fuzz_$n.c" ] || { echo "run.sh: no harness '$n'; have: $all" >&2; exit 2; }
	targets="$targets tests/fuzz/fuzz_$n"
done
# shellcheck disable=SC2086
ninja -C "$build" $targets >/dev/null

# halt on the first UBSan report too; known findings waiting for a fix
# are suppressed in ubsan.supp
UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1:suppressions=$src/tests/fuzz/ubsan.supp}
export UBSAN_OPTIONS
mkdir -p "$build/fuzz-artifacts" "$build/fuzz-logs"

run_one() {
	n=$1
	mkdir -p "$build/fuzz-corpus/$n"
	dict=
	[ -f "$src/tests/fuzz/$n.dict" ] && dict=-dict=$src/tests/fuzz/$n.dict
	# shellcheck disable=SC2086
	if "$build/tests/fuzz/fuzz_$n" -max_total_time="$secs" -timeout=20 \
		-rss_limit_mb=2048 -max_len=4096 -print_final_stats=1 $dict \
		-artifact_prefix="$build/fuzz-artifacts/$n-" \
		"$build/fuzz-corpus/$n" "$src/tests/fuzz/corpus/$n" \
		>"$build/fuzz-logs/$n.log" 2>&1; then
		echo "fuzz $n: ok, $(grep -o 'stat::number_of_executed_units: *[0-9]*' "$build/fuzz-logs/$n.log" | grep -o '[0-9]*$') runs in ${secs}s, $(grep -o 'cov: [0-9]*' "$build/fuzz-logs/$n.log" | tail -1)"
	else
		echo "fuzz $n: FAILED (log: $build/fuzz-logs/$n.log)"
		grep -E 'ERROR|runtime error|check failed|SUMMARY|Test unit written|artifact' \
			"$build/fuzz-logs/$n.log" | head -20
		return 1
	fi
}

fail=0 running=0 pids=
for n in $names; do
	run_one "$n" &
	pids="$pids $!"
	running=$((running + 1))
	if [ "$running" -ge "$jobs" ]; then
		for p in $pids; do wait "$p" || fail=1; done
		pids= running=0
	fi
done
for p in $pids; do wait "$p" || fail=1; done
exit $fail
