#!/usr/bin/env python3
"""replay_sm90_epilogue.py MMAGEN - the sm_90a GEMM's staged epilogue run
on the CPU.

For a set of GEMM variants that MMAGEN generates, the consumer
warpgroups' epilogue setup and epilogue (the emitted PTX, between
`$consumer:` and the tile loop, and between `$c_epilogue:` and the end of
the tile) run for all 256 consumer threads.  The cooperative schedule:
both warpgroups in lockstep over three tiles of a persistent CTA,
warpgroup w storing rows 64(w-1).. of each.  Ping-pong (--schedule
pingpong): each warpgroup its own tiles, the first the CTA's tiles 0, 2,
4, the second 1, 3, 5 (run in turn, each with its own stores, waits and
buffer rotation carried from tile to tile), storing all 128 rows of each
in two halves.  The accumulators hold symbols ("D", row, col) from
wgmma's m64nNk16 register layout (restated here from the PTX ISA, not
taken from the generator): thread lane l of warp w of the warpgroup holds,
for column group j, registers 4j+2h+i = row 16w + l/4 + 8h, column
8j + 2(l%4) + i (f16 accumulators: register 2j+h holds both columns),
rows counted from the warpgroup's 64 (cooperative) or from the half's
(ping-pong: the registers are found in the K loop, two wgmma a K step,
the first writing one run of registers from A's rows 0-63, the second,
whose A descriptor is the first's + 64 rows, another run: rows 64-127).
stmatrix.m8n8.x4 is replayed with the ISA's semantics: thread 8q+r gives
the address of row r of matrix q, and register q of thread 4r+c holds
row r, columns 2c and 2c+1.

Checked for every variant:
  - each TMA store's 64-row x 128-byte box, read with the 128-byte
    swizzle (16-byte unit u of row r at unit u ^ (r % 8)), holds
    D(y + r, x + c) at every position;
  - the boxes stored for a tile are each 64 rows x 128 bytes of the rows
    the warpgroup owns (cooperative: its 64; ping-pong: y = m0 and
    m0 + 64) once, and nothing else;
  - every staging write lies in its warpgroup's buffers, which end before
    the barriers;
  - no write touches bytes that a TMA store still reads (not waited for
    with cp.async.bulk.wait_group.read, or waited for by the issuer with
    no bar.sync since), and no store reads bytes written without
    fence.proxy.async and a bar.sync of the warpgroup after it;
  - the shared-memory banks of each stmatrix matrix and st.shared:
    conflict-free, except 32-bit D's v2.b32 (2 ways per half warp).
Then the same replay must fail on mutated kernels (two stmatrix registers
swapped, the swizzle key dropped, the fence or the wait removed; with one
buffer, a chunk that waits for one store too few or a warpgroup that does
not sync after the issuer's wait; with buffers taken in turn, a chunk that
leaves one store too many unread; ping-pong: the second half's box stored
at the first half's y, the second half storing the first run of
accumulators, the second half's first chunk taking a buffer without
waiting for its last store, and the cases above on ping-pong kernels), so
that a replay that checks nothing cannot pass.  Exit 0 when all is as
stated, 1 otherwise."""
import re
import subprocess
import sys

from ptx_ops import split_ops, unslot

CHUNK = 64 * 128          # one staging buffer: 64 rows x 128 bytes
M32 = 0xffffffff


class Fail(Exception):
    pass


def parse(line):
    """(label, name), (ins, pred, opcode, operands) or None"""
    line = line.split('//')[0].strip()
    if not line:
        return None
    if line.endswith(':'):
        return ('label', line[:-1])
    pred = None
    m = re.match(r'@(!?)(%\w+)\s+(.*)', line)
    if m:
        pred = (m.group(1) == '!', m.group(2))
        line = m.group(3)
    op, _, rest = line.rstrip(';').partition(' ')
    return ('ins', pred, op, split_ops(rest))


def regs_of(vec):
    return vec.strip().strip('{}').replace(' ', '').split(',')


