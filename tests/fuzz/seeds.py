#!/usr/bin/env python3
"""seeds.py - writes the seed corpora in corpus/ (run it from anywhere;
the files are committed, this only says how they were made).  A seed is
a starting point for the fuzzer and a case that `meson test --suite fuzz`
replays every run: legal requests, near misses, and the hostile inputs
of issue 11's findings."""
import math, os, random, struct

HERE = os.path.dirname(os.path.abspath(__file__))

def write(harness, name, data):
    d = os.path.join(HERE, 'corpus', harness)
    os.makedirs(d, exist_ok=True)
    if isinstance(data, str):
        data = data.encode()
    with open(os.path.join(d, name), 'wb') as f:
        f.write(data)

# ---- select: key=value lines ----
select = {
    'mma-bf16': 'arch=sm_90a\nopcode=mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32\nemit=ptx\n',
    'mma-fields': 'arch=sm_80\nfamily=mma\na=f16\nb=f16\nc=f32\nd=f32\nm=16\nn=8\nk=16\nemit=cuda\n',
    'mma-f64-ambiguous': 'arch=sm_90a\nfamily=mma\na=f64\n',
    'mma-sp-ordered': 'arch=sm_90a\nfamily=mma.sp::ordered_metadata\na=s8\nb=u8\nm=16\nn=8\nk=64\nsatfinite=no\nemit=text\n',
    'mma-b1': 'arch=sm_80\nfamily=mma\na=b1\npopc=and\nk=256\nemit=ptx\ntile=ptx\n',
    'wgmma': 'arch=sm_90a\nfamily=wgmma\na=bf16\nb=bf16\nd=f32\nm=64\nn=64\nk=16\nasrc=smem\nemit=cuda\ntile=json\n',
    'wgmma-sp': 'arch=sm_90a\nopcode=wgmma.mma_async.sp.sync.aligned.m64n32k32.f32.f16.f16\ntile=ptx\n',
    'tcgen05': 'arch=sm_100a\nfamily=tcgen05\nkind=mxf4nvf4\nscale-vec=4X\nws=no\ncta-group=1\nstype=ue4m3\nemit=ptx\n',
    'tcgen05-opcode': 'arch=sm_100a\nopcode=tcgen05.mma.cta_group::2.kind::mxf8f6f4.block_scale\nasrc=smem\ntile=ptx\n',
    'sm120': 'arch=sm_120a\nopcode=mma.sp::ordered_metadata.sync.aligned.m16n8k128.row.col.kind::mxf4.block_scale.scale_vec::2X.f32.e2m1.e2m1.f32.ue8m0\nemit=cuda\n',
    'ldmatrix': 'arch=sm_80\nfamily=ldmatrix\nnum=x4\ntrans=yes\nemit=text\n',
    'ldmatrix-b8': 'arch=sm_100a\nopcode=ldmatrix.sync.aligned.m16n16.x1.trans.shared.b8\nemit=ptx\n',
    'stmatrix': 'arch=sm_90a\nfamily=stmatrix\nnum=x2\nemit=cuda\n',
    'layouts': 'arch=sm_75\nfamily=mma\na=f16\nalayout=row\nblayout=col\nd=f16\nk=8\n',
    'opcode-bogus': 'arch=sm_90a\nopcode=mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f33\n',
    'opcode-conflict': 'arch=sm_90a\nopcode=mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32\na=f16\n',
    'wrong-target': 'arch=sm_90a\nfamily=tcgen05\n',
    'no-target': 'family=mma\na=bf16\n',
    'target-aliases': 'arch=compute_90a\nfamily=wgmma\na=e4m3\nb=e5m2\nd=f16\nn=256\n',
    # finding 13: the suggestion for a huge target number overflowed
    'target-huge': 'arch=sm_-9223372036854775808\n',
    'types-aliases': 'arch=sm_89\na=float8_e4m3fn\nb=FP8\nfamily=mma.sync\n',
    'shape-any': 'arch=sm_90a\nfamily=mma\nm=65535\nn=8\nk=16\na=bf16\n',
}
for k, v in select.items():
    write('select', k, v)

