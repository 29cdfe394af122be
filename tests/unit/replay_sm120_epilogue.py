#!/usr/bin/env python3
"""replay_sm120_epilogue.py MMAGEN - the sm_120a GEMM's epilogue (the PTX
from $mainloop_done to ret, which gemm_epi.c's shared per-element code
writes) run on the CPU for every thread of one CTA tile: the accumulators
set from the m16n8 fragment layout as a function of (row, col), D compared
bit for bit with conv(alpha * acc + beta * C), everything outside M x N
(and the rows' padding, ldd > N) left untouched.  Seven variants (f32,
f16, bf16 D; kind::f8f6f4, mxfp8, mxfp6, mxfp4, nvfp4; several tiles),
four shapes each (whole, partial, odd N, 3 x 7) and three alpha/beta
pairs (beta 0 among them).  The interpreter knows the instructions the
epilogue uses and fails on any other; it names the thread's registers as
the kernel's prologue leaves them (%r2 lane, %r3 M, %r4 N)."""
import re, struct, sys, random, math

def f32(x): return struct.unpack('<f', struct.pack('<f', x))[0]
def f2b(x): return struct.unpack('<I', struct.pack('<f', x))[0]
def b2f(u): return struct.unpack('<f', struct.pack('<I', u & 0xffffffff))[0]
def to_bf16(x):
    u = f2b(x)
    if (u & 0x7fffffff) > 0x7f800000: return 0x7fc0
    u += 0x7fff + ((u >> 16) & 1)
    return (u >> 16) & 0xffff
def to_f16(x): return struct.unpack('<H', struct.pack('<e', x))[0]
def from_f16(h): return struct.unpack('<e', struct.pack('<H', h))[0]
def from_bf16(h): return b2f(h << 16)

def parse(ptx):
    s = ptx.index('$mainloop_done:')
    e = ptx.index('\tret;', s)
    ins = []
    for line in ptx[s:e].splitlines()[1:]:
        line = line.split('//')[0].strip()
        if not line: continue
        pred = None
        m = re.match(r'@(!?)(%\w+)\s+(.*)', line)
        if m: pred = (m.group(1) == '!', m.group(2)); line = m.group(3)
        op, _, rest = line.rstrip(';').partition(' ')
        ops = [o.strip() for o in re.split(r',(?![^{]*\})', rest)] if rest else []
        ins.append((pred, op, ops))
    return ins

class Mem:
    def __init__(s): s.regions = {}
    def add(s, name, base, size, fill):
        s.regions[name] = (base, bytearray([fill]) * size)
    def find(s, a, n):
        for name, (b, buf) in s.regions.items():
            if b <= a and a + n <= b + len(buf): return buf, a - b
        raise Exception('access outside buffers at %x+%d' % (a, n))
    def rd(s, a, n):
        buf, o = s.find(a, n); return int.from_bytes(buf[o:o+n], 'little')
    def wr(s, a, n, v):
        buf, o = s.find(a, n); buf[o:o+n] = (v & ((1 << 8*n) - 1)).to_bytes(n, 'little')

