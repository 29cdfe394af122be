#!/bin/sh
# test_inspect.sh MMAGEN DATADIR - `mmagen inspect` without the CUDA tools
# (PTXAS, NVDISASM and CUOBJDUMP set empty): the PTX part of the report,
# counts per kernel from a hand-written module, the exit status when SASS
# cannot be examined, usage errors, hostile containers (no crash), and no
# temporary directory left behind.  The SASS side: tests/gpu/inspect_truth.sh.
mm=$1 data=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/t"
export TMPDIR="$tmp/t" PTXAS= NVDISASM= CUOBJDUMP=
pass=0 fail=0
ok() { pass=$((pass + 1)); }
ko() { fail=$((fail + 1)); echo "FAIL: $*"; }
expect_eq() { if [ "$2" = "$3" ]; then ok; else ko "$1: got '$2', want '$3'"; fi; }

# ptx_field JSON KERNEL OPCODE FIELD: a field of one PTX entry (the JSON is
# flattened by one python3 run per file into JSON.tsv; python3 starts slowly)
ptx_field() {
	[ -f "$1.tsv" ] || python3 -c 'import json, sys
r = json.load(open(sys.argv[1]))
for k in r["kernels"]:
    for p in k["ptx"]:
        for f, v in p.items():
            print("%s\t%s\t%s\t%s" % (k["name"], p["opcode"], f, str(v).lower()))
print("*\t*\tentries\t%d" % sum(len(k["ptx"]) for k in r["kernels"]))' "$1" >"$1.tsv"
	awk -F '\t' -v k="$2" -v o="$3" -v f="$4" '$1 == k && $2 == o && $3 == f { print $4 }' "$1.tsv"
}

# 1. the hand-written module: what each kernel holds, counted by hand
"$mm" inspect "$data/two_kernels.ptx" --json >"$tmp/r.json" 2>"$tmp/err"
expect_eq "exit without tools" $? 3
bf=mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
expect_eq "bf16 count (a label, a predicate, a nested scope)" "$(ptx_field "$tmp/r.json" kmain $bf count)" 2
expect_eq "bf16 family" "$(ptx_field "$tmp/r.json" kmain $bf family)" mma.sync
expect_eq "bf16 shape" "$(ptx_field "$tmp/r.json" kmain $bf shape)" m16n8k16
expect_eq "bf16 a" "$(ptx_field "$tmp/r.json" kmain $bf a)" bf16
expect_eq "bf16 d" "$(ptx_field "$tmp/r.json" kmain $bf d)" f32
e4=mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32
expect_eq "e4m3 count" "$(ptx_field "$tmp/r.json" kmain $e4 count)" 1
expect_eq "e4m3 b" "$(ptx_field "$tmp/r.json" kmain $e4 b)" e4m3
bad=mma.sync.aligned.m16n8k99.row.col.f32.bf16.bf16.f32
expect_eq "an opcode outside the table" "$(ptx_field "$tmp/r.json" kmain $bad in_table)" false
expect_eq "its shape, from its tokens" "$(ptx_field "$tmp/r.json" kmain $bad shape)" m16n8k99
expect_eq "ldmatrix" "$(ptx_field "$tmp/r.json" kmain ldmatrix.sync.aligned.m8n8.x4.shared.b16 count)" 1
tf=mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32
expect_eq ".func with return parameters" "$(ptx_field "$tmp/r.json" helper $tf count)" 1
expect_eq "entries in all (comments not counted)" "$(ptx_field "$tmp/r.json" '*' '*' entries)" 5
expect_eq "no verdict without SASS" "$(grep -c '"verdict"' "$tmp/r.json")" 0
expect_eq "stderr empty" "$(cat "$tmp/err")" ""

# 2. text: the SASS says in one line why it was not examined
"$mm" inspect "$data/two_kernels.ptx" >"$tmp/r.txt"
expect_eq "text exit" $? 3
expect_eq "one 'not examined' line" "$(grep -c 'not examined: no ptxas' "$tmp/r.txt")" 1
expect_eq "kernel lines" "$(grep -c '^kernel ' "$tmp/r.txt")" 2

# 3. standard input, and --opcode
"$mm" inspect - <"$data/two_kernels.ptx" >"$tmp/r2.txt"
expect_eq "stdin exit" $? 3
expect_eq "stdin same report" "$(cmp -s "$tmp/r.txt" "$tmp/r2.txt" && echo same)" same
"$mm" inspect --opcode wgmma.mma_async.sync.aligned.m64n128k32.f32.e4m3.e4m3 --arch sm_90a --json >"$tmp/o.json"
expect_eq "--opcode exit" $? 3
expect_eq "--opcode family" "$(ptx_field "$tmp/o.json" mmagen_instr wgmma.mma_async.sync.aligned.m64n128k32.f32.e4m3.e4m3 family)" wgmma