# ---- cli: one argument per line ----
cli = {
    'list': 'list\n--arch\nsm_90a\n--family\nmma.sync\n--type\nbf16\n',
    'list-opcodes': 'list\n--opcodes\n--arch\nsm_100a\n--family\ntcgen05\n',
    'list-json': 'list\n--json\n--arch=sm_80\n--shape\nm16n8k16\n',
    'list-targets': 'list\n--targets\n',
    'emit-instr': 'emit\ninstr\n--arch\nsm_90a\n--opcode\nmma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32\n',
    'emit-cuda': 'emit\ninstr\n--arch\nsm_90a\n--family\nwgmma\n--a\nbf16\n--b\nbf16\n--d\nf32\n--shape\nm64n64k16\n--asrc\nsmem\n--format\ncuda\n',
    'emit-tile': 'emit\ntile\n--arch=sm_90a\n--family\nwgmma\n--a\nbf16\n--b\nbf16\n--d\nf32\n--shape\nm64n64k16\n--asrc\nsmem\n--swizzle\n64\n--format\njson\n',
    'emit-tile-tcgen05': 'emit\ntile\n--arch\nsm_100a\n--family\ntcgen05\n--kind\nf16\n--a\nf16\n--d\nf32\n--ws\nno\n--cta-group\n1\n--asrc\nsmem\n--m\n128\n--n\n64\n',
    'gemm': 'gemm\n--arch\nsm_90a\n--a\nbf16\n--b\nbf16\n--out\nbf16\n--tile\n128x128\n--stages\n3\n',
    'doc-signatures': 'doc\nsignatures\n',
    'doc-completion': 'doc\ncompletion\n',
    'help': 'help\nemit\n',
    'help-cmd': 'emit\ntile\n--help\n',
    'version': '--version\n',
    'typo': 'emit\ninstr\n--familly\nmma\n',
    'typo-cmd': 'emti\n',
    'run-parse': 'run\ntile\n--opcode\nbogus\n--seed\n12\n',
    'run-gemm-parse': 'run\ngemm\n--a\nbf16\n--b\nbf16\n--out\nbf16\n--m\n100\n--n\n64\n--k\n64\n--alpha\n0.5\n',
    'quantize-parse': 'quantize\n--format\nmxfp9\n--in\nx\n',
    'shape-bad': 'emit\ninstr\n--arch\nsm_90a\n--shape\nm+16n8k16\n',
    'value-missing': 'list\n--arch\n',
    'nul-args': 'emit\0instr\0--opcode\0a\nb\x1b[31m\0--arch\0sm_90a\0',
    # findings 13, 16, 17, 18 of issue 11
    'arch-huge': 'list\n--arch\nsm_-9223372036854775808\n',
    'shape-any': 'emit\ninstr\n--arch\nsm_90a\n--shape\nm65535n8k16\n--a\nbf16\n',
    'escape-in-opcode': 'emit\ninstr\n--arch\nsm_90a\n--opcode\nab\x1b[31mc\n',
    'layout-bad': 'emit\ninstr\n--arch\nsm_90a\n--layout\nr.c\n',
    'seed-negative': 'run\ntile\n--arch\nsm_90a\n--seed\n-1\n',
}
for k, v in cli.items():
    write('cli', k, v)

# ---- quant: byte 0 format|alt<<2|mode<<3|count<<5, byte 1, data ----
rnd = random.Random(11)
def floats(vals):
    return b''.join(struct.pack('<f', v) for v in vals)
normal = [rnd.gauss(0, 3) for _ in range(64)]
edge = [0.0, -0.0, 1e-45, -1e-40, 3.4e38, -3.4e38, 1.0, 6.0, 448.0, 1e-30] * 3
special = normal[:20] + [math.nan] + normal[20:40] + [math.inf] + normal[40:]
for fmt in range(4):
    for alt in range(2 if fmt < 2 else 1):
        tag = f'f{fmt}a{alt}'
        b0 = fmt | alt << 2
        write('quant', f'lib-q-{tag}', bytes([b0, 0]) + floats(normal))
        write('quant', f'lib-q-edge-{tag}', bytes([b0, 0]) + floats(edge))
        write('quant', f'lib-q-special-{tag}', bytes([b0, 0]) + floats(special))
        write('quant', f'lib-dq-{tag}', bytes([b0 | 1 << 3, 0]) + bytes(rnd.randrange(256) for _ in range(80)))
        write('quant', f'cli-q-{tag}', bytes([b0 | 2 << 3 | 1 << 5, 2]) + floats(normal))
        write('quant', f'cli-dq-{tag}', bytes([b0 | 3 << 3, 200]) + bytes(rnd.randrange(256) for _ in range(66)))