def run(ins, regs, params, mem, out):
    R = regs
    def val(o):
        if o.startswith('%'): return R[o]
        if o.startswith('0f'): return b2f(int(o[2:], 16))
        return int(o)
    def addr(o):
        m = re.match(r'\[(%\w+)\+?(\d*)\]', o); return R[m.group(1)] + int(m.group(2) or 0)
    M32, M64 = 0xffffffff, (1 << 64) - 1
    for pred, op, o in ins:
        if pred is not None:
            p = R[pred[1]]
            if pred[0]: p = not p
            if not p: continue
        if op.startswith('ld.param'):
            R[o[0]] = params[o[1][1:-1]]
        elif op == 'cvta.to.global.u64' or op in ('mov.f32', 'mov.b16', 'mov.b32', 'mov.u32'):
            R[o[0]] = val(o[1])
        elif op == 'setp.neu.f32': R[o[0]] = val(o[1]) != val(o[2])
        elif op == 'setp.lt.u32': R[o[0]] = (val(o[1]) & M32) < (val(o[2]) & M32)
        elif op == 'shl.b32': R[o[0]] = (val(o[1]) << val(o[2])) & M32
        elif op == 'shr.u32': R[o[0]] = (val(o[1]) & M32) >> val(o[2])
        elif op == 'add.u32': R[o[0]] = (val(o[1]) + val(o[2])) & M32
        elif op == 'and.b32': R[o[0]] = val(o[1]) & val(o[2])
        elif op == 'mul.wide.u32': R[o[0]] = (val(o[1]) & M32) * (val(o[2]) & M32)
        elif op == 'cvt.u64.u32': R[o[0]] = val(o[1]) & M32
        elif op == 'add.u64': R[o[0]] = (val(o[1]) + val(o[2])) & M64
        elif op == 'shl.b64': R[o[0]] = (val(o[1]) << val(o[2])) & M64
        elif op == 'and.pred': R[o[0]] = R[o[1]] and R[o[2]]
        elif op == 'not.pred': R[o[0]] = not R[o[1]]
        elif op == 'mul.f32': R[o[0]] = f32(val(o[1]) * val(o[2]))
        elif op == 'fma.rn.f32':
            # operands are dyadic with few bits here, so the f64 sum is exact
            R[o[0]] = f32(val(o[1]) * val(o[2]) + val(o[3]))
        elif op in ('ld.global.f32',): R[o[0]] = b2f(mem.rd(addr(o[1]), 4))
        elif op in ('ld.global.b16',): R[o[0]] = mem.rd(addr(o[1]), 2)
        elif op == 'cvt.f32.bf16': R[o[0]] = from_bf16(R[o[1]])
        elif op == 'cvt.f32.f16': R[o[0]] = from_f16(R[o[1]])
        elif op == 'cvt.rn.bf16x2.f32': R[o[0]] = to_bf16(val(o[1])) << 16 | to_bf16(val(o[2]))
        elif op == 'cvt.rn.f16x2.f32': R[o[0]] = to_f16(val(o[1])) << 16 | to_f16(val(o[2]))
        elif op == 'cvt.rn.bf16.f32': R[o[0]] = to_bf16(val(o[1]))
        elif op == 'cvt.rn.f16.f32': R[o[0]] = to_f16(val(o[1]))
        elif op in ('st.global.v2.f32', 'st.global.v2.b32'):
            a = addr(o[0]); x, y = [r.strip() for r in o[1].strip('{}').split(',')]
            mem.wr(a, 4, f2b(R[x])); mem.wr(a + 4, 4, f2b(R[y]))
        elif op in ('st.global.f32', 'st.global.b32'):
            v = R[o[1]]
            mem.wr(addr(o[0]), 4, f2b(v) if isinstance(v, float) else v)
        elif op == 'st.global.b16': mem.wr(addr(o[0]), 2, R[o[1]])
        elif op == 'cp.async.wait_group': pass
        else: raise Exception('unknown ' + op)

def tile_of(ptx):
    m = re.search(r'tile (\d+) x (\d+) x', ptx); return int(m.group(1)), int(m.group(2))

def inputs_of(ins):
    """wm, wn: the registers the first two shl.b32 ..., 6 read"""
    sh = [o[1] for p, op, o in ins if op == 'shl.b32' and o[2] == '6']
    return sh[0], sh[1]

