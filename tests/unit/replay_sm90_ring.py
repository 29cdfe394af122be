#!/usr/bin/env python3
"""replay_sm90_ring.py MMAGEN - the sm_90a GEMM's stage ring (the producer,
both consumer warpgroups and the mbarriers between them) run on the CPU,
for cooperative and ping-pong kernels, from the emitted PTX.

The whole kernel, from the entry to `ret`, is interpreted for a few
threads of each CTA: the producer's leader (thread 0) and lane 1 of its
warp, and in each consumer warpgroup lane 0 of its first warp (the lane
that releases stages; it stands for the warpgroup's 4 warps, so each of
its arrives counts 4 times) and lane 1 of that warp (it must follow the
same waits and read the same stages).  With --cluster 2 both CTAs of a
cluster run: a consumer's mapa'd arrive lands on the named CTA's barrier
and a multicast load writes into every CTA of its mask, completing its
bytes on each one's barrier at the same offset.  Integer and predicate
instructions are computed; what the ring does not depend on (f32 math,
stores, fences, loads from global memory, the accumulators) is not, and
a register the replay cannot compute is poisoned: reading one in a
branch, a guard of a protocol instruction, a barrier or shared-memory
address, a TMA coordinate or a wgmma descriptor stops the replay, as
does an mbarrier, barrier, TMA-load or branch instruction it does not
know, so that a new instruction is noticed rather than guessed.

The protocol, as the PTX ISA has it: an mbarrier starts in phase 0 with
its count of arrivals pending; an arrive takes one off, expect_tx adds
to the transaction count and complete_tx (a TMA load's bytes landing)
takes them off; a phase completes when both are 0; try_wait.parity P
succeeds when the phase of parity P before the current one has completed,
that is when the current phase's parity is not P (a fresh barrier passes
P = 1).  A load's bytes land at once, or (second and third runs of each
problem) only when no thread can move, the oldest or the newest load
first: TMA does not promise an order.  .aligned instructions (wgmma,
bar.sync, setmaxnreg, stmatrix) meet the warp's other lanes; bar.sync 0
and barrier.cluster wait for every thread; a named barrier of N threads
(bar.sync/bar.arrive id, N) counts warps, a consumer's warp for 4.
Threads run in turn, each until it spins on a try_wait that cannot
succeed (a failed try_wait reached again with no phase completed since)
or waits at a barrier; when none can move and no load is in flight, the
kernel is deadlocked.

Checked, for each kernel and problem (M, N, K and the grid):
  - no deadlock, every thread reaches `ret`, no load left in flight;
  - every wgmma reads, through its descriptors (start address, 128-byte
    swizzle, stride byte offset), shared memory that a TMA load of the
    right operand wrote, and whose bytes have landed, for the consumer's
    own tile (%m0, %n0: A rows m0 + 64*(wg-1), or m0 and m0 + 64 for
    ping-pong, B rows n0..n0+N-1) and K block (%kb), and the consumer
    waited on exactly the barrier phase that load completed;
  - each output tile of the CTA is walked K block 0..kblocks-1 once by
    exactly one consumer warpgroup (ping-pong) or once by each
    (cooperative), every k step of every K block computed once (none by
    a warpgroup whose rows all lie past M), the tiles being as many as
    the CTA owns (and all of them over a whole grid);
  - a load never overwrites a stage before every warp that read it has
    released it to the CTA that loads; every consumer release lands in
    the phase of the empty barrier for the use it releases (no phase
    gets more arrivals than its count), the producer arms a full
    barrier in the phase of the fill it waited a release for, and every
    use is released to every CTA of the cluster.
Then mutated ping-pong kernels (the stage not stepped past the other
warpgroup's K blocks, warpgroup 2 not starting past the first tile's
blocks, the phase not flipped past them, the empty barriers' count
doubled) and a cooperative one (the count halved) must fail, each on a
problem that the kernel itself passes.  Exit 0 when all is as stated,
1 otherwise."""
import json
import re
import struct
import subprocess
import sys
import time
from collections import Counter

from ptx_ops import split_ops, unslot

WARPS_PER_WG = 4       # a consumer warpgroup's warps: one lane 0 stands for 4
THREADS = (0, 1, 128, 129, 256, 257)
ESIZE = {'s8': 1, 'u8': 1, 'e4m3': 1, 'e5m2': 1, 'bf16': 2, 'f16': 2, 'tf32': 4}
WIDTH = {'pred': 1, 'b16': 16, 'u16': 16, 's16': 16, 'b32': 32, 'u32': 32, 's32': 32,
         'b64': 64, 'u64': 64, 's64': 64}


class Fail(Exception):
    """the kernel breaks the protocol"""


class Unfollowable(Fail):
    """the replay cannot follow the kernel (an unknown instruction, a
    poisoned value where one is needed): a failure, not a mutant caught"""


class Poison:
    __slots__ = ('why',)

    def __init__(self, why):
        self.why = why

    def __repr__(self):
        return '<poisoned: %s>' % self.why


class Sym:
    """the address of a kernel parameter (a tensor map)"""
    __slots__ = ('name',)

    def __init__(self, name):
        self.name = name

    def __eq__(self, o):
        return isinstance(o, Sym) and o.name == self.name

    def __hash__(self):
        return hash(self.name)

    def __repr__(self):
        return 'param %s' % self.name


class CAddr:
    """a shared::cluster address: CTA rank and that CTA's shared address"""
    __slots__ = ('rank', 'addr')

    def __init__(self, rank, addr):
        self.rank, self.addr = rank, addr

    def __repr__(self):
        return 'CTA %d shared %#x' % (self.rank, self.addr)


# ---------------------------------------------------------------- parsing

def vec(tok):
    return [x.strip() for x in tok.strip().strip('{}').split(',') if x.strip()]


class Ins:
    __slots__ = ('line', 'text', 'guard', 'op', 'args', 'kind', 'fn', 'aligned', 'data')

    def __repr__(self):
        return 'line %d `%s`' % (self.line, self.text)


def const(tok):
    """an immediate operand, or None"""
    if re.match(r'^-?\d+$', tok):
        return int(tok)
    if re.match(r'^-?0[xX][0-9a-fA-F]+$', tok):
        return int(tok, 16)
    if re.match(r'^0[fF][0-9a-fA-F]{8}$', tok):
        return struct.unpack('>f', bytes.fromhex(tok[2:]))[0]
    if re.match(r'^0[dD][0-9a-fA-F]{16}$', tok):
        return struct.unpack('>d', bytes.fromhex(tok[2:]))[0]
    return None


class Kernel:
    """the entry's instructions, labels, parameters, shared variables"""

    def __init__(self, ptx):
        lines = ptx.split('\n')
        e = next((i for i, l in enumerate(lines) if re.match(r'\s*(\.visible\s+)?\.entry\b', l)), None)
        if e is None:
            raise Unfollowable('no .entry')
        self.params = {}
        i = e
        while True:
            for m in re.finditer(r'\.param\s+(?:\.align\s+\d+\s+)?\.(\w+)\s+(\w+)(\[\d+\])?', lines[i]):
                self.params[m.group(2)] = m.group(1)
            if lines[i].strip() == '{':
                break
            i += 1
        self.shared = {m.group(1) for m in re.finditer(r'\.shared\s+(?:\.align\s+\d+\s+)?\.\w+\s+(\w+)', ptx)}
        self.ins, self.labels = [], {}
        for n in range(i + 1, len(lines)):
            text = lines[n].split('//')[0].strip()
            if not text or text in ('{', '}') or text.startswith('.'):
                continue
            m = re.match(r'^([\w$]+):$', text)
            if m:
                self.labels[m.group(1)] = len(self.ins)
                continue
            ins = Ins()
            ins.line, ins.text, ins.guard = n + 1, text, None
            g = re.match(r'@(!?)(%\w+)\s+(.*)', text)
            if g:
                ins.guard = (g.group(1) == '!', g.group(2))
                text = g.group(3)
            op, _, rest = text.rstrip(';').strip().partition(' ')
            ins.op, ins.args = op, split_ops(rest)
            self.ins.append(ins)
        for ins in self.ins:
            compile_ins(self, ins)
        for ins in self.ins:
            if ins.kind == 'bra' and ins.data not in self.labels:
                raise Unfollowable('%r: no label %s' % (ins, ins.data))


