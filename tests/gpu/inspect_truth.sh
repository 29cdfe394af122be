#!/bin/sh
# inspect_truth.sh MMAGEN TRUTH [--regen] - check `mmagen inspect` against
# the measured truth of tests/inspect/truth.txt.  For every line it
# assembles the form's module with ptxas, disassembles it with nvdisasm and
# extracts the tensor-core mnemonics with grep (not with mmagen), compares
# them with the line, then checks that `mmagen inspect --opcode` reports
# the same mnemonics and the line's verdict.  --regen prints the table as
# measured here instead (review, then replace the data lines).
# Exit 77 when ptxas or nvdisasm is missing (nvdisasm: $NVDISASM, PATH,
# /usr/local/cuda/bin, or where .ci/deps installs the pip wheel).
MMAGEN=$1 TRUTH=$2 REGEN=$3
PTXAS=${PTXAS:-$(command -v ptxas || echo /usr/local/cuda/bin/ptxas)}
if [ -z "$NVDISASM" ]; then
	for d in "$(dirname "$(command -v nvdisasm 2>/dev/null || echo /x/x)")" /usr/local/cuda/bin \
		"${MMAGEN_CUDA_TOOLS:-$HOME/.local/mmagen-cuda-tools}"/nvidia/cu*/bin; do
		[ -x "$d/nvdisasm" ] && NVDISASM=$d/nvdisasm && break
	done
fi
[ -x "$PTXAS" ] || { echo "SKIP: no ptxas"; exit 77; }
[ -n "$NVDISASM" ] && [ -x "$NVDISASM" ] || { echo "SKIP: no nvdisasm (pip install nvidia-cuda-nvdisasm)"; exit 77; }
export NVDISASM PTXAS
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
fail=0 n=0
grep -v '^#' "$TRUTH" | while read -r target verdict opcode want; do
	[ -n "$target" ] || continue
	"$MMAGEN" emit instr --arch "$target" --opcode "$opcode" > "$tmp/m.ptx" &&
	"$PTXAS" -arch "$target" -o "$tmp/m.cubin" "$tmp/m.ptx" &&
	"$NVDISASM" -c "$tmp/m.cubin" > "$tmp/m.sass" || { echo "FAIL: cannot build $target $opcode"; exit 1; }
	got=$(sed -n 's/^ *\/\*[0-9a-f]*\*\/ *\(@!\{0,1\}U\{0,1\}P[0-9T] *\)\{0,1\}\([A-Z0-9_.]*MMA[A-Z0-9_.x]*\).*/\2/p' \
		"$tmp/m.sass" | sort -u | tr '\n' ' ' | sed 's/ $//')
	if [ "$REGEN" = --regen ]; then
		echo "$target $verdict $opcode $got"
		continue
	fi
	[ "$got" = "$want" ] || { echo "FAIL: $target $opcode: SASS is '$got', truth.txt says '$want'"; exit 1; }
	"$MMAGEN" inspect --opcode "$opcode" --arch "$target" --json > "$tmp/r.json"
	rc=$?
	[ $rc -eq 0 ] || { echo "FAIL: $target $opcode: inspect exit $rc"; cat "$tmp/r.json"; exit 1; }
	grep -q "\"verdict\": \"$verdict\"" "$tmp/r.json" ||
		{ echo "FAIL: $target $opcode: verdict is not $verdict:"; grep verdict "$tmp/r.json"; exit 1; }
	[ "$(grep -c '"verdict"' "$tmp/r.json")" -eq 1 ] || { echo "FAIL: $target $opcode: not one verdict"; exit 1; }
	for m in $want; do
		grep -q "\"mnemonic\": \"$m\"" "$tmp/r.json" ||
			{ echo "FAIL: $target $opcode: inspect does not list $m"; exit 1; }
	done
	echo "ok $target $verdict $opcode"
done