write('quant', 'lib-q-nvfp4-global', bytes([3, 0x55]) + floats(normal))
write('quant', 'cli-q-nvfp4-auto', bytes([3 | 2 << 3, 1]) + floats(normal))
write('quant', 'cli-q-bad-count', bytes([0 | 2 << 3 | 5 << 5, 0]) + floats(normal[:8]))
write('quant', 'cli-q-partial', bytes([0 | 2 << 3, 0]) + b'\1\2\3\4\5')
write('quant', 'cli-dq-empty', bytes([2 | 3 << 3, 0]))

# ---- cache: byte 0 = header fields to set right, then the file ----
def fnv(b):
    h = 0xcbf29ce484222325
    for x in b:
        h = ((h ^ x) * 0x100000001b3) & (2**64 - 1)
    return h
payload = bytes(rnd.randrange(256) for _ in range(100))
hdr = b'MMARTCUB' + struct.pack('<IIQQ', 1, 64, len(payload), fnv(payload)) + bytes(32)
write('cache', 'valid-but-key', bytes([0x20]) + hdr + payload)
write('cache', 'all-fixed', bytes([0x3f]) + bytes(64) + payload)
write('cache', 'bad-checksum', bytes([0x2f]) + bytes(64) + payload)
write('cache', 'size-huge', bytes([0x37]) + hdr[:16] + struct.pack('<Q', 2**63) + hdr[24:] + payload)
write('cache', 'short', bytes([0x00]) + b'MMARTCUB\1\0\0\0')
write('cache', 'header-only', bytes([0xbf]))
write('cache', 'empty', b'')

# ---- inspect: byte 0 the mode (fuzz_inspect.c), then the file ----
# These seeds come from the toolkit, not from this script: a tile kernel
# (`mmagen emit tile --arch sm_90a --opcode
# mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32`), its cubin
# (ptxas -arch=sm_90a), fatbinaries (nvcc -fatbin -gencode
# arch=compute_90a,code=sm_90a -gencode arch=compute_90a,code=compute_90a,
# zstd-compressed and with -Xfatbin -compress=false), and the .text part
# of nvdisasm's listing appended after a 0xff byte (mode 1; 3: for sm_90);
# plus truncated copies and text that is none of them.

# ---- gemm: bytes, one field each (fuzz_gemm.c says which) ----
# Written once by a throwaway script: the default bf16 kernel at 8192^3
# and at M 16, nt with tile 128, f16 accumulation with split-K auto,
# e4m3 x e5m2 with split 5 and cluster 2, s8 x u8 -> s32 with 6 stages,
# tf32 at M 1, the mma.sync path on sm_80/sm_89/sm_90 (bf16, e4m3, s4 x
# u4), sm_120a nvfp4 / mxfp6 / f8f6f4, 2^32-1 sizes, types no GEMM takes,
# and inputs too short to fill every field.

# ---- gemm_abi: an ABI text, then (after a NUL) the launches' bytes ----
# These seeds come from the CLI, not from this script: `mmagen gemm
# --format abi` for sm_90a bf16 (with launch bytes appended: sm90-bf16-
# launches), split-K 3 / auto / FP8 split 5, e4m3 D (d_scale), layouts nn,
# nt, tt; the mma.sync path with split slots (sm_90a bf16, sm_80 s8);
# sm_120a mxfp8 and nvfp4; by hand a `split z` and an unknown parameter;
# a text cut short; and the fuzzer's findings in runtime/gemm_abi.c
# (staging-wraps, counters-wrap, out-4-bits, tail-on-tiles).