def acc_sets(lines):
    """the accumulator registers of the consumer's K loop, in the order of
    the rows they hold, and a wgmma line: one run of registers (the
    cooperative form), or two (ping-pong: each K step's first wgmma
    computes A's rows 0-63 of the stage, the second, whose A descriptor is
    the first's + 64 rows of 128 bytes (512 in descriptor units), rows
    64-127)"""
    mma = [parse(l) for l in lines if re.match(r'\s*wgmma\.mma_async', l)]
    sets = []
    for _, _, _, o in mma:
        if regs_of(o[0]) not in sets:
            sets.append(regs_of(o[0]))
    if len(sets) == 1:
        return sets, lines[max(i for i, l in enumerate(lines) if 'wgmma.mma_async' in l)]
    if len(sets) != 2 or len(mma) % 2:
        raise Fail('%d runs of accumulator registers in %d wgmma' % (len(sets), len(mma)))
    for first, second in zip(mma[0::2], mma[1::2]):
        if (regs_of(first[3][0]), regs_of(second[3][0])) != (sets[0], sets[1]):
            raise Fail('the wgmma of a K step do not write the two runs in turn')
        a0, a1 = first[3][1], second[3][1]
        if not any(re.match(r'\s*add\.s64 %s, %s, 512;' % (a1, a0), l) for l in lines):
            raise Fail('the second wgmma of a K step does not read A 64 rows on (%s, %s)' % (a0, a1))
    return sets, [l for l in lines if re.match(r'\s*wgmma\.mma_async', l)][-1]


class Thread:
    def __init__(self, wg, w, l):
        self.wg, self.w, self.l = wg, w, l
        self.r = {'%wg': wg, '%warp': 4 * wg + w, '%lane': l}
        self.skip = None


class WGState:
    """what a warpgroup's TMA stores and staging writes are doing"""
    def __init__(self):
        self.pending = []     # committed groups of stores, not yet waited for
        self.open = []        # stores not yet committed
        self.waited = []      # waited for by the issuer, no bar.sync since
        self.dirty = {}       # byte -> thread, written since the last fence + bar
        self.fenced = set()   # threads that fenced since their last write


