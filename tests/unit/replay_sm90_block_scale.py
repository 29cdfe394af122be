#!/usr/bin/env python3
"""replay_sm90_block_scale.py MMAGEN - the sm_90a GEMM's FP8 block scaling
(--quant fp8-block) run on the CPU: which scales each promotion applies.

For a kernel, the emitted PTX from the tile's `mov.u32 %kb, 0;` (the
block-scaling setup follows it) to `$c_epilogue:` is interpreted for one
thread of a consumer warpgroup (warpgroup 1 or 2, warp % 4, lane) over one
work unit of a tile at (m0, n0): K blocks kbeg .. kbeg + kblocks - 1 of
the problem's KB = ceil(K / 128) (split-K units start past 0).  The
parameters are a problem with odd M and N; the scales are f32 arrays at
two base addresses with given strides (row-major [M][KB] and [NB][KB],
column-major A [KB][M] and padded pitches), and global memory is modelled
as the set of their elements: a load of any other address fails.  What a
load returns is the element's name, ('A', row, kb) or ('B', nb, kb);
mul.f32 and selp.f32 carry the names, and wgmma tags its accumulator set
with the K block it read (the replay follows the stage waits as
replay_sm90_promote.py does).  Checked, for every accumulator register i
of the m64nNk32 fragment (PTX ISA "wgmma .m64nNk32 register fragment":
row (warp % 4) * 16 + lane / 4 + 8 * ((i / 2) % 2) of the warpgroup's 64,
column (i / 4) * 8 + (lane % 4) * 2 + i % 2) that lies inside M x N:
  - each K block's partial sums are promoted once, by an fma of the
    partial sum register i of the set wgmma wrote for that block into sum
    register i, times exactly A's scale of the register's row and B's of
    its 128-column block for that K block;
  - every K block of the unit reaches every such register;
  - every scale load stays inside the arrays (rows past M and blocks past
    N are clamped).
Variants: tile N 64, 128, 176 (three B blocks a tile), 192 (one or two,
picked per tile), tile M 128, 64 and 16 (the last two in pairs of K
blocks, a second set of scales), split-K, each at tiles whose columns
start at every offset mod 128 they can, and tiles past M and N.  Then
mutated kernels must fail: the next scales from the K block before, both
rows of a thread from the first, B's block shifted by one where a tile
spans two, the B block of a tile computed at 256 columns, split-K's first
K block left out of the load's index, the row clamp dropped.  Exit 0 when
all is as stated, 1 otherwise."""
import re
import subprocess
import sys

from ptx_ops import split_ops, unslot

SA_BASE, SB_BASE = 0x10000000, 0x40000000
M32 = 0xffffffff


class Fail(Exception):
    pass


def region(txt):
    """the interpreted text: the tile's K loop with its block-scaling setup"""
    i = txt.index('// block scaling: this tile')
    start = txt.rindex('\tmov.u32 %kb, 0;', 0, i)
    end = txt.index('\n$c_epilogue:', i)
    return txt[start:end] + '\n$c_epilogue:\n'


def parse(src):
    ins, labels = [], {}
    for line in src.split('\n'):
        line = line.split('//')[0].strip()
        if not line:
            continue
        if line.endswith(':'):
            labels[line[:-1]] = len(ins)
            continue
        guard = None
        g = re.match(r'@(!?)(%\w+)\s+(.*)', line)
        if g:
            guard = (g.group(1) == '!', g.group(2))
            line = g.group(3)
        name, _, rest = line.rstrip(';').partition(' ')
        ins.append((guard, name, split_ops(rest)))
    return ins, labels


class Problem:
    """M x N x K with the scales' layout: strides in elements; every
    element's index -> its name"""

    def __init__(self, m, n, k, col_a=False, pad=0):
        self.m, self.n, self.k = m, n, k
        self.kb = (k + 127) // 128
        self.nb = (n + 127) // 128
        if col_a:
            self.sa_sm, self.sa_sk = 1, m + pad
        else:
            self.sa_sm, self.sa_sk = self.kb + pad, 1
        self.sb_sn, self.sb_sk = self.kb + pad, 1
        self.mem = {}
        for r in range(m):
            for kb in range(self.kb):
                self.put(SA_BASE + 4 * (r * self.sa_sm + kb * self.sa_sk), ('A', r, kb))
        for nb in range(self.nb):
            for kb in range(self.kb):
                self.put(SB_BASE + 4 * (nb * self.sb_sn + kb * self.sb_sk), ('B', nb, kb))

    def put(self, addr, name):
        assert addr not in self.mem, 'the layout overlaps itself'
        self.mem[addr] = name

    def params(self):
        return {'pm': self.m, 'pn': self.n, 'pk': self.k, 'psa': SA_BASE, 'psb': SB_BASE,
                'psa_sm': self.sa_sm, 'psa_sk': self.sa_sk, 'psb_sn': self.sb_sn,
                'psb_sk': self.sb_sk}