# 4. usage and input errors: one line, the documented status
err() {  # WANT_RC ARGS...
	want=$1; shift
	"$mm" "$@" >"$tmp/out" 2>"$tmp/err" </dev/null
	rc=$?
	if [ $rc -ne "$want" ]; then ko "exit $rc (want $want) for: $*"; return; fi
	if [ "$(wc -l <"$tmp/err")" -ne 1 ]; then ko "not one stderr line for: $*: $(cat "$tmp/err")"; return; fi
	ok
}
err 2 inspect
err 2 inspect a.ptx b.ptx
err 2 inspect --opcode mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
err 2 inspect "$data/two_kernels.ptx" --opcode mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 --arch sm_90
err 1 inspect "$tmp/does-not-exist"
printf 'hello, world\n' >"$tmp/junk"
err 1 inspect "$tmp/junk"
err 2 list extra-word

# 5. hostile containers: any status but a crash
python3 - "$tmp" <<'PY'
import struct, sys, random
d = sys.argv[1]
def fatbin(entries, size=None):
    body = b"".join(entries)
    return struct.pack("<IHHQ", 0xBA55ED50, 1, 16, len(body) if size is None else size) + body
def entry(kind, payload, ehsize=64, plen=None, flags=0x11, sm=90):
    h = struct.pack("<HHIQIIHHIIIQQQ", kind, 0x101, ehsize, len(payload) if plen is None else plen,
                    0, 0, 8, 1, sm, 0, 0, flags, 0, 0)
    return h + b"\0" * (ehsize - 64) + payload
def elf(sections, machine=62, shnum=None, shoff=None):
    names = b"\0" + b"\0".join(n for n, _ in sections) + b"\0.shstrtab\0"
    data, offs, pos = b"", [], 64
    for _, c in sections:
        offs.append(pos + len(data)); data += c
    stroff = pos + len(data); data += names
    so = 64 + len(data)
    hdr = b"\x7fELF\x02\x01\x01" + b"\0" * 9 + struct.pack("<HHIQQQIHHHHHH", 1, machine, 1, 0, 0,
        so if shoff is None else shoff, 0, 64, 0, 0, 64, (len(sections) + 2) if shnum is None else shnum,
        len(sections) + 1)
    sh = b"\0" * 64
    ni = 1
    for (n, c), o in zip(sections, offs):
        sh += struct.pack("<IIQQQQIIQQ", ni, 1, 0, 0, o, len(c), 0, 0, 8, 0); ni += len(n) + 1
    sh += struct.pack("<IIQQQQIIQQ", ni, 3, 0, 0, stroff, len(names), 0, 0, 1, 0)
    return hdr + data + sh
ptx = b".version 8.0\n.target sm_90\n.address_size 64\n.visible .entry k() { mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%f0}, {%r0}, {%r1}, {%f0}; }\n"
cases = {
    "fb_ok": fatbin([entry(1, ptx)]),
    "fb_huge_size": fatbin([entry(1, ptx)], size=2**63),
    "fb_huge_entry": fatbin([entry(1, ptx, plen=2**64 - 1)]),
    "fb_entry_hsize": fatbin([entry(2, b"x" * 40, ehsize=64)]) [:-30],
    "fb_bad_hsize": fatbin([entry(1, ptx)])[:20] + struct.pack("<I", 0xfffffff0) + fatbin([entry(1, ptx)])[24:],
    "fb_zstd": fatbin([entry(2, b"\x28\xb5\x2f\xfd" + b"z" * 60, flags=0x8011)]),
    "fb_cut": fatbin([entry(1, ptx)])[:40],
    "elf_ok": elf([(b".nv_fatbin", fatbin([entry(1, ptx)]))]),
    "elf_bad_shoff": elf([(b".nv_fatbin", fatbin([entry(1, ptx)]))], shoff=2**62),
    "elf_bad_shnum": elf([(b".nv_fatbin", fatbin([entry(1, ptx)]))], shnum=0xfff0),
    "elf_cuda_tiny": elf([], machine=190),
    "elf_no_fatbin": elf([(b".text", b"\x90" * 16)]),
    "elf_cut": elf([(b".nv_fatbin", fatbin([entry(1, ptx)]))])[:100],
}
rnd = random.Random(7)
base = cases["elf_ok"]
for i in range(40):
    b = bytearray(base)
    for _ in range(rnd.randint(1, 8)):
        b[rnd.randrange(len(b))] = rnd.randrange(256)
    cases["mut%02d" % i] = bytes(b)
for n, c in cases.items():
    open("%s/h_%s" % (d, n), "wb").write(c)
PY
for f in "$tmp"/h_*; do
	"$mm" inspect "$f" --json >"$tmp/out" 2>"$tmp/err"
	rc=$?
	case $rc in 0|1|3) ok ;; *) ko "exit $rc on $(basename "$f")" ;; esac
done
for f in fb_ok elf_ok; do
	"$mm" inspect "$tmp/h_$f" --json >"$tmp/$f.json"
	expect_eq "$f: the PTX inside" \
		"$(ptx_field "$tmp/$f.json" k mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 count)" 1
done
"$mm" inspect "$tmp/h_fb_zstd" >"$tmp/out"
expect_eq "zstd entry: exit" $? 3
expect_eq "zstd entry: said" "$(grep -c 'compressed with zstd' "$tmp/out")" 1
"$mm" inspect "$tmp/h_elf_no_fatbin" >"$tmp/out"
expect_eq "no .nv_fatbin: said" "$(grep -c 'no .nv_fatbin section' "$tmp/out")" 1

# 6. nothing left in TMPDIR
expect_eq "temporary files left" "$(ls -A "$tmp/t")" ""

echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