def getter(k, tok):
    tok = tok.strip()
    if tok.startswith('%'):
        def g(R, name=tok):
            v = R.get(name)
            return Poison('%s read before it is written' % name) if v is None else v
        return g
    c = const(tok)
    if c is not None:
        return lambda R: c
    if tok in k.params:
        s = Sym(tok)
        return lambda R: s
    if tok in k.shared:
        return lambda R: 0          # the CTA's shared window starts at 0
    p = Poison('operand ' + tok)
    return lambda R: p


def addr_getter(k, tok):
    m = re.match(r'^\[\s*([%\w$]+)\s*(?:\+\s*(-?\w+))?\s*\]$', tok.strip())
    if not m:
        p = Poison('address ' + tok)
        return lambda R: p
    g, off = getter(k, m.group(1)), int(m.group(2) or '0', 0)

    def a(R):
        v = g(R)
        if type(v) is int:
            return v + off
        if off and type(v) is not Poison:
            return Poison('offset of %r' % v)
        return v
    return a


def dests(args):
    """the registers an instruction writes (its first operand), if any"""
    if not args:
        return []
    d = args[0]
    if d.startswith('{'):
        return [x for x in vec(d) if x.startswith('%')]
    return [x for x in d.split('|') if x.startswith('%')]


def poison_fn(names, why):
    p = Poison(why)

    def f(R):
        for n in names:
            R[n] = p
    return f


def signed(v, w):
    return v - (1 << w) if v >> (w - 1) else v


def alu_fn(k, ins):
    """a closure computing an integer/predicate instruction, or None"""
    op, a = ins.op, ins.args
    parts = op.split('.')
    base, t = parts[0], parts[-1]
    if base in ('mov', 'cvta') and len(a) == 2 and not a[0].startswith('{'):
        d, g = a[0], getter(k, a[1])
        w = WIDTH.get(t)
        if base == 'cvta' or t in ('f32', 'f64') or w is None:
            def f(R):
                R[d] = g(R)
        elif t == 'pred':
            def f(R):
                v = g(R)
                R[d] = v if type(v) is Poison else bool(v)
        else:
            msk = (1 << w) - 1

            def f(R):
                v = g(R)
                R[d] = v & msk if type(v) is int else v
        return f
    if base == 'ld' and len(parts) >= 3 and parts[1] == 'param' and len(a) == 2:
        d, name = a[0], a[1].strip('[] ')
        return lambda R: R.__setitem__(d, R['@params'].get(name, Poison('param ' + name)))
    if base == 'cvt' and len(parts) == 3 and parts[1] in WIDTH and parts[2] in WIDTH:
        d, g, w, ws = a[0], getter(k, a[1]), WIDTH[parts[1]], WIDTH[parts[2]]
        sgn = parts[2].startswith('s')

        def f(R):
            v = g(R)
            if type(v) is not int:
                R[d] = v if type(v) is Poison else Poison('cvt of %r' % v)
                return
            v &= (1 << ws) - 1
            if sgn:
                v = signed(v, ws)
            R[d] = v & ((1 << w) - 1)
        return f
    if base == 'setp':
        cmp = parts[1]
        comb = parts[2] if len(parts) == 4 else None
        ds = a[0].split('|')
        ga, gb = getter(k, a[1]), getter(k, a[2])
        gc = getter(k, a[3]) if comb else None
        w = WIDTH.get(t)
        if t in ('f32', 'f64'):
            fc = {'eq': lambda x, y: x == y, 'ne': lambda x, y: x != y, 'lt': lambda x, y: x < y,
                  'le': lambda x, y: x <= y, 'gt': lambda x, y: x > y, 'ge': lambda x, y: x >= y,
                  'equ': lambda x, y: x == y, 'neu': lambda x, y: x != y, 'ltu': lambda x, y: x < y,
                  'leu': lambda x, y: x <= y, 'gtu': lambda x, y: x > y, 'geu': lambda x, y: x >= y}.get(cmp)
            ok = lambda v: type(v) in (float, int)
            conv = lambda v: float(v)
        elif w:
            fc = {'eq': lambda x, y: x == y, 'ne': lambda x, y: x != y, 'lt': lambda x, y: x < y,
                  'le': lambda x, y: x <= y, 'gt': lambda x, y: x > y, 'ge': lambda x, y: x >= y,
                  'lo': lambda x, y: x < y, 'ls': lambda x, y: x <= y, 'hi': lambda x, y: x > y,
                  'hs': lambda x, y: x >= y}.get(cmp)
            ok = lambda v: type(v) is int
            msk = (1 << w) - 1
            conv = (lambda v: signed(v & msk, w)) if t[0] == 's' else (lambda v: v & msk)
        else:
            fc = None
        if fc is None:
            return None
        cf = {None: None, 'and': lambda x, y: x and y, 'or': lambda x, y: x or y,
              'xor': lambda x, y: x != y}.get(comb, 0)
        if cf == 0:
            return None

        def f(R):
            x, y = ga(R), gb(R)
            if not ok(x) or not ok(y):
                r = x if type(x) is Poison else y if type(y) is Poison else Poison('setp of %r, %r' % (x, y))
                for dd in ds:
                    R[dd] = r
                return
            r = fc(conv(x), conv(y))
            if comb:
                c = gc(R)
                if type(c) is Poison:
                    for dd in ds:
                        R[dd] = c
                    return
                r = cf(r, bool(c))
            R[ds[0]] = r
            if len(ds) > 1:
                R[ds[1]] = not r
        return f
    if base == 'selp' and t in WIDTH:
        d, ga, gb, gc = a[0], getter(k, a[1]), getter(k, a[2]), getter(k, a[3])

        def f(R):
            c = gc(R)
            R[d] = c if type(c) is Poison else (ga(R) if c else gb(R))
        return f
    if t == 'pred' and base in ('and', 'or', 'xor', 'not'):
        d = a[0]
        gs = [getter(k, x) for x in a[1:]]
        fn = {'and': lambda x, y: x and y, 'or': lambda x, y: x or y,
              'xor': lambda x, y: x != y, 'not': lambda x: not x}[base]

        def f(R):
            vs = [g(R) for g in gs]
            p = next((v for v in vs if type(v) is Poison), None)
            R[d] = p if p is not None else fn(*[bool(v) for v in vs])
        return f
    # integer arithmetic and logic
    w = WIDTH.get(t)
    if not w or w == 1:
        return None
    mode = parts[1] if len(parts) == 3 else None
    sgn = t[0] == 's'
    msk = (1 << w) - 1
    if base == 'mul' and mode == 'wide':
        wo = 2 * w
        fn = lambda x, y: (x * y) & ((1 << wo) - 1)
        n = 2
    elif base == 'mad' and mode == 'wide':
        wo = 2 * w
        fn = lambda x, y, z: (x * y + z) & ((1 << wo) - 1)
        n = 3
    else:
        if mode not in (None, 'lo') or (mode == 'lo') != (base in ('mul', 'mad')):
            return None

        def div(x, y):
            if y == 0:
                return Poison('division by 0')
            q = abs(x) // abs(y)
            return q if (x < 0) == (y < 0) else -q

        def rem(x, y):
            if y == 0:
                return Poison('remainder by 0')
            return x - div(x, y) * y

        def shr(x, y):
            if y >= w:
                return -1 if sgn and x < 0 else 0
            return x >> y

        table = {'add': (2, lambda x, y: x + y), 'sub': (2, lambda x, y: x - y),
                 'mul': (2, lambda x, y: x * y), 'mad': (3, lambda x, y, z: x * y + z),
                 'div': (2, div), 'rem': (2, rem), 'min': (2, min), 'max': (2, max),
                 'shl': (2, lambda x, y: x << y if y < w else 0), 'shr': (2, shr),
                 'and': (2, lambda x, y: x & y), 'or': (2, lambda x, y: x | y),
                 'xor': (2, lambda x, y: x ^ y), 'not': (1, lambda x: ~x),
                 'neg': (1, lambda x: -x)}
        if base not in table:
            return None
        n, fn = table[base]
        wo = w
    if len(a) != n + 1:
        return None
    d = a[0]
    gs = [getter(k, x) for x in a[1:]]
    omsk = (1 << wo) - 1
    shift = base in ('shl', 'shr')

    def f(R):
        vs = [g(R) for g in gs]
        for v in vs:
            if type(v) is not int:
                R[d] = v if type(v) is Poison else Poison('%s of %r' % (op, v))
                return
        if sgn:
            vs = [signed(v & msk, w) for v in vs]
        else:
            vs = [v & msk for v in vs]
        if shift:
            vs[1] &= 0xffffffff      # the shift amount: an unsigned 32-bit value
        r = fn(*vs)
        R[d] = r & omsk if type(r) is int else r
    return f


