#!/bin/sh
# check_golden.sh MMAGEN DIR - run every case of DIR/cases.txt and compare
# with DIR/<name>; with MMAGEN_REGEN=1 rewrite the files instead.
mm=$1 dir=$2
pass=0 fail=0
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
while IFS='|' read -r name args; do
	case "$name" in ''|'#'*) continue ;; esac
	name=$(echo "$name" | tr -d ' ')
	# shellcheck disable=SC2086
	if ! "$mm" $args >"$tmp" 2>&1; then
		echo "FAIL: $name: mmagen failed: $(cat "$tmp")"; fail=$((fail + 1)); continue
	fi
	if [ "${MMAGEN_REGEN:-0}" = 1 ]; then
		cp "$tmp" "$dir/$name"; echo "regenerated $name"; pass=$((pass + 1)); continue
	fi
	if cmp -s "$tmp" "$dir/$name"; then
		pass=$((pass + 1))
	else
		echo "FAIL: $name differs from the golden file:"; diff "$dir/$name" "$tmp" | head -20
		fail=$((fail + 1))
	fi
done <"$dir/cases.txt"
echo "$pass passed, $fail failed"
[ $fail -eq 0 ] && [ $pass -gt 0 ]