def check(ptx, out, M, N, alpha, beta, seed):
    bm, bn = tile_of(ptx)
    ins = parse(ptx)
    wm_r, wn_r = inputs_of(ins)
    es = {'f32': 4, 'f16': 2, 'bf16': 2}[out]
    ldd, ldc = N + 6, N + 10
    rnd = random.Random(seed)
    accv = {}
    def acc(r, c):
        if (r, c) not in accv: accv[(r, c)] = rnd.choice([-0.0, 0.0]) if rnd.random() < .05 else rnd.randint(-300, 300) / 8
        return accv[(r, c)]
    cval = {}
    mem = Mem()
    DB, CB = 0x100000, 0x900000
    mem.add('D', DB, M * ldd * es, 0xAB)
    mem.add('C', CB, M * ldc * es, 0)
    for r in range(M):
        for c in range(ldc):
            x = rnd.randint(-64, 64) / 4
            enc = f2b(x) if es == 4 else (to_bf16(x) if out == 'bf16' else to_f16(x))
            mem.wr(CB + (r * ldc + c) * es, es, enc); cval[(r, c)] = x
    params = dict(pd=DB, pc=CB, pldd=ldd, pldc=ldc, palpha=alpha, pbeta=beta)
    warps_m = bm // 64
    for w in range(bm * bn // 4096):
        for lane in range(32):
            R = {'%r2': lane, '%r3': M, '%r4': N, '%r6': 0, '%r7': 0,
                 wm_r: w % warps_m, wn_r: w // warps_m}
            for i in range(4):
                for j in range(8):
                    for k in range(4):
                        row = 64 * (w % warps_m) + 16 * i + 8 * (k // 2) + lane // 4
                        col = 64 * (w // warps_m) + 8 * j + 2 * (lane % 4) + k % 2
                        R['%%f%d' % ((i * 8 + j) * 4 + k)] = acc(row, col)
            run(ins, R, params, mem, out)
    bad = 0
    for r in range(M):
        for c in range(ldd):
            got = mem.rd(DB + (r * ldd + c) * es, es)
            if r < min(M, bm) and c < min(N, bn):
                x = f32(f32(alpha * acc(r, c)) + beta * cval[(r, c)]) if beta != 0 else f32(f32(alpha * acc(r, c)) + 0.0)
                want = f2b(x) if es == 4 else (to_bf16(x) if out == 'bf16' else to_f16(x))
            else:
                want = int.from_bytes(bytes([0xAB]) * es, 'little')
            if got != want:
                bad += 1
                if bad < 5: print('  (%d,%d) got %x want %x' % (r, c, got, want))
    return bad, mem

VARIANTS = [
    (['--a', 'e4m3', '--b', 'e4m3', '--out', 'f32'], 'f32'),
    (['--a', 'e4m3', '--b', 'e4m3', '--out', 'bf16'], 'bf16'),
    (['--a', 'e4m3', '--b', 'e4m3', '--out', 'f16'], 'f16'),
    (['--a', 'e4m3', '--b', 'e2m1', '--out', 'bf16', '--quant', 'mxfp8'], 'bf16'),
    (['--a', 'e3m2', '--b', 'e2m3', '--out', 'f32', '--quant', 'mxfp6', '--tile', '64x128'], 'f32'),
    (['--a', 'e2m1', '--b', 'e2m1', '--out', 'bf16', '--quant', 'mxfp4', '--tile', '128x64'], 'bf16'),
    (['--a', 'e2m1', '--b', 'e2m1', '--out', 'f16', '--quant', 'nvfp4'], 'f16'),
]

if __name__ == '__main__':
    import subprocess
    mmagen = sys.argv[1]
    tot = runs = 0
    for args, out in VARIANTS:
        r = subprocess.run([mmagen, 'gemm', '--arch', 'sm_120a'] + args,
                           capture_output=True, text=True)
        if r.returncode:
            print('FAIL: mmagen gemm %s: %s' % (' '.join(args), r.stderr.strip()))
            tot += 1
            continue
        ptx = r.stdout
        bm, bn = tile_of(ptx)
        for (M, N) in [(bm, bn), (bm - 5, bn - 3), (bm - 16, bn - 1), (3, 7)]:
            for alpha, beta in [(1.5, 0.0), (1.5, 0.5), (-0.75, 2.0)]:
                bad, mem = check(ptx, out, M, N, alpha, beta, M * 1000 + N)
                runs += 1
                if bad:
                    print('FAIL %s: M %d N %d alpha %g beta %g: %d elements wrong'
                          % (' '.join(args), M, N, alpha, beta, bad))
                tot += bad
    print('%d runs, %d failures' % (runs, tot))
    sys.exit(1 if tot else 0)