PROTOCOL = ('mbarrier', 'bra', 'brx', 'call', 'ret', 'exit', 'trap', 'bar.', 'barrier',
            'mapa', 'elect', 'shfl', 'cp.async.bulk.tensor', 'wgmma', 'getctarank')


def compile_ins(k, ins):
    op, a = ins.op, ins.args
    ins.aligned, ins.fn, ins.data = False, None, None
    if op in ('bra', 'bra.uni'):
        ins.kind, ins.data = 'bra', a[0]
    elif op in ('ret', 'exit'):
        ins.kind = 'ret'
    elif op.startswith('mbarrier.init.shared'):
        ins.kind, ins.data = 'init', (addr_getter(k, a[0]), getter(k, a[1]))
    elif re.match(r'^mbarrier\.arrive\.expect_tx(\.release)?(\.cta)?\.shared::cta\.b64$', op):
        ins.kind, ins.data = 'expect', (addr_getter(k, a[1]), getter(k, a[2]), dests(a))
    elif re.match(r'^mbarrier\.arrive(\.release)?(\.cta|\.cluster)?\.shared::(cta|cluster)\.b64$', op):
        ins.kind = 'arrive'
        ins.data = (addr_getter(k, a[1]), getter(k, a[2]) if len(a) > 2 else (lambda R: 1), dests(a))
    elif re.match(r'^mbarrier\.(try|test)_wait\.parity(\.acquire)?(\.cta|\.cluster)?\.shared::cta\.b64$', op):
        ins.kind, ins.data = 'wait', (a[0], addr_getter(k, a[1]), getter(k, a[2]))
    elif re.match(r'^cp\.async\.bulk\.tensor\.\d+d\.shared::\w+\.global', op):
        m = re.match(r'^cp\.async\.bulk\.tensor\.(\d)d\.shared::cluster\.global\.tile\.'
                     r'mbarrier::complete_tx::bytes(\.multicast::cluster)?$', op)
        if not m or m.group(1) != '2':
            ins.kind = 'unknown'
        else:
            inner = a[1].strip()[1:-1]
            tm, coords = inner.split(',', 1)
            ins.kind = 'load'
            ins.data = (addr_getter(k, a[0]), getter(k, tm), [getter(k, c) for c in vec(coords)],
                        addr_getter(k, a[2]), getter(k, a[3]) if m.group(2) else None)
    elif op == 'mapa.shared::cluster.u32':
        d, g, r = a[0], getter(k, a[1]), getter(k, a[2])

        def f(R):
            v, rk = g(R), r(R)
            R[d] = CAddr(rk, v) if type(v) is int and type(rk) is int else \
                Poison('mapa of %r, %r' % (v, rk))
        ins.kind, ins.fn = 'alu', f
    elif op.startswith('shfl.sync.idx.b32'):
        ins.kind, ins.data = 'shfl', (a[0], a[1], getter(k, a[2]), getter(k, a[3]))
    elif op.startswith('wgmma.mma_async'):
        ins.kind, ins.aligned = 'wgmma', True
        ins.data = (vec(a[0]), a[1], a[2])
    elif op.startswith('wgmma.'):
        ins.kind, ins.aligned = 'nop', True
    elif op in ('bar.sync', 'barrier.sync', 'barrier.sync.aligned', 'bar.arrive', 'barrier.arrive',
                'barrier.arrive.aligned'):
        ins.kind, ins.aligned = 'bar', True
        ins.data = ('arrive' in op, [getter(k, x) for x in a])
    elif op.startswith('barrier.cluster.arrive'):
        ins.kind = 'clarrive'
    elif op.startswith('barrier.cluster.wait'):
        ins.kind = 'clwait'
    elif op.startswith('setmaxnreg.') or op.startswith('stmatrix.'):
        ins.kind, ins.aligned = 'nop', True
    elif any(op.startswith(p) for p in PROTOCOL) and not op.startswith('cp.async.bulk.tensor.2d.global.shared::cta'):
        ins.kind = 'unknown'
    else:
        f = alu_fn(k, ins)
        if f is not None:
            ins.kind, ins.fn = 'alu', f
        else:
            # not computed: what it writes is poisoned (stores, fences,
            # prefetches and waits for stores write nothing)
            ins.kind = 'alu'
            ins.fn = poison_fn(dests(a), 'written by `%s` (line %d)' % (op, ins.line))


# ---------------------------------------------------------------- the model

class Barrier:
    __slots__ = ('addr', 'count', 'pending', 'tx', 'phase')

    def __init__(self, addr, count):
        self.addr, self.count, self.pending, self.tx, self.phase = addr, count, count, 0, 0

    def done(self):
        if self.pending == 0 and self.tx == 0:
            self.phase += 1
            self.pending = self.count


class Load:
    __slots__ = ('id', 'dst', 'nbytes', 'tensor', 'x', 'y', 'rowbytes', 'full', 'gen',
                 'issuer', 'readers', 'landed')


class CTA:
    def __init__(self, rank):
        self.rank = rank
        self.bars = {}
        self.mem = []          # the loads that hold shared memory now
        self.e2f, self.f2e = {}, {}
        self.fulls = []        # full barriers, in the order the producer first arms them
        self.named = {}        # named barrier (bar.sync) -> its state
        self.empties = set()   # the barriers the producer waits on
        self.threads = []


class Thread:
    def __init__(self, sim, cta, tid):
        self.cta, self.tid, self.wg = cta, tid, tid // 128
        self.lane, self.warp = tid % 32, tid // 32
        self.role = 'producer' if self.wg == 0 else 'consumer'
        self.name = 'CTA %d %s lane %d' % (cta.rank, 'producer' if self.wg == 0 else 'wg%d' % self.wg,
                                           self.lane)
        self.R = dict(sim.specials(cta.rank))
        self.R.update({'%tid.x': tid, '%tid.y': 0, '%tid.z': 0, '%laneid': self.lane,
                       '@params': sim.params})
        self.pc = 0
        self.state = 'run'
        self.fail_at = None
        self.spin = None
        self.at_aligned = self.pass_aligned = None
        self.bar_n = self.cl_n = self.cl_target = self.bar_target = 0
        self.acq = {}            # (CTA rank, barrier) -> the phase last acquired
        self.acq_list = {}       # consumer: (CTA rank, barrier) -> phases acquired, in order
        self.rel_ptr = {}        # (CTA rank, empty barrier) -> uses released
        self.rel_time = {}       # (CTA rank, empty barrier) -> when last released
        self.last_empty = None   # producer: the empty barrier just waited on
        self.waits = []          # consumer: (m0, n0, kb) at each full wait
        self.mma = {}            # consumer: (m0, n0) -> Counter of (A row, k)