class Replay:
    def __init__(self, ptx, bm, bn, esize, beta):
        self.ptx = ptx.split('\n')
        self.bm, self.bn, self.es, self.beta = bm, bn, esize, beta
        self.errors = []
        self.banks = {}
        self.mem = {}
        self.stores = 0
        self.boxes = {}       # tile -> (warpgroup, x, y) of each TMA store
        self.wgs = {1: WGState(), 2: WGState()}
        p = self.ptx
        cons = self.find(r'^\$consumer:')
        self.a0 = self.find(r'or\.b64 %desc_b', cons) + 1
        self.a1 = self.find(r'setp\.eq\.u32 %leader', self.a0)
        self.b0 = self.find(r'^\$c_epilogue:', self.a1)
        self.b1 = self.find(r'^\$c_(tile|unit)_done:', self.b0)
        body = '\n'.join(p[cons:self.b0])
        self.mlim = re.search(r'min\.u32 (%r\d+), %r\d+, %m;', body).group(1)
        i = self.find(r'mov\.u32 %r\d+, mmagen_smem', self.a0)
        self.srow = re.search(r'mov\.u32 (%r\d+), mmagen_smem', p[i]).group(1)
        self.d_off = int(re.search(r'add\.u32 %r\d+, %r\d+, (\d+);', p[i + 1]).group(1))
        self.bar_off = int(re.search(r'add\.u32 %full, %smem, (\d+);', '\n'.join(p)).group(1))
        # the accumulators: register -> (half, index); half None for the
        # cooperative form (the warpgroup's 64 rows), 0 or 1 for ping-pong
        # (the first or the second wgmma of each K step); FP8 adds them
        # into sums (add.f32 s, s, partial), which the epilogue reads
        sets, wg_line = acc_sets(p[cons:self.b0])
        self.pingpong = len(sets) == 2
        self.acc_f16 = re.search(r'm64n\d+k\d+\.(\w+)\.', wg_line).group(1) == 'f16'
        self.acc = {}
        for h, dest in enumerate(sets):
            for k, r in enumerate(dest):
                self.acc[r] = (h if self.pingpong else None, k)
        sums = {}
        for l in p[cons:self.b0]:
            m = re.match(r'\s*add\.f32 (%f\d+), \1, (%f\d+);', l)
            if m and m.group(2) in self.acc:
                sums[m.group(1)] = self.acc[m.group(2)]
        if sums:
            self.acc = sums
        self.params = {'pn': 1 << 20, 'pldd': 1 << 20, 'pldc': 1 << 20, 'palpha': 1.0,
                       'pbeta': beta, 'pd_tma': 1, 'pd': 0, 'pc': 0, 'pd_scale': 1.0,
                       'pm': 1 << 20}

    def find(self, pat, start=0):
        for i in range(start, len(self.ptx)):
            if re.search(pat, self.ptx[i]):
                return i
        raise Fail('no line matches ' + pat)

    def err(self, s):
        if len(self.errors) < 20:      # a broken kernel can make millions
            self.errors.append(s)

    def acc_value(self, t, hk, tile):
        m0, n0 = tile
        half, k = hk
        row = m0 + 64 * (t.wg - 1 if half is None else half) + 16 * t.w + t.l // 4
        col = n0 + 2 * (t.l % 4)
        if self.acc_f16:
            j, h = k // 2, k % 2
            return [('D', row + 8 * h, col + 8 * j), ('D', row + 8 * h, col + 8 * j + 1)]
        j, h, i = k // 4, (k // 2) % 2, k % 2
        return ('D', row + 8 * h, col + 8 * j + i)

    def val(self, t, o):
        if o.startswith('%'):
            return t.r[o]
        if o == 'mmagen_smem':
            return 0
        if re.match(r'^-?\d+$', o):
            return int(o)
        if o.startswith('0x'):
            return int(o, 16)
        if o.startswith('0f'):
            return 0.0
        raise Fail('operand ' + o)

    @staticmethod
    def addr(t, o):
        m = re.match(r'(%\w+)(?:\+(\d+))?$', o.strip('[]'))
        return t.r[m.group(1)] + int(m.group(2) or 0)

    # ---- staging and stores ----
    def write(self, t, a, sym):
        s = self.wgs[t.wg]
        lo = self.d_off + (t.wg - 1) * self.bufs * CHUNK
        if not lo <= a < lo + self.bufs * CHUNK:
            self.err('wg%d writes byte %d outside its buffers [%d, %d)' %
                     (t.wg, a, lo, lo + self.bufs * CHUNK))
        for st in [x for g in s.pending for x in g] + s.open:
            if st[0] <= a < st[0] + st[3] * 128:
                self.err('write at %d while the store of %d is not waited for' % (a, st[0]))
        for st in s.waited:
            if st[0] <= a < st[0] + st[3] * 128:
                self.err('write at %d: the store of %d was waited for, no bar.sync since' %
                         (a, st[0]))
        self.mem[a] = sym
        s.dirty[a] = t
        s.fenced.discard(id(t))

    def write_pair(self, t, a, v, size):
        """v: a pair of symbols, each `size` bytes"""
        for e in range(2):
            for b in range(size):
                self.write(t, a + e * size + b, (v[e], b))

    def bank_check(self, kind, accesses):
        words = {}
        for a, n in accesses:
            for b in range(0, n, 4):
                words.setdefault((a + b) // 4 % 32, set()).add((a + b) // 4)
        ways = max(len(v) for v in words.values())
        self.banks[kind] = max(self.banks.get(kind, 1), ways)

    def check_store(self, wg, st):
        base, x, y, rows = st
        cols = 128 // self.es
        for r in range(rows):
            for c in range(cols):
                u = c * self.es // 16
                a = base + r * 128 + (u ^ (r % 8)) * 16 + c * self.es % 16
                want = ('D', y + r, x + c)
                for b in range(self.es):
                    got = self.mem.get(a + b)
                    if got != (want, b):
                        self.err('wg%d store of %d at (x %d, y %d): box (%d, %d) byte %d holds %s, not %s' %
                                 (wg, base, x, y, r, c, b, got, want))
                        return

    def complete(self, wg, keep):
        s = self.wgs[wg]
        while len(s.pending) > keep:
            for st in s.pending.pop(0):
                self.check_store(wg, st)
                s.waited.append(st)

    # ---- the interpreter ----
    def run(self, threads, lo, hi, tile):
        i = lo
        while i < hi:
            p = parse(self.ptx[i])
            i += 1
            if not p:
                continue
            if p[0] == 'label':
                for t in threads:
                    if t.skip == p[1]:
                        t.skip = None
                continue
            _, pred, op, o = p
            act = [t for t in threads if t.skip is None]

            def on(t):
                if pred is None:
                    return True
                v = t.r[pred[1]]
                return not v if pred[0] else bool(v)
            self.step(op, o, act, on, tile)

    def step(self, op, o, act, on, tile):
        if op == 'stmatrix.sync.aligned.m8n8.x4.shared.b16':
            for w in sorted(set((t.wg, t.w) for t in act)):
                lanes = {t.l: t for t in act if (t.wg, t.w) == w}
                if len(lanes) != 32:
                    self.err('stmatrix by %d lanes' % len(lanes))
                    return
                regs = regs_of(o[1])
                for q in range(4):
                    rows = []
                    for r in range(8):
                        a = self.addr(lanes[8 * q + r], o[0])
                        if a % 16:
                            self.err('stmatrix row address %d is not 16-byte aligned' % a)
                        rows.append((a, 16))
                        for c in range(4):
                            t = lanes[4 * r + c]
                            self.write_pair(t, a + 4 * c, t.r[regs[q]], 2)
                    self.bank_check('stmatrix', rows)
            return
        if op.startswith('st.shared'):
            for w in sorted(set((t.wg, t.w) for t in act)):
                lanes = [t for t in act if (t.wg, t.w) == w and on(t)]
                wave = []
                for t in lanes:
                    a = self.addr(t, o[0])
                    if op == 'st.shared.v2.b32':
                        v = [t.r[x] for x in regs_of(o[1])]
                        self.write_pair(t, a, v, 4)
                        wave.append((a, 8))
                    elif op == 'st.shared.b32':
                        self.write_pair(t, a, t.r[o[1]], 2)
                        wave.append((a, 4))
                    elif op == 'st.shared.b16':
                        self.write_pair(t, a, t.r[o[1]], 1)
                        wave.append((a, 2))
                    else:
                        raise Fail('store ' + op)
                if op == 'st.shared.v2.b32':      # 256 bytes: two half warps
                    self.bank_check(op, wave[:16])
                    self.bank_check(op, wave[16:])
                elif wave:
                    self.bank_check(op, wave)
            return
        if op == 'bar.sync':
            for wg in sorted(set(t.wg for t in act)):
                n = len([t for t in act if t.wg == wg])
                if n != 128:
                    self.err('bar.sync by %d threads of warpgroup %d' % (n, wg))
                s = self.wgs[wg]
                s.waited = []
                if all(id(t) in s.fenced for t in s.dirty.values()):
                    s.dirty = {}
            return
        if op == 'fence.proxy.async.shared::cta':
            for t in act:
                self.wgs[t.wg].fenced.add(id(t))
            return
        if op.startswith('cp.async.bulk.wait_group.read'):
            for t in act:
                if on(t):
                    self.complete(t.wg, int(o[0]))
            return
        if op == 'cp.async.bulk.commit_group':
            for t in act:
                if on(t):
                    s = self.wgs[t.wg]
                    s.pending.append(s.open)
                    s.open = []
            return
        if op.startswith('cp.async.bulk.tensor.2d.global.shared::cta'):
            for t in act:
                if not on(t):
                    continue
                if (t.w, t.l) != (0, 0):
                    self.err('a TMA store by warp %d lane %d, not the issuer' % (t.w, t.l))
                xy = regs_of(o[0].strip('[]').split(',', 1)[1])
                x, y = t.r[xy[0]], t.r[xy[1]]
                a = self.addr(t, o[1])
                s = self.wgs[t.wg]
                rows = min(self.bm, 64)
                if any(b in s.dirty for b in range(a, a + rows * 128)):
                    self.err('the store of %d reads bytes written without fence.proxy.async + bar.sync' % a)
                if a % 1024:
                    self.err('store from %d: not 1024-byte aligned (128-byte swizzle)' % a)
                s.open.append((a, x, y, rows))
                self.boxes.setdefault(tile, []).append((t.wg, x, y))
                self.stores += 1
            return
        if op.startswith('bra'):
            for t in act:
                if on(t):
                    t.skip = o[0]
            return
        for t in act:
            if on(t):
                self.alu(t, op, o, tile)

    def alu(self, t, op, o, tile):
        R, v = t.r, lambda x: self.val(t, x)
        if op.startswith('ld.param'):
            R[o[0]] = self.params[o[1].strip('[]')]
        elif op in ('cvta.to.global.u64', 'cvta.param.u64', 'mov.b64', 'cvt.rzi.s32.f32'):
            R[o[0]] = 0
        elif op in ('mov.u32', 'mov.b32') and not o[0].startswith('{'):
            R[o[0]] = v(o[1])
        elif op == 'mov.b32':        # {lo, hi} of a pair of f16 accumulators
            h = regs_of(o[0])
            pair = self.acc_value(t, self.acc[o[1]], tile) if o[1] in self.acc else [0.0, 0.0]
            R[h[0]], R[h[1]] = pair
        elif op in ('add.u32', 'add.s32', 'add.u64', 'add.s64'):
            R[o[0]] = v(o[1]) + v(o[2])
        elif op == 'sub.u32':
            R[o[0]] = (v(o[1]) - v(o[2])) & M32
        elif op == 'and.b32':
            R[o[0]] = v(o[1]) & v(o[2])
        elif op == 'or.b32':
            R[o[0]] = v(o[1]) | v(o[2])
        elif op == 'xor.b32':
            R[o[0]] = v(o[1]) ^ v(o[2])
        elif op in ('shl.b32', 'shl.b64'):
            R[o[0]] = v(o[1]) << v(o[2])
        elif op == 'shr.u32':
            R[o[0]] = v(o[1]) >> v(o[2])
        elif op in ('mul.lo.u32', 'mul.wide.u32'):
            R[o[0]] = v(o[1]) * v(o[2])
        elif op == 'mad.lo.u32':
            R[o[0]] = v(o[1]) * v(o[2]) + v(o[3])
        elif op == 'min.u32':
            R[o[0]] = min(v(o[1]), v(o[2]))
        elif op == 'rem.u32':
            R[o[0]] = v(o[1]) % v(o[2])
        elif op == 'cvt.u64.u32':
            R[o[0]] = v(o[1])
        elif op.startswith('setp.'):
            a, b = v(o[1]), v(o[2])
            R[o[0]] = {'eq': a == b, 'ne': a != b, 'lt': a < b, 'ge': a >= b,
                       'neu': a != b}[op.split('.')[1]]
        elif op == 'and.pred':
            R[o[0]] = R[o[1]] and R[o[2]]
        elif op == 'not.pred':
            R[o[0]] = not R[o[1]]
        elif op in ('mul.f32', 'mul.lo.s32'):
            # alpha * accumulator (or d_scale * value): the symbol goes on
            a, b = o[1], o[2]
            if b in self.acc:
                R[o[0]] = self.acc_value(t, self.acc[b], tile)
            elif a in self.acc:
                R[o[0]] = self.acc_value(t, self.acc[a], tile)
            else:
                R[o[0]] = R[a] if isinstance(R.get(a), tuple) else R[b]
        elif op in ('cvt.f32.f16', 'cvt.rn.f32.s32'):
            R[o[0]] = R[o[1]]
        elif op in ('fma.rn.f32', 'mad.lo.s32'):   # + beta * C: the symbol stays
            R[o[0]] = R[o[3]]
        elif op in ('mov.f32', 'mov.b16', 'cvt.f32.bf16') or op.startswith('ld.global') or \
                op.startswith('cvt.rn.f16x2.e'):
            R[o[0]] = 0.0
        elif op in ('cvt.rn.bf16x2.f32', 'cvt.rn.f16x2.f32') or op.startswith('cvt.rn.satfinite.e'):
            R[o[0]] = [R[o[2]], R[o[1]]]       # (hi, lo) in: lo in the low half
        else:
            raise Fail('an instruction this replay does not know: %s %s' % (op, ', '.join(o)))

    def go(self, tiles):
        threads = [Thread(wg, w, l) for wg in (1, 2) for w in range(4) for l in range(32)]
        self.bufs = 1 << 30       # not known before the setup has run
        self.run(threads, self.a0, self.a1, (0, 0))
        t1, t2 = threads[0], threads[128]
        self.bufs = (t2.r[self.srow] - t1.r[self.srow]) // CHUNK
        if t1.r[self.srow] != self.d_off:
            self.err("the issuer's staging address %d is not the buffers' start %d" %
                     (t1.r[self.srow], self.d_off))
        if self.d_off + 2 * self.bufs * CHUNK > self.bar_off:
            self.err('the staging overlaps the barriers')
        if self.pingpong:
            # each warpgroup its own tiles, all 128 rows of each: the
            # first the CTA's tiles 0, 2, 4, the second 1, 3, 5
            runs = [((t % 2) + 1, tile) for t, tile in enumerate(tiles)]
        else:
            # both warpgroups the same tile, in lockstep
            runs = [(None, tile) for tile in tiles[:3]]
        for wg, (m0, n0) in runs:
            group = [t for t in threads if wg in (None, t.wg)]
            for t in group:
                t.r['%m0'], t.r['%n0'], t.r['%m'] = m0, n0, 1 << 20
                t.r[self.mlim] = m0 + self.bm
                # as the kernel: a warpgroup with no rows in the tile
                # (tile M 64 or less: the second) stores nothing
                first = m0 if self.pingpong else m0 + 64 * (t.wg - 1)
                t.r['%idle'] = first >= t.r[self.mlim]
                t.skip = None
            self.run(group, self.b0, self.b1, (m0, n0))
            # the boxes stored: every 64 rows x 128 bytes of the tile that
            # the warpgroup owns, once each, and nothing else
            want = []
            for w in ((1, 2) if wg is None else (wg,)):
                for half in ((0, 1) if self.pingpong else (w - 1,)):
                    y = m0 + 64 * half
                    if y < m0 + self.bm:
                        want += [(w, x, y) for x in range(n0, n0 + self.bn, 128 // self.es)]
            got = self.boxes.pop((m0, n0), [])
            if sorted(got) != sorted(want):
                self.err('tile (%d, %d): the stores write boxes %s, not %s' %
                         (m0, n0, sorted(set(got) - set(want))[:4] or sorted(got)[:4],
                          sorted(set(want) - set(got))[:4] or sorted(want)[:4]))
        if self.boxes:
            self.err('stores outside the tiles run: %s' % list(self.boxes)[:4])
        if self.bm <= 64 and self.wgs[2].pending:
            self.err('the second warpgroup stored D of a %d-row tile' % self.bm)
        for wg in (1, 2):
            if self.wgs[wg].open:
                self.err('stores never committed')
            self.complete(wg, 0)       # the kernel's exit waits for them
        if not self.stores:
            self.err('no TMA store ran')
        for kind, ways in self.banks.items():
            if ways > (2 if kind == 'st.shared.v2.b32' else 1):
                self.err('%s: %d-way bank conflicts' % (kind, ways))
        return self.errors


def replay(ptx, bm, bn, es, beta):
    # the CTA's tiles, in turn (the cooperative form runs the first three)
    tiles = [(0, 0), (2 * bm, bn), (4 * bm, 0), (2 * bm, 0), (6 * bm, 2 * bn), (0, bn)]
    return Replay(ptx, bm, bn, es, beta).go(tiles)


VARIANTS = [
    # (a, b, out, more options), D's element bytes follow from out
    ('bf16', 'bf16', 'bf16', []),
    ('f16', 'f16', 'f16', ['--tile', '128x128']),
    ('bf16', 'bf16', 'bf16', ['--tile', '128x64']),
    ('bf16', 'bf16', 'f16', ['--tile', '64x256']),
    ('bf16', 'bf16', 'bf16', ['--tile', '16x128']),
    ('bf16', 'bf16', 'bf16', ['--tile', '32x64']),
    ('f16', 'f16', 'f16', ['--acc', 'f16']),
    ('f16', 'f16', 'bf16', ['--acc', 'f16', '--tile', '128x128']),
    ('bf16', 'bf16', 'bf16', ['--layout', 'nt', '--cluster', '1']),
    ('bf16', 'bf16', 'bf16', ['--layout', 'nn', '--tile', '128x128']),
    ('e4m3', 'e5m2', 'bf16', []),                        # one buffer (5 stages)
    ('bf16', 'bf16', 'bf16', ['--tile', '128x192', '--stages', '5']),   # one, asked for
    ('e4m3', 'e4m3', 'e4m3', ['--tile', '128x128']),
    ('tf32', 'tf32', 'f32', []),
    ('f16', 'f16', 'f32', ['--tile', '128x160']),
    ('s8', 's8', 's32', ['--tile', '128x128']),
    # as many buffers as fit, fewer than the chunks, taken in turn over
    # the three tiles: 4 of 6, 5 of 8
    ('s8', 'u8', 's32', ['--tile', '128x192']),
    ('bf16', 'bf16', 'f32', []),
    # ping-pong: each warpgroup stores both 64-row halves of its own tiles
    ('s8', 's8', 's32', ['--schedule', 'pingpong', '--tile', '128x128']),
    ('s8', 's8', 's32', ['--schedule', 'pingpong', '--tile', '128x192']),
    ('bf16', 'bf16', 'bf16', ['--schedule', 'pingpong']),
    ('f16', 'f16', 'f16', ['--acc', 'f16', '--schedule', 'pingpong']),
    ('bf16', 'bf16', 'f32', ['--schedule', 'pingpong', '--tile', '128x192']),
    ('bf16', 'bf16', 'e4m3', ['--schedule', 'pingpong']),
]
ESIZE = {'bf16': 2, 'f16': 2, 'f32': 4, 's32': 4, 'e4m3': 1, 'e5m2': 1}


def generate(mmagen, a, b, out, more):
    args = [mmagen, 'gemm', '--arch', 'sm_90a', '--a', a, '--b', b, '--out', out] + more
    ptx = unslot(subprocess.run(args, check=True, capture_output=True, text=True).stdout)
    m = re.search(r'//\s+tile (\d+) x (\d+) x', ptx)
    return ptx, int(m.group(1)), int(m.group(2))


def mutate(ptx, what):
    """the kernel text with one kind of mistake made everywhere it can be
    (every copy of the epilogue), or None when there is none to make"""
    lines = ptx.split('\n')
    start = next(i for i, l in enumerate(lines) if l.startswith('$c_epilogue:'))
    cons = next(i for i, l in enumerate(lines) if l.startswith('$consumer:'))
    sets = acc_sets(lines[cons:start])[0]
    # ping-pong: the second half's rows are the first's + 64 (add.u32
    # half1, row, 64 with row = mov.u32 row, %m0 + the lane's offset)
    row = re.search(r'(?:mov|add)\.u32 (%r\d+), %m0[,;]', '\n'.join(lines[start:start + 10])).group(1)
    second = False
    done = 0
    for i in range(start, len(lines)):
        l = lines[i]
        if re.match(r'\s*add\.u32 %%r\d+, %s, 64;' % row, l):
            second = True
        if what == 'y64' and re.match(r'\s*add\.u32 %r\d+, %m0, 64;', l) \
                and 'cp.async.bulk.tensor' in lines[i + 1]:
            # ping-pong: the second half's box goes to the first half's rows
            lines[i] = l.replace(', 64;', ', 0;')
        elif what == 'half' and len(sets) == 2 and \
                any(re.search(r'%s\b' % re.escape(r), l) for r in sets[1] if r in l):
            # ping-pong: the second half stores the first run of accumulators
            first = dict(zip(sets[1], sets[0]))
            lines[i] = re.sub(r'%[a-z]+\d+\b', lambda m: first.get(m.group(0), m.group(0)), l)
        elif what == 'wait2' and second and \
                re.match(r'\s*@%p\d+ cp\.async\.bulk\.wait_group\.read', l):
            # buffers in turn: the second half's first chunk takes its
            # buffer without waiting for the store that read it last
            lines[i] = ''
            second = False
        elif what == 'swap' and 'stmatrix' in l:
            r = re.search(r'\{(%r\d+), (%r\d+),', l)
            lines[i] = l.replace(r.group(0), '{%s, %s,' % r.groups()[::-1])
        elif what == 'pair' and 'st.shared.v2.b32' in l:
            r = re.search(r'\{(%\w+), (%\w+)\}', l)
            lines[i] = l.replace(r.group(0), '{%s, %s}' % r.groups()[::-1])
        elif what == 'fence' and 'fence.proxy.async.shared::cta' in l:
            lines[i] = ''
        elif what == 'wait' and 'cp.async.bulk.wait_group.read' in l:
            lines[i] = ''
        elif what == 'read1' and re.match(r'\s*@%p\d+ cp\.async\.bulk\.wait_group\.read 0;', l):
            # one buffer: the chunk no longer waits for the last one's read
            lines[i] = l.replace('read 0;', 'read 1;')
        elif what == 'readk' and re.match(r'\s*@%p\d+ cp\.async\.bulk\.wait_group\.read [1-9];', l):
            # buffers in turn: the chunk leaves one store too many unread
            k = int(re.search(r'read (\d);', l).group(1))
            lines[i] = l.replace('read %d;' % k, 'read %d;' % (k + 1))
        elif what == 'sync' and re.match(r'\s*@%p\d+ cp\.async\.bulk\.wait_group\.read', l) \
                and lines[i + 1].strip().startswith('bar.sync'):
            # the warpgroup no longer waits for the issuer's wait
            lines[i + 1] = ''
        elif what == 'key' and 'stmatrix' in l:
            # the xor that makes this stmatrix's address: the swizzle key
            k = next(k for k in range(i - 1, 0, -1) if lines[k].strip().startswith('xor.b32'))
            r = re.match(r'\s*xor\.b32 (%r\d+), (%r\d+), (\d+);', lines[k])
            lines[k] = '\tmov.u32 %s, %s;' % (r.group(1), r.group(3))
        else:
            continue
        done += 1
    return '\n'.join(lines) if done else None


def main():
    mmagen = sys.argv[1]
    passed = failed = 0
    for a, b, out, more in VARIANTS:
        ptx, bm, bn = generate(mmagen, a, b, out, more)
        what = '%s x %s -> %s %s (tile %ux%u)' % (a, b, out, ' '.join(more), bm, bn)
        for beta in (0.0, 1.0):
            try:
                errors = replay(ptx, bm, bn, ESIZE[out], beta)
            except Fail as e:
                errors = [str(e)]
            if errors:
                failed += 1
                print('FAIL %s beta %g: %s' % (what, beta, '; '.join(errors[:3])))
            else:
                passed += 1
    # a replay that checks nothing would pass these
    for a, b, out, more, kinds in (('bf16', 'bf16', 'bf16', [], ('swap', 'key', 'fence', 'wait')),
                                   ('tf32', 'tf32', 'f32', [], ('pair', 'fence', 'wait')),
                                   ('e4m3', 'e5m2', 'bf16', [], ('read1', 'sync', 'fence')),
                                   ('s8', 'u8', 's32', ['--tile', '128x192'], ('readk', 'sync')),
                                   # ping-pong
                                   ('s8', 's8', 's32', ['--schedule', 'pingpong', '--tile', '128x128'],
                                    ('y64', 'half', 'wait2', 'readk')),
                                   ('f16', 'f16', 'f16', ['--acc', 'f16', '--schedule', 'pingpong'],
                                    ('y64', 'half', 'wait2')),
                                   ('bf16', 'bf16', 'e4m3', ['--schedule', 'pingpong'],
                                    ('y64', 'half', 'read1'))):
        ptx, bm, bn = generate(mmagen, a, b, out, more)
        for kind in kinds:
            bad = mutate(ptx, kind)
            try:
                errors = replay(bad, bm, bn, ESIZE[out], 0.0) if bad else []
            except Fail as e:
                errors = [str(e)]
            if bad and errors:
                passed += 1
            else:
                failed += 1
                print('FAIL %s x %s -> %s with mutation %s: the replay %s' %
                      (a, b, out, kind, 'found nothing wrong' if bad else 'had nothing to mutate'))
    print('%d passed, %d failed' % (passed, failed))
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