def run(ins, labels, kbeg_reg, prob, tile_n, m0, n0, wg, warp, lane, kbeg, kblocks):
    """one thread over one unit; returns the number of checked promotions"""
    par = prob.params()
    R = {'%m0': m0, '%n0': n0, '%wg': wg, '%warp': warp, '%lane': lane, '%kb': 0,
         '%kblocks': kblocks, '%stage': 0, '%phase': 0, '%idle': False, '%leader': lane == 0,
         '%full': 1000, '%empty': 2000, '%prev': 0}
    if kbeg_reg:
        R[kbeg_reg] = kbeg
    sums = {}      # a sum register -> its index
    sets = {}      # a partial-sum register -> (its set's first register, index)
    tags = {}      # a set's first register -> the K block its wgmma read
    waited = []    # the unit's K blocks, in the order their stages were waited on
    done = {}      # (register index, K block) -> promotions
    checked = 0
    row0 = 64 * (wg - 1) + 16 * (warp % 4) + lane // 4
    col0 = 2 * (lane % 4)

    def val(x):
        x = x.strip()
        if x.startswith('%'):
            if x not in R:
                raise KeyError('register %s read before it is written' % x)
            return R[x]
        if x.startswith('0f'):
            return 0.0
        return int(x, 0)

    pc, steps = 0, 0
    while True:
        steps += 1
        if steps > 200000:
            raise Fail('the loop does not end')
        guard, name, a = ins[pc]
        pc += 1
        if guard is not None:
            neg, p = guard
            if bool(R[p]) == neg:
                continue
        if name in ('bra', 'bra.uni'):
            if a[0] == '$c_epilogue':
                break
            pc = labels[a[0]]
            continue
        if name.startswith('mbarrier.try_wait'):
            waited.append(len(waited))
            R[a[0]] = True
            continue
        if name.startswith('mbarrier.arrive') or name.startswith('mapa') or \
                name.startswith('wgmma.fence') or name.startswith('wgmma.commit') or \
                name.startswith('wgmma.wait'):
            continue
        if name.startswith('wgmma.mma_async'):
            regs = re.findall(r'%\w+', a[0])
            for i, r in enumerate(regs):
                sets[r] = (regs[0], i)
            tags[regs[0]] = kbeg + waited[-1]
            continue
        if name == 'ld.param.u32' or name == 'ld.param.u64':
            R[a[0]] = par[a[1].strip('[]')]
            continue
        if name == 'cvta.to.global.u64':
            R[a[0]] = val(a[1])
            continue
        if name == 'ld.global.nc.f32':
            addr = val(a[1].strip('[]'))
            if addr not in prob.mem:
                raise Fail('tile (%d, %d) wg %d warp %d lane %d: a scale load at 0x%x, outside the scales'
                           % (m0, n0, wg, warp, lane, addr))
            R[a[0]] = prob.mem[addr]
            continue
        if name == 'mov.f32':     # the tile's sums, zero, in register order
            R[a[0]] = ('zero',)
            sums.setdefault(a[0], len(sums))
            continue
        if name == 'mul.f32':
            R[a[0]] = tuple(sorted([val(a[1]), val(a[2])]))
            continue
        if name == 'selp.f32':
            R[a[0]] = val(a[1]) if R[a[3]] else val(a[2])
            continue
        if name == 'fma.rn.f32':
            d, part, sc = a[0], a[1], val(a[2])
            if a[3] != d or part not in sets:
                raise Fail('an fma that is not a promotion: ' + ' '.join(a))
            first, i = sets[part]
            if sums.get(d) != i:
                raise Fail('partial sum %d promoted into sum register %s (its %s)' % (i, d, sums.get(d)))
            kb = tags.get(first)
            h, e, j = (i // 2) % 2, i % 2, i // 4
            row, col = m0 + row0 + 8 * h, n0 + 8 * j + col0 + e
            done[(i, kb)] = done.get((i, kb), 0) + 1
            if row < prob.m and col < prob.n:
                want = tuple(sorted([('A', row, kb), ('B', col // 128, kb)]))
                if sc != want:
                    raise Fail('tile (%d, %d) wg %d warp %d lane %d: K block %s, register %d (row %d, column %d) promoted with %s, not %s'
                               % (m0, n0, wg, warp, lane, kb, i, row, col, sc, want))
                checked += 1
            continue
        if name == 'mov.u32':
            R[a[0]] = val(a[1])
            continue
        if name in ('add.u32', 'sub.u32', 'mul.lo.u32', 'min.u32', 'and.b32', 'xor.b32',
                    'shl.b32', 'shr.u32'):
            x, y = val(a[1]), val(a[2])
            R[a[0]] = {'add.u32': x + y, 'sub.u32': x - y, 'mul.lo.u32': x * y,
                       'min.u32': min(x, y), 'and.b32': x & y, 'xor.b32': x ^ y,
                       'shl.b32': x << y, 'shr.u32': x >> y}[name] & M32
            continue
        if name == 'mad.wide.u32':
            R[a[0]] = val(a[1]) * val(a[2]) + val(a[3])
            continue
        if name in ('mul.wide.u32', 'add.u64', 'add.s64'):
            continue     # descriptors
        if name == 'and.pred':
            R[a[0]] = bool(R[a[1]]) and bool(R[a[2]])
            continue
        m = re.match(r'setp\.(eq|ne|lt|ge|gt)(?:\.(and|or))?\.u32$', name)
        if m:
            x, y = val(a[1]), val(a[2])
            r = {'eq': x == y, 'ne': x != y, 'lt': x < y, 'ge': x >= y, 'gt': x > y}[m.group(1)]
            if m.group(2) == 'and':
                r = r and bool(R[a[3]])
            if m.group(2) == 'or':
                r = r or bool(R[a[3]])
            R[a[0]] = r
            continue
        raise Fail('the replay does not know ' + name)
    # every K block of the unit reached every register inside M x N, once
    nacc = tile_n // 2
    for i in range(nacc):
        h, e, j = (i // 2) % 2, i % 2, i // 4
        row, col = m0 + row0 + 8 * h, n0 + 8 * j + col0 + e
        for kb in range(kbeg, kbeg + kblocks):
            c = done.get((i, kb), 0)
            if row < prob.m and col < prob.n and c != 1:
                raise Fail('tile (%d, %d) wg %d warp %d lane %d: register %d promoted %d times for K block %d'
                           % (m0, n0, wg, warp, lane, i, c, kb))
    return checked


def kbeg_register(txt):
    """split-K: the register the unit's first K block is in (the template
    sets bs_k from it at the tile's start)"""
    m = re.search(r'// block scaling: this tile.*?\tmov\.u32 %bs_k, (%\w+);', txt, re.S)
    return m.group(1) if m and m.group(1) != '0' else None


def tiles(tile_m, tile_n, prob):
    """tile origins: the first, every start mod 128 a tile column can have
    (and the last column, past N), the last tile row (past M)"""
    cols = (prob.n + tile_n - 1) // tile_n
    rows = (prob.m + tile_m - 1) // tile_m
    seen, ns = set(), []
    for t in range(cols):
        s = t * tile_n % 128
        if s not in seen or t == cols - 1:
            seen.add(s)
            ns.append(t * tile_n)
    out = [(0, n) for n in ns]
    out.append(((rows - 1) * tile_m, ns[-1]))
    return out


def check(txt, tile_m, tile_n, prob, units, threads):
    ins, labels = parse(region(txt))
    kreg = kbeg_register(txt)
    total = 0
    for m0, n0 in tiles(tile_m, tile_n, prob):
        for wg in ((1, 2) if tile_m == 128 else (1,)):
            for warp, lane in threads:
                for kbeg, kblocks in units:
                    if kbeg and not kreg:
                        continue
                    total += run(ins, labels, kreg, prob, tile_n, m0, n0, wg, 4 * wg + warp,
                                 lane, kbeg, kblocks)
    return total


THREADS = ((0, 0), (1, 5), (2, 18), (3, 31))
THREADS_FEW = ((0, 0), (3, 31))

# (arguments, tile M, tile N, split-K)
VARIANTS = [
    (['--a', 'e4m3', '--b', 'e4m3'], 128, 192, False),
    (['--a', 'e4m3', '--b', 'e5m2', '--tile', '128x128'], 128, 128, False),
    (['--a', 'e5m2', '--b', 'e4m3', '--tile', '128x64', '--cluster', '2'], 128, 64, False),
    (['--a', 'e4m3', '--b', 'e4m3', '--tile', '128x176'], 128, 176, False),
    (['--a', 'e4m3', '--b', 'e4m3', '--tile', '64x128'], 64, 128, False),
    (['--a', 'e5m2', '--b', 'e5m2', '--tile', '64x192'], 64, 192, False),
    (['--a', 'e4m3', '--b', 'e4m3', '--tile', '16x64'], 16, 64, False),
    (['--a', 'e4m3', '--b', 'e4m3', '--tile', '32x96', '--split-k', '3'], 32, 96, True),
    (['--a', 'e4m3', '--b', 'e5m2', '--split-k', 'auto'], 128, 192, True),
]

PROBLEMS = [Problem(201, 333, 136 * 5 + 1), Problem(77, 650, 1000, col_a=True, pad=3)]


def generate(mmagen, more):
    args = [mmagen, 'gemm', '--arch', 'sm_90a', '--out', 'bf16', '--quant', 'fp8-block'] + more
    return unslot(subprocess.run(args, check=True, capture_output=True, text=True).stdout)


def check_all(txt, tile_m, tile_n, split, threads=THREADS):
    """the first failure over the problems and units, or None; and the count"""
    total = 0
    for prob in PROBLEMS:
        units = [(0, prob.kb)]
        if split:        # slices of 2 and 3 blocks past the first
            units += [(2, 3), (prob.kb - 2, 2), (1, 1)]
        else:
            units += [(0, 1)]
        try:
            total += check(txt, tile_m, tile_n, prob, units, threads)
        except Fail as e:
            return str(e), total
    return None, total


def mutate(txt, kind):
    """the kernel with one mistake, or None when there is no place for it"""
    i = txt.index('// block scaling: this tile')
    head, body = txt[:i], txt[i:]
    if kind == 'kb':        # the next block's scales are this block's again
        new = body.replace('add.u32 %bs_k, %kb, 1;', 'add.u32 %bs_k, %kb, 0;')
    elif kind == 'kb-pair':   # a pair's first set reloads its own block
        new = body.replace('add.u32 %bs_k, %kb, 2;', 'add.u32 %bs_k, %kb, 1;')
    elif kind == 'row':     # the second row's scale index is the first's
        new = re.sub(r'\tadd\.u32 (%r\d+), \1, 8;\n', '', body, count=1)
    elif kind == 'bsel':    # a group past the boundary keeps the first block's scale
        new = re.sub(r'selp\.f32 (%f\d+), (%f\d+), (%f\d+), (%p\d+);',
                     r'selp.f32 \1, \3, \2, \4;', body, count=1)
    elif kind == 'nb':      # B's block from n0 / 256
        new = re.sub(r'(shr\.u32 %r\d+, %n0, )7;', r'\g<1>8;', body, count=1)
    elif kind == 'kbeg':    # split-K: the slice's first block left out
        new = re.sub(r'\tadd\.u32 %bs_k, %bs_k, %r\d+;\n', '', body)
    elif kind == 'clamp':   # rows past M not clamped
        new = re.sub(r'\tmin\.u32 (%r\d+), (%r\d+), (%r\d+);\n\tmul\.lo\.u32 (%r\d+), \1,',
                     r'\tmov.u32 \1, \2;\n\tmul.lo.u32 \4, \1,', body, count=2)
    else:
        raise ValueError(kind)
    return head + new if new != body else None


MUTANTS = [
    (0, ('kb', 'row', 'bsel', 'clamp')),
    (1, ('nb',)),
    (4, ('kb-pair', 'row')),
    (7, ('kbeg', 'bsel')),
    (8, ('kbeg',)),
]


def main():
    mmagen = sys.argv[1]
    passed = failed = 0
    texts = []
    for more, tm, tn, split in VARIANTS:
        txt = generate(mmagen, more)
        texts.append(txt)
        err, n = check_all(txt, tm, tn, split)
        what = ' '.join(more)
        if err or not n:
            failed += 1
            print('FAIL %s: %s' % (what, err or 'nothing checked'))
        else:
            passed += 1
            print('ok %s: %d promotions of registers inside M x N' % (what, n))
    # a replay that checks nothing would pass these
    for v, kinds in MUTANTS:
        more, tm, tn, split = VARIANTS[v]
        for kind in kinds:
            bad = mutate(texts[v], kind)
            try:
                err, _ = check_all(bad, tm, tn, split, THREADS_FEW) if bad else (None, 0)
            except (KeyError, ValueError, IndexError) as e:
                err = None
                print('FAIL %s with mutation %s: the replay could not follow it (%r)' %
                      (' '.join(more), kind, e))
                failed += 1
                continue
            if bad and err:
                passed += 1
                print('ok %s with mutation %s: %s' % (' '.join(more), kind, err[:160]))
            else:
                failed += 1
                print('FAIL %s with mutation %s: the replay %s' %
                      (' '.join(more), kind, 'had nothing to mutate' if not bad else 'found nothing wrong'))
    print('%d passed, %d failed' % (passed, failed))
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