class Sim:
    def __init__(self, kern, info, M, N, K, clusters, cid, d_tma, beta, delivery):
        self.k, self.info = kern, info
        self.delivery = delivery   # TMA bytes land: 'now', or when no thread can move ('fifo', 'lifo')
        self.inflight = []
        self.cl = info['cl']
        self.M, self.N, self.K = M, N, K
        self.clusters, self.cid = clusters, cid
        self.params = {'pm': M, 'pn': N, 'pk': K, 'pldd': N, 'pldc': N, 'palpha': 1.0,
                       'pbeta': beta, 'pd_tma': d_tma, 'pd': 1 << 32, 'pc': 2 << 32}
        self.time = 0
        self.loads = 0
        self.ctas = [CTA(r) for r in range(self.cl)]
        self.threads = []
        for c in self.ctas:
            for tid in THREADS:
                t = Thread(self, c, tid)
                c.threads.append(t)
                self.threads.append(t)
        self.warps = {}
        for t in self.threads:
            self.warps.setdefault((t.cta.rank, t.warp), []).append(t)
        self.leader = {key: next((t for t in ts if t.lane == 0), None) for key, ts in self.warps.items()}

    def specials(self, rank):
        cl = self.cl
        return {'%ctaid.x': self.cid * cl + rank, '%ctaid.y': 0, '%ctaid.z': 0,
                '%nctaid.x': self.clusters * cl, '%nctaid.y': 1, '%nctaid.z': 1,
                '%ntid.x': 384, '%ntid.y': 1, '%ntid.z': 1,
                '%clusterid.x': self.cid, '%clusterid.y': 0, '%clusterid.z': 0,
                '%nclusterid.x': self.clusters, '%nclusterid.y': 1, '%nclusterid.z': 1,
                '%cluster_ctarank': rank, '%cluster_nctarank': cl,
                '%cluster_ctaid.x': rank, '%cluster_nctaid.x': cl}

    # -------------------------------------------------------- helpers
    def bar_name(self, cta, addr):
        if addr in cta.fulls:
            return 'full[%d]' % cta.fulls.index(addr)
        if addr in cta.e2f and cta.e2f[addr] in cta.fulls:
            return 'empty[%d]' % cta.fulls.index(cta.e2f[addr])
        return 'the mbarrier at %#x' % addr

    def where(self, t, ins=None):
        ins = ins or self.k.ins[t.pc]
        R = t.R
        regs = ' '.join('%s %s' % (r, R[r]) for r in ('%tile', '%kb', '%stage', '%phase')
                        if type(R.get(r)) is int)
        return '%s at line %d `%s` (%s)' % (t.name, ins.line, ins.text, regs)

    def need(self, v, t, ins, what):
        if type(v) is not int:
            raise Unfollowable('%s: %s is %r' % (self.where(t, ins), what, v))
        return v

    def barrier(self, cta, addr, t, ins):
        if isinstance(addr, CAddr):
            if not 0 <= addr.rank < self.cl:
                raise Fail('%s: CTA rank %d outside the cluster' % (self.where(t, ins), addr.rank))
            cta, addr = self.ctas[addr.rank], addr.addr
        addr = self.need(addr, t, ins, 'the barrier address')
        b = cta.bars.get(addr)
        if b is None:
            raise Fail('%s: mbarrier at %#x of CTA %d used before mbarrier.init' %
                       (self.where(t, ins), addr, cta.rank))
        return cta, b

    def find(self, cta, a):
        for ld in cta.mem:
            if ld.dst <= a < ld.dst + ld.nbytes:
                return ld
        return None

    # -------------------------------------------------------- one thread
    def run_thread(self, t, quota):
        ins_list, labels = self.k.ins, self.k.labels
        n = 0
        while n < quota:
            st = t.state
            if st == 'exit':
                return n
            if st == 'spin':
                if t.spin[0].phase == t.spin[1]:
                    return n
                t.state = 'run'
            elif st == 'warp':
                if t.pass_aligned != t.pc:
                    return n
                t.state = 'run'
            elif st == 'bar':
                if any(o.state != 'exit' and o.bar_n < t.bar_target for o in t.cta.threads):
                    return n
                t.state = 'run'
            elif st == 'nbar':
                if t.nbar[0]['gen'] <= t.nbar[1]:
                    return n
                t.state = 'run'
            elif st == 'cluster':
                if any(o.state != 'exit' and o.cl_n < t.cl_target for o in self.threads):
                    return n
                t.state = 'run'
            if t.pc >= len(ins_list):
                raise Fail('%s runs past the end of the kernel' % t.name)
            ins = ins_list[t.pc]
            R = t.R
            if ins.aligned and t.pass_aligned != t.pc:
                mates = [o for o in self.warps[(t.cta.rank, t.warp)] if o is not t and o.state != 'exit']
                for o in mates:
                    if o.at_aligned is not None and o.at_aligned != t.pc:
                        raise Fail('warp divergence: %s waits at aligned line %d while %s is at line %d'
                                   % (o.name, ins_list[o.at_aligned].line, t.name, ins.line))
                if all(o.at_aligned == t.pc for o in mates):
                    tok = {}
                    for o in mates + [t]:
                        o.pass_aligned, o.at_aligned, o.tok = t.pc, None, tok
                else:
                    t.at_aligned = t.pc
                    t.state = 'warp'
                    return n
            n += 1
            g = ins.guard
            if g is not None:
                v = R.get(g[1])
                if v is None or type(v) is Poison:
                    if ins.kind == 'alu':
                        poison_fn(dests(ins.args), 'guard %s poisoned' % g[1])(R)
                        t.pc += 1
                        continue
                    if ins.kind == 'nop':
                        t.pc += 1
                        continue
                    raise Unfollowable('%s: the guard %s is %r' % (self.where(t, ins), g[1], v))
                if bool(v) == g[0]:
                    if ins.aligned:
                        t.pass_aligned = None
                    t.pc += 1
                    continue
            kind = ins.kind
            if kind == 'alu':
                ins.fn(R)
                t.pc += 1
            elif kind == 'bra':
                t.pc = labels[ins.data]
            elif kind == 'nop':
                t.pass_aligned = None
                t.pc += 1
            elif kind == 'wait':
                if not self.do_wait(t, ins):
                    return n
            elif kind == 'ret':
                t.state = 'exit'
                return n
            else:
                getattr(self, 'do_' + kind)(t, ins)
                if t.state != 'run':
                    return n
        return n

    # -------------------------------------------------------- instructions
    def do_unknown(self, t, ins):
        raise Unfollowable('%s: an instruction this replay does not model' % self.where(t, ins))

    def do_shfl(self, t, ins):
        d, src, gb, gc = ins.data
        b, c = self.need(gb(t.R), t, ins, 'the lane'), self.need(gc(t.R), t, ins, 'the clamp')
        seg = (c >> 8) & 0x1f
        lo = t.lane & seg
        hi = lo | (c & 0x1f & ~seg)
        j = lo | (b & ~seg)
        if j > hi:
            j = t.lane
        if j == t.lane:
            t.R[d] = t.R.get(src, Poison('%s read before it is written' % src))
        else:
            t.R[d] = self.probe(t, (t.tid & ~31) + j, src)
        t.pc += 1

    def probe(self, t, tid, src):
        """the value of src in thread tid when it reaches t's pc, when the
        code before it is straight-line integer arithmetic"""
        o = Thread(self, t.cta, tid)
        for pc in range(t.pc):
            ins = self.k.ins[pc]
            if ins.kind != 'alu' or ins.guard is not None:
                return Poison('shfl from lane %d: the code before it is not straight-line' % (tid % 32))
            ins.fn(o.R)
        return o.R.get(src, Poison('%s read before it is written' % src))

    def do_init(self, t, ins):
        ga, gc = ins.data
        a = self.need(ga(t.R), t, ins, 'the barrier address')
        c = self.need(gc(t.R), t, ins, 'the barrier count')
        if c < 1:
            raise Fail('%s: count %d' % (self.where(t, ins), c))
        t.cta.bars[a] = Barrier(a, c)
        t.pc += 1

    def do_bar(self, t, ins):
        t.pass_aligned = None
        t.pc += 1
        arrive, gs = ins.data
        vs = [self.need(g(t.R), t, ins, 'the barrier operand') for g in gs]
        if len(vs) == 1 or vs[1] >= 384:
            if arrive:
                raise Unfollowable('%s: bar.arrive of the whole CTA' % self.where(t, ins))
            # every thread of the CTA: every modelled thread
            t.bar_n += 1
            t.bar_target = t.bar_n
            t.state = 'bar'
            return
        # a named barrier of vs[1] threads: counted in warps, the modelled
        # warp of a consumer warpgroup standing for its 4; the warp's lanes
        # met above, and the first of them arrives for the warp
        bid, cnt = vs
        if cnt % 32:
            raise Fail('%s: barrier count %d, not whole warps' % (self.where(t, ins), cnt))
        b = t.cta.named.setdefault(bid, {'gen': 0, 'warps': 0, 'count': cnt})
        if b['count'] != cnt and b['warps']:
            raise Fail('%s: named barrier %d used with counts %d and %d' %
                       (self.where(t, ins), bid, b['count'], cnt))
        b['count'] = cnt
        tok = t.tok
        if 'gen' not in tok:
            tok['gen'] = b['gen']
            b['warps'] += WARPS_PER_WG if t.role == 'consumer' else 1
            if b['warps'] > cnt // 32:
                raise Fail('%s: named barrier %d gets %d warps, its count is %d threads' %
                           (self.where(t, ins), bid, b['warps'], cnt))
            if b['warps'] == cnt // 32:
                b['gen'] += 1
                b['warps'] = 0
        if not arrive:
            t.nbar = (b, tok['gen'])
            t.state = 'nbar'

    def do_clarrive(self, t, ins):
        t.cl_n += 1
        t.pc += 1

    def do_clwait(self, t, ins):
        t.cl_target = t.cl_n
        t.state = 'cluster'
        t.pc += 1

    def do_wait(self, t, ins):
        pd, ga, gp = ins.data
        cta, b = self.barrier(t.cta, ga(t.R), t, ins)
        p = self.need(gp(t.R), t, ins, 'the parity')
        if p not in (0, 1):
            raise Fail('%s: parity %d' % (self.where(t, ins), p))
        if b.phase % 2 != p:
            gen = b.phase - 1
            t.R[pd] = True
            t.fail_at = None
            key = (cta.rank, b.addr)
            t.acq[key] = gen
            if t.role == 'consumer':
                # (whether it was a full barrier is known when the run ends)
                lst = t.acq_list.setdefault(key, [])
                if not lst or lst[-1] != gen:
                    lst.append(gen)
                R = t.R
                m0, n0, kb = R.get('%m0'), R.get('%n0'), R.get('%kb')
                if b.addr in cta.fulls:
                    for nm, v in (('%m0', m0), ('%n0', n0), ('%kb', kb)):
                        self.need(v, t, ins, nm)
                if type(m0) is int and type(n0) is int and type(kb) is int:
                    t.waits.append((m0, n0, kb, b.addr, gen))
            else:
                t.last_empty = (b.addr, gen)
                cta.empties.add(b.addr)
            t.pc += 1
            return True
        key = (t.pc, cta.rank, b.addr, b.phase)
        if t.fail_at == key:
            # the same try_wait failed again and no phase completed since: spin
            t.state = 'spin'
            t.spin = (b, b.phase, p)
            return False
        t.fail_at = key
        t.R[pd] = False
        t.pc += 1
        return True

    def do_expect(self, t, ins):
        ga, gn, ds = ins.data
        cta, b = self.barrier(t.cta, ga(t.R), t, ins)
        nb = self.need(gn(t.R), t, ins, 'the byte count')
        if t.last_empty is None:
            raise Fail('%s: %s armed with no wait for a free stage before' %
                       (self.where(t, ins), self.bar_name(cta, b.addr)))
        e, gen = t.last_empty
        t.last_empty = None
        if cta.f2e.setdefault(b.addr, e) != e or cta.e2f.setdefault(e, b.addr) != b.addr:
            raise Fail('%s: the producer pairs full and empty barriers inconsistently' % self.where(t, ins))
        if b.addr not in cta.fulls:
            cta.fulls.append(b.addr)
        if b.phase != gen + 1:
            raise Fail('%s: fills %s for use %d after waiting for the release of use %d' %
                       (self.where(t, ins), self.bar_name(cta, b.addr), b.phase, gen))
        if b.pending == 0:
            raise Fail('%s: %s gets more arrivals than its count %d in phase %d' %
                       (self.where(t, ins), self.bar_name(cta, b.addr), b.count, b.phase))
        for d in ds:
            t.R[d] = Poison('mbarrier state')
        b.tx += nb
        b.pending -= 1
        b.done()
        t.pc += 1

    def do_arrive(self, t, ins):
        ga, gn, ds = ins.data
        a = ga(t.R)
        cta, b = self.barrier(t.cta, a, t, ins)
        cnt = self.need(gn(t.R), t, ins, 'the arrive count')
        for d in ds:
            t.R[d] = Poison('mbarrier state')
        self.time += 1
        weight = WARPS_PER_WG if t.role == 'consumer' else 1
        f = t.cta.e2f.get(b.addr)
        if f is None or t.role != 'consumer':
            if b.addr in cta.empties:
                raise Fail('%s: %s arrives on %s of CTA %d, %s' %
                           (self.where(t, ins), t.role, self.bar_name(cta, b.addr), cta.rank,
                            'a stage the producer has not filled yet' if f is None else
                            'which only consumers release'))
            # some other barrier: the arrive, no stage bookkeeping
            for _ in range(cnt * weight):
                if b.pending == 0:
                    raise Fail('%s: %s gets more arrivals than its count %d in phase %d' %
                               (self.where(t, ins), self.bar_name(cta, b.addr), b.count, b.phase))
                b.pending -= 1
                b.done()
            t.pc += 1
            return
        lst = t.acq_list.get((t.cta.rank, f), [])
        key = (cta.rank, b.addr)
        i = t.rel_ptr.get(key, 0)
        if i >= len(lst):
            raise Fail('%s: releases %s of CTA %d for the %d%s time, having waited for %s %d time(s)' %
                       (self.where(t, ins), self.bar_name(cta, b.addr), cta.rank, i + 1,
                        'th' if i + 1 > 3 else ['st', 'nd', 'rd'][i], self.bar_name(t.cta, f), len(lst)))
        gen = lst[i]
        t.rel_ptr[key] = i + 1
        t.rel_time[key] = self.time
        for _ in range(cnt * weight):
            if b.phase != gen:
                raise Fail('%s: releases use %d of stage %d to %s of CTA %d, which is in phase %d: %s' %
                           (self.where(t, ins), gen, t.cta.fulls.index(f), self.bar_name(cta, b.addr),
                            cta.rank, b.phase,
                            'phase %d got more arrivals than its count %d' % (gen, b.count)
                            if b.phase > gen else 'released before phase %d completed' % (gen - 1)))
            b.pending -= 1
            b.done()
        t.pc += 1

    def do_load(self, t, ins):
        gd, gt, gxy, gb, gm = ins.data
        R = t.R
        dst = gd(R)
        tm = gt(R)
        xy = [self.need(g(R), t, ins, 'a TMA coordinate') for g in gxy]
        bar = gb(R)
        if not isinstance(tm, Sym) or tm.name not in self.info['maps']:
            raise Unfollowable('%s: the tensor map is %r' % (self.where(t, ins), tm))
        box, es = self.info['maps'][tm.name]
        nbytes = box[0] * box[1] * es
        if isinstance(dst, CAddr) or isinstance(bar, CAddr):
            raise Unfollowable('%s: a load into another CTA by address' % self.where(t, ins))
        dst = self.need(dst, t, ins, 'the destination')
        bar = self.need(bar, t, ins, 'the barrier address')
        if gm is not None:
            mask = self.need(gm(R), t, ins, 'the CTA mask')
            ranks = [r for r in range(16) if mask >> r & 1]
            if not ranks or max(ranks) >= self.cl:
                raise Fail('%s: CTA mask %#x for a cluster of %d' % (self.where(t, ins), mask, self.cl))
        else:
            ranks = [t.cta.rank]
        if t.role != 'producer':
            raise Fail('%s: a consumer loads' % self.where(t, ins))
        e = t.cta.f2e.get(bar)
        if e is None:
            raise Fail('%s: the load completes on %#x, which the producer never armed' %
                       (self.where(t, ins), bar))
        for r in ranks:
            cta = self.ctas[r]
            b = cta.bars.get(bar)
            if b is None:
                raise Fail('%s: CTA %d has no mbarrier at %#x' % (self.where(t, ins), r, bar))
            lowest = min(cta.bars)
            if dst < 0 or dst + nbytes > lowest:
                raise Fail('%s: the load of %d bytes at %#x overlaps the mbarriers at %#x' %
                           (self.where(t, ins), nbytes, dst, lowest))
            keep = []
            for old in cta.mem:
                if old.dst < dst + nbytes and dst < old.dst + old.nbytes:
                    if not old.landed:
                        raise Fail('%s: loads into CTA %d shared %#x while an earlier load there '
                                   'is in flight' % (self.where(t, ins), r, dst))
                    for wk, rt in old.readers.items():
                        rel = self.leader[wk].rel_time.get((t.cta.rank, e), -1)
                        if rel < rt:
                            raise Fail('%s: refills stage %d of CTA %d (held %s rows %d.. K %d, use %d) '
                                       'before %s released it to CTA %d' %
                                       (self.where(t, ins), cta.fulls.index(old.full) if old.full in cta.fulls
                                        else -1, r, old.tensor, old.y, old.x, old.gen,
                                        self.leader[wk].name, t.cta.rank))
                else:
                    keep.append(old)
            ld = Load()
            self.loads += 1
            ld.id, ld.dst, ld.nbytes, ld.tensor = self.loads, dst, nbytes, tm.name
            ld.x, ld.y, ld.rowbytes = xy[0], xy[1], box[0] * es
            ld.full, ld.gen, ld.issuer, ld.readers, ld.landed = bar, None, t.cta.rank, {}, False
            keep.append(ld)
            cta.mem = keep
            self.inflight.append((ld, b))
            if self.delivery == 'now':
                self.deliver()
        t.pc += 1

    def deliver(self):
        """one load's bytes land (the oldest, or the newest in 'lifo')"""
        ld, b = self.inflight.pop() if self.delivery == 'lifo' else self.inflight.pop(0)
        ld.landed, ld.gen = True, b.phase
        b.tx -= ld.nbytes
        b.done()

    def operand(self, t, ins, desc, rows, kbytes, tensor, es):
        """(first row, first k, loads) that a K-major 128-byte-swizzled
        operand of `rows` rows read through descriptor desc covers"""
        desc = self.need(desc, t, ins, 'the %s descriptor' % tensor)
        start = (desc & 0x3fff) << 4
        sbo = ((desc >> 32) & 0x3fff) << 4
        if desc >> 62 != 1:
            raise Unfollowable('%s: the %s descriptor\'s layout %d is not the 128-byte swizzle' %
                               (self.where(t, ins), tensor, desc >> 62))
        row0 = k0 = None
        used = []
        for j in range(rows // 8):
            a = start + j * sbo
            ld = self.find(t.cta, a)
            if ld is None or ld.tensor != tensor:
                raise Fail('%s: wgmma reads %s rows %d-%d at shared %#x, which holds %s' %
                           (self.where(t, ins), tensor, 8 * j, 8 * j + 7, a,
                            'nothing loaded' if ld is None else '%s' % ld.tensor))
            off = a - ld.dst
            row, kb = ld.y + off // ld.rowbytes, off % ld.rowbytes
            if kb + kbytes > ld.rowbytes or off + 7 * ld.rowbytes + kbytes > ld.nbytes:
                raise Fail('%s: wgmma reads past the load at %#x' % (self.where(t, ins), ld.dst))
            k = ld.x + kb // es
            if j == 0:
                row0, k0 = row, k
            elif row != row0 + 8 * j or k != k0:
                raise Fail('%s: wgmma %s rows %d-%d read row %d K %d, not row %d K %d' %
                           (self.where(t, ins), tensor, 8 * j, 8 * j + 7, row, k, row0 + 8 * j, k0))
            used.append(ld)
        return row0, k0, used

    def do_wgmma(self, t, ins):
        t.pass_aligned = None
        dvec, da, db = ins.data
        R = t.R
        m = re.search(r'\.m(\d+)n(\d+)k(\d+)\.(\w+)\.(\w+)\.(\w+)', ins.op)
        if not m or da.startswith('{') or int(m.group(1)) != 64:
            raise Unfollowable('%s: a wgmma form this replay does not model' % self.where(t, ins))
        n, kk = int(m.group(2)), int(m.group(3))
        es_a, es_b = ESIZE[m.group(5)], ESIZE[m.group(6)]
        ra, ka, la = self.operand(t, ins, getter(self.k, da)(R), 64, kk * es_a, 'tensor_a', es_a)
        rb, kb_, lb = self.operand(t, ins, getter(self.k, db)(R), n, kk * es_b, 'tensor_b', es_b)
        m0, n0, kb = (self.need(R.get(x), t, ins, x) for x in ('%m0', '%n0', '%kb'))
        for ld in la + lb:
            if not ld.landed:
                raise Fail('%s: wgmma reads stage %d (%s rows %d.. K %d) while its load is in flight' %
                           (self.where(t, ins), t.cta.fulls.index(ld.full), ld.tensor, ld.y, ld.x))
            got = t.acq.get((t.cta.rank, ld.full))
            if got != ld.gen:
                raise Fail('%s: wgmma reads stage %d (%s rows %d.. K %d, use %d) but %s%s' %
                           (self.where(t, ins), t.cta.fulls.index(ld.full), ld.tensor, ld.y, ld.x,
                            ld.gen, 'its wait acquired use %d of it' % got if got is not None
                            else 'never waited for it',
                            ' (try_wait.parity passed on an older phase of the same parity: '
                            'the parity tells apart only 2 consecutive phases)'
                            if got is not None and got < ld.gen else ''))
        bk = self.info['bk']
        rows = (m0, m0 + 64) if self.info['schedule'] == 'pingpong' else (m0 + 64 * (t.wg - 1),)
        stage = t.cta.fulls.index(la[0].full)
        if ra not in rows or rb != n0 or kb_ != ka or not kb * bk <= ka < kb * bk + bk or (ka - kb * bk) % kk:
            raise Fail('%s: wgmma of tile (m0 %d, n0 %d) K block %d reads stage %d, which holds '
                       'A rows %d.. K %d and B rows %d.. K %d (want A rows %s, B rows %d, K %d..%d)' %
                       (self.where(t, ins), m0, n0, kb, stage, ra, ka, rb, kb_,
                        ' or '.join(map(str, rows)), n0, kb * bk, kb * bk + bk - 1))
        if n != self.info['bn']:
            raise Fail('%s: wgmma N %d, tile N %d' % (self.where(t, ins), n, self.info['bn']))
        self.time += 1
        wk = (t.cta.rank, t.warp)
        for ld in la + lb:
            ld.readers[wk] = self.time
        t.mma.setdefault((m0, n0), Counter())[(ra, ka)] += 1
        for r in dvec:
            R[r] = Poison('an accumulator')
        t.pc += 1

    # -------------------------------------------------------- the run
    def run(self, limit=3_000_000):
        total = 0
        while True:
            live = [t for t in self.threads if t.state != 'exit']
            if not live:
                if self.inflight:
                    raise Fail('the kernel ends with %d loads in flight' % len(self.inflight))
                # an arrive that no sync met: the barrier is left counting
                # (the next launch on this SM inherits nothing, but the
                # kernel's turns were not paired)
                for c in self.ctas:
                    for bid, b in sorted(c.named.items()):
                        if b['warps']:
                            raise Fail('CTA %d ends with named barrier %d holding %d arrivals '
                                       'that no sync met' % (c.rank, bid, b['warps']))
                return total
            moved = 0
            for t in live:
                moved += self.run_thread(t, 5000)
            total += moved
            if not moved and self.inflight:
                self.deliver()
            elif not moved:
                raise Fail('deadlock: ' + '; '.join(self.stuck(t) for t in live))
            if total > limit:
                raise Fail('no end after %d instructions: ' % total + '; '.join(self.stuck(t) for t in live))

    def stuck(self, t):
        s = self.where(t)
        if t.state == 'spin':
            b, ph, p = t.spin
            cta = next(c for c in self.ctas if c.bars.get(b.addr) is b)
            s += ' spins on %s of CTA %d for parity %d (phase %d, %d of %d arrivals pending, tx %d)' % (
                self.bar_name(cta, b.addr), cta.rank, p, b.phase, b.pending, b.count, b.tx)
        else:
            s += ' waits (%s)' % t.state
        return s


# ---------------------------------------------------------------- checks

def check_cta(sim, cta, info, kblocks, T, G, cid):
    """the CTA's tiles, from its consumers' waits and wgmma; returns the tiles"""
    M = sim.M
    bm, bn, cl = 128, info['bn'], info['cl']
    by = {(t.wg, t.lane): t for t in cta.threads}
    tiles = {}
    for wg in (1, 2):
        lead, other = by[(wg, 0)], by[(wg, 1)]
        waits = [w for w in lead.waits if w[3] in cta.fulls]
        if [w[:3] for w in other.waits if w[3] in cta.fulls] != [w[:3] for w in waits]:
            raise Fail('CTA %d wg%d: lanes 0 and 1 waited for different K blocks' % (cta.rank, wg))
        if other.mma != lead.mma:
            raise Fail('CTA %d wg%d: lanes 0 and 1 computed different K blocks' % (cta.rank, wg))
        # every use acquired is released, to every CTA of the cluster
        for (r, f), lst in lead.acq_list.items():
            if f not in cta.fulls:
                continue
            e = cta.f2e[f]
            for q in range(cl):
                got = lead.rel_ptr.get((q, e), 0)
                if got != len(lst):
                    raise Fail('CTA %d wg%d: waited %d times for %s, released it %d times to CTA %d' %
                               (cta.rank, wg, len(lst), sim.bar_name(cta, f), got, q))
        seq = []
        for m0, n0, kb, f, gen in waits:
            if kb == 0:
                seq.append(((m0, n0), []))
            if not seq or seq[-1][0] != (m0, n0):
                raise Fail('CTA %d wg%d: waits for K block %d of tile (%d, %d) out of order' %
                           (cta.rank, wg, kb, m0, n0))
            seq[-1][1].append(kb)
        for tile, kbs in seq:
            if kbs != list(range(kblocks)):
                raise Fail('CTA %d wg%d: tile %s K blocks %s, not 0..%d' % (cta.rank, wg, tile, kbs, kblocks - 1))
            tiles.setdefault(tile, []).append(wg)
        for tile, cnt in lead.mma.items():
            if tile not in [s[0] for s in seq]:
                raise Fail('CTA %d wg%d: wgmma for tile %s, never waited for' % (cta.rank, wg, tile))
        for tile, _ in seq:
            m0, n0 = tile
            rows = (m0, m0 + 64) if info['schedule'] == 'pingpong' else (m0 + 64 * (wg - 1),)
            idle = rows[0] >= M
            got = lead.mma.get(tile, Counter())
            want = Counter() if idle else Counter((r, kb * info['bk'] + i * info['kk'])
                                                  for r in rows for kb in range(kblocks)
                                                  for i in range(info['bk'] // info['kk']))
            if got != want:
                miss, extra = want - got, got - want
                raise Fail('CTA %d wg%d tile (m0 %d, n0 %d)%s: K steps missing %s, extra %s' %
                           (cta.rank, wg, m0, n0, ' (idle: rows past M)' if idle else '',
                            sorted(miss)[:4], sorted(extra)[:4]))
    # the tiles: those the CTA owns, each by one warpgroup or by both
    want_n = len(range(cid, T, G))
    if len(tiles) != want_n:
        raise Fail('CTA %d of cluster %d walked %d tiles, owns %d' % (cta.rank, cid, len(tiles), want_n))
    tm = -(-(-(-M // bm)) // cl)
    for (m0, n0), wgs in tiles.items():
        if m0 % (bm * cl) != bm * cta.rank or m0 >= tm * bm * cl or n0 % bn or n0 >= sim.N:
            raise Fail('CTA %d: tile (m0 %d, n0 %d) is not one of its tiles' % (cta.rank, m0, n0))
        if sorted(wgs) != ([1, 2] if info['schedule'] == 'cooperative' else wgs) or \
                (info['schedule'] == 'pingpong' and len(wgs) != 1):
            raise Fail('CTA %d: tile (m0 %d, n0 %d) walked by warpgroup(s) %s' % (cta.rank, m0, n0, wgs))
    return set(tiles)


DELIVERY = ('now', 'fifo', 'lifo')


def replay(kern, info, M, N, K, clusters, cids, d_tma=1, beta=0.0):
    """run the clusters cids of a grid of `clusters`, with TMA's bytes
    landing at once, and as late as they can, oldest or newest first;
    returns statistics"""
    stats = Counter()
    for delivery in DELIVERY:
        try:
            stats += replay1(kern, info, M, N, K, clusters, cids, d_tma, beta, delivery)
        except Unfollowable:
            raise
        except Fail as e:
            raise Fail('(bytes landing %s) %s' % ({'now': 'at once', 'fifo': 'late, oldest first',
                                                    'lifo': 'late, newest first'}[delivery], e))
    return stats


def replay1(kern, info, M, N, K, clusters, cids, d_tma, beta, delivery):
    bn, bk, cl = info['bn'], info['bk'], info['cl']
    kblocks = -(-K // bk)
    tm = -(-(-(-M // 128)) // cl)
    T = tm * -(-N // bn)
    seen = set()
    stats = Counter()
    for cid in cids:
        sim = Sim(kern, info, M, N, K, clusters, cid, d_tma, beta, delivery)
        stats['instructions'] += sim.run()
        stats['loads'] += sim.loads
        for cta in sim.ctas:
            tiles = check_cta(sim, cta, info, kblocks, T, clusters, cid)
            if tiles & seen:
                raise Fail('tiles %s walked by two CTAs' % sorted(tiles & seen)[:3])
            seen |= tiles
            stats['tiles'] += len(tiles)
    if len(cids) == clusters:
        every = {(128 * i, bn * j) for i in range(tm * cl) for j in range(-(-N // bn))}
        if seen != every:
            raise Fail('the grid walked %d of %d tiles (missing %s)' %
                       (len(seen & every), len(every), sorted(every - seen)[:3]))
    return stats


# ---------------------------------------------------------------- kernels

def generate(mmagen, opts):
    base = [mmagen, 'gemm', '--arch', 'sm_90a'] + opts
    ptx = unslot(subprocess.run(base, check=True, capture_output=True, text=True).stdout)
    man = json.loads(subprocess.run(base + ['--format', 'json'], check=True,
                                    capture_output=True, text=True).stdout)
    maps = {p['name']: (p['box'], p['elem_bytes']) for p in man['params'] if p.get('kind') == 'tensor_map'}
    m = re.search(r'wgmma\.mma_async\S*\.m64n(\d+)k(\d+)\.', ptx)
    info = {'bm': man['tile'][0], 'bn': man['tile'][1], 'bk': man['tile'][2], 'stages': man['stages'],
            'cl': man['cluster'][0], 'schedule': man.get('schedule', 'cooperative'),
            'maps': maps, 'kk': int(m.group(2)), 'd_tma_ok': maps['tensor_d'][0] != [0, 0]}
    if info['bm'] != 128:
        raise Unfollowable('tile M %d: the replay models 128' % info['bm'])
    empty = re.search(r'add\.u32 %bar, %empty, %off;\n\s*mbarrier\.init\.shared::cta\.b64 \[%bar\], (\d+);', ptx)
    info['empty_count'] = int(empty.group(1)) if empty else None
    return ptx, info


def problems(info):
    """(M, N, K, clusters, clusters simulated, d_tma, beta): K blocks 1, 2,
    S-1, S, S+1 and many; CTAs with odd and even numbers of tiles; grids
    of 1, 2, 3 and 132 CTAs (clusters of them with --cluster 2)"""
    S, bk, bn, cl = info['stages'], info['bk'], info['bn'], info['cl']
    kbs = []
    for kb in (1, 2, S - 1, S, S + 1, 2 * S + 3):
        if kb >= 1 and kb not in kbs:
            kbs.append(kb)
    tmr = 128 * cl      # M of one tile row (a cluster's pair of tiles)

    def mk(tiles_m, tiles_n, kb, grid, ragged):
        M = tiles_m * tmr - (37 + (128 if ragged and cl == 2 else 0) if ragged else 0)
        N = tiles_n * bn - (5 if ragged else 0)
        K = kb * bk - (3 if ragged else 0)
        G = grid // cl if grid >= cl else 1
        return M, N, K, G
    # (tiles_m, tiles_n, CTAs): 1 tile; 4 tiles (even); 5 over 2 (3 + 2);
    # 9 over 3 (3 each, odd); 7 (odd, many); 276 over 132 (3 or 2)
    shapes = [(1, 1, 1), (2, 2, 1), (5, 1, 2), (3, 3, 3), (7, 1, 1), (23, 12, 132)]
    if cl == 2:
        shapes = [(1, 1, 2), (2, 2, 2), (5, 1, 4), (3, 3, 6), (7, 1, 2), (23, 6, 132)]
    out = []
    for i, kb in enumerate(kbs):
        tm, tn, grid = shapes[i % len(shapes)]
        M, N, K, G = mk(tm, tn, kb, grid, i % 2 == 1)
        cids = list(range(G)) if G <= 3 else [0, 11, G - 1]
        out.append((M, N, K, G, cids, 1 if info['d_tma_ok'] and i % 3 != 2 else 0, float(i % 2)))
    # the shapes the K blocks above did not meet, with S + 1 K blocks
    # (ping-pong: the other warpgroup's blocks are a turn of the ring and 1)
    for j in range(len(kbs), len(shapes)):
        tm, tn, grid = shapes[j]
        M, N, K, G = mk(tm, tn, S + 1, grid, False)
        cids = list(range(G)) if G <= 3 else [0, 11, G - 1]
        out.append((M, N, K, G, cids, 1 if info['d_tma_ok'] else 0, 0.0))
    # many K blocks over 5 tiles of one CTA, and 1 K block over 7
    out.append(mk(5, 1, 3 * S + 2, 1, False)[:3] + (1, [0], 0, 0.0))
    out.append(mk(7, 1, 1, 1, True)[:3] + (1, [0], 0, 1.0))
    return out


KERNELS = [
    ('s8 pingpong', ['--a', 's8', '--b', 's8', '--out', 's32', '--schedule', 'pingpong',
                     '--tile', '128x128', '--cluster', '1']),
    ('s8 pingpong', ['--a', 's8', '--b', 's8', '--out', 's32', '--schedule', 'pingpong',
                     '--tile', '128x128', '--cluster', '1', '--stages', '2']),
    ('s8 pingpong', ['--a', 's8', '--b', 's8', '--out', 's32', '--schedule', 'pingpong',
                     '--tile', '128x128', '--cluster', '1', '--stages', '3']),
    ('s8 pingpong', ['--a', 's8', '--b', 's8', '--out', 's32', '--schedule', 'pingpong',
                     '--tile', '128x128', '--cluster', '1', '--stages', '4']),
    ('s8 pingpong', ['--a', 's8', '--b', 's8', '--out', 's32', '--schedule', 'pingpong',
                     '--cluster', '2']),
    ('s8 pingpong', ['--a', 's8', '--b', 's8', '--out', 's32', '--schedule', 'pingpong',
                     '--cluster', '2', '--stages', '3']),
    ('bf16 pingpong', ['--a', 'bf16', '--b', 'bf16', '--out', 'bf16', '--schedule', 'pingpong',
                       '--cluster', '1', '--stages', '4']),
    ('bf16 pingpong', ['--a', 'bf16', '--b', 'bf16', '--out', 'bf16', '--schedule', 'pingpong']),
    ('bf16 cooperative', ['--a', 'bf16', '--b', 'bf16', '--out', 'bf16']),
    ('bf16 cooperative', ['--a', 'bf16', '--b', 'bf16', '--out', 'bf16', '--cluster', '1',
                          '--tile', '128x128', '--stages', '4']),
    ('s8 cooperative', ['--a', 's8', '--b', 's8', '--out', 's32', '--tile', '128x128',
                        '--cluster', '1', '--stages', '3']),
    ('s8 cooperative', ['--a', 's8', '--b', 's8', '--out', 's32', '--tile', '128x128']),
]

# (kernel, mutations it must fail with)
MUTANTS = [
    (['--a', 's8', '--b', 's8', '--out', 's32', '--schedule', 'pingpong', '--tile', '128x128',
      '--cluster', '1', '--stages', '4'], ('stage-step', 'wg2-start', 'phase-flip', 'empty-count', 'no-turns', 'arrive-always')),
    (['--a', 'bf16', '--b', 'bf16', '--out', 'bf16', '--schedule', 'pingpong'],
     ('stage-step', 'wg2-start', 'phase-flip', 'empty-count', 'no-turns', 'arrive-always')),
    (['--a', 's8', '--b', 's8', '--out', 's32', '--tile', '128x128', '--cluster', '1', '--stages', '3'],
     ('empty-half',)),
]


def mutate(ptx, kind):
    """the kernel with one mistake, or None when there is no place for it"""
    pats = {
        # the stage not stepped past the other warpgroup's K blocks
        'stage-step': (r'\n[ \t]*add\.u32 %stage, %stage, %pp_stage;[^\n]*', ''),
        # warpgroup 2 starts at stage 0, not past the first tile's blocks
        'wg2-start': (r'\n[ \t]*mov\.u32 %stage, %pp_stage;[^\n]*', ''),
        # the phase not flipped for the other warpgroup's turns of the ring
        'phase-flip': (r'\n[ \t]*xor\.b32 %phase, %phase, %pp_phase;[^\n]*', ''),
        # no turns: a warpgroup waits on a stage whose earlier fill, the
        # other's, may not have completed (the parity cannot tell)
        'no-turns': (r'\n[ \t]*bar\.sync %pp_in, 256;[^\n]*', ''),
        # the last tile's arrive even when the other warpgroup has no
        # next tile to sync on it
        'arrive-always': (r'\n[ \t]*@%p bra\.uni \$c_no_turn;[^\n]*', ''),
    }
    if kind in pats:
        pat, rep = pats[kind]
        new, n = re.subn(pat, rep, ptx)
        return new if n == 1 else None
    m = re.search(r'(add\.u32 %bar, %empty, %off;\n\s*mbarrier\.init\.shared::cta\.b64 \[%bar\], )(\d+);', ptx)
    if not m:
        return None
    c = int(m.group(2))
    c = 2 * c if kind == 'empty-count' else c // 2
    return ptx[:m.start()] + m.group(1) + '%d;' % c + ptx[m.end():]


MUTANT_WHAT = {
    'stage-step': '`add.u32 %stage, %stage, %pp_stage;` removed',
    'wg2-start': '`mov.u32 %stage, %pp_stage;` removed',
    'phase-flip': '`xor.b32 %phase, %phase, %pp_phase;` removed',
    'no-turns': '`bar.sync %pp_in, 256;` removed (the warpgroups do not take turns)',
    'arrive-always': 'the turn handed over even when the other warpgroup has no next tile',
    'empty-count': 'empty barriers\' count doubled',
    'empty-half': 'empty barriers\' count halved',
}


def describe(label, info):
    return '%s %dx%d %d stages cluster %d (empty count %s)' % (
        label, info['bm'], info['bn'], info['stages'], info['cl'], info['empty_count'])


def prob_text(info, p):
    M, N, K, G, cids, d_tma, beta = p
    return 'M %d N %d K %d (%d K blocks), %d %s%s, d_tma %d beta %g' % (
        M, N, K, -(-K // info['bk']), G * info['cl'], 'CTAs' if G * info['cl'] > 1 else 'CTA',
        '' if len(cids) == G else ' (clusters %s run)' % ','.join(map(str, cids)) if info['cl'] == 2
        else ' (CTAs %s run)' % ','.join(map(str, cids)), d_tma, beta)


def main():
    mmagen = sys.argv[1]
    t0 = time.time()
    passed = failed = problems_run = 0
    results = {}        # options -> the problems the kernel passes
    for label, opts in KERNELS:
        try:
            ptx, info = generate(mmagen, opts)
            kern = Kernel(ptx)
        except (Fail, subprocess.CalledProcessError) as e:
            failed += 1
            print('FAIL %s %s: %s' % (label, ' '.join(opts), e))
            continue
        name = describe(label, info)
        ok = results.setdefault(tuple(opts), [])
        for p in problems(info):
            problems_run += 1
            try:
                st = replay(kern, info, *p)
                passed += 1
                ok.append(p)
                print('ok   %s: %s: %d tiles, %d loads, %d instructions' %
                      (name, prob_text(info, p), st['tiles'] // len(DELIVERY),
                       st['loads'] // len(DELIVERY), st['instructions'] // len(DELIVERY)))
            except Fail as e:
                failed += 1
                print('FAIL %s: %s: %s' % (name, prob_text(info, p), short(e)))
    # a replay that checks nothing would pass these; a mutant counts as
    # caught only on a problem that the kernel itself passes
    caught = 0
    for opts, kinds in MUTANTS:
        ptx, info = generate(mmagen, opts)
        label = '%s %s' % (opts[1], info['schedule'])
        good = results.get(tuple(opts))
        if good is None:
            good = []
            for p in problems(info):
                try:
                    replay(Kernel(ptx), info, *p)
                    good.append(p)
                except Fail:
                    pass
        for kind in kinds:
            bad = mutate(ptx, kind)
            what = '%s with %s' % (describe(label, info), MUTANT_WHAT[kind])
            if bad is None:
                failed += 1
                print('FAIL mutant %s: nothing to mutate' % what)
                continue
            err = None
            try:
                kern = Kernel(bad)
                for p in good:
                    try:
                        replay(kern, info, *p)
                    except Unfollowable:
                        raise
                    except Fail as e:
                        err = (p, e)
                        break
            except Unfollowable as e:
                failed += 1
                print('FAIL mutant %s: the replay could not follow it: %s' % (what, short(e)))
                continue
            if err:
                passed += 1
                caught += 1
                print('ok   mutant %s: caught on %s: %s' % (what, prob_text(info, err[0]), short(err[1])))
            else:
                failed += 1
                print('FAIL mutant %s: the replay found nothing wrong in the %d problem(s) that the '
                      'kernel itself passes (of %d)' % (what, len(good), len(problems(info))))
    print('%d kernels, %d problems, %d mutants: %d passed, %d failed (%d mutants caught) in %.1f s' %
          (len(KERNELS), problems_run, sum(len(k) for _, k in MUTANTS), passed, failed, caught,
           time.time() - t0))
    return 1 if failed else 0


def short(e, n=900):
    """a failure's text, wgmma's register lists left out"""
    s = re.sub(r'\{%[^}]*\}', '{...}', str(e))
    return s if len(s) <= n else s[:n] + ' ...'


if __name__ == '__main__':
    sys.exit(main())
