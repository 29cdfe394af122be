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
# an nvcc host object (.nv_fatbin: the sm_90 cubin and the PTX), two kernels
NVCC=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
if [ "$REGEN" != --regen ] && [ -x "$NVCC" ]; then
	for t in bf16:m16n8k16 e4m3:m16n8k32; do
		ty=${t%%:*} sh=${t#*:}
		printf '__global__ void k_%s(const unsigned *a, float *d) {\n float c0 = 0, c1 = 0, c2 = 0, c3 = 0;\n asm volatile("mma.sync.aligned.%s.row.col.f32.%s.%s.f32 {%%0,%%1,%%2,%%3}, {%%4,%%5,%%6,%%7}, {%%8,%%9}, {%%0,%%1,%%2,%%3};" : "+f"(c0), "+f"(c1), "+f"(c2), "+f"(c3) : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(a[4]), "r"(a[5]));\n d[threadIdx.x] = c0 + c1 + c2 + c3;\n}\n' \
			"$ty" "$sh" "$ty" "$ty"
	done >"$tmp/k.cu"
	"$NVCC" -c -Xfatbin -compress=false -gencode 'arch=compute_90,code=[sm_90,compute_90]' \
		-o "$tmp/k.o" "$tmp/k.cu" || { echo "FAIL: nvcc"; exit 1; }
	"$MMAGEN" inspect "$tmp/k.o" >"$tmp/k.txt" || { echo "FAIL: inspect k.o exit $?"; cat "$tmp/k.txt"; exit 1; }
	grep -q 'verdict sm_90: native: mma.sync.aligned.m16n8k16.row.col.f32.bf16' "$tmp/k.txt" &&
	grep -q 'verdict sm_90: converted: mma.sync.aligned.m16n8k32.row.col.f32.e4m3' "$tmp/k.txt" &&
	[ "$(grep -c '^  verdict' "$tmp/k.txt")" -eq 2 ] ||
		{ echo "FAIL: nvcc object: verdicts"; cat "$tmp/k.txt"; exit 1; }
	echo "ok nvcc object: bf16 native, e4m3 converted on sm_90"
fi
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
