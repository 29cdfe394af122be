#!/usr/bin/env python3
"""replay_sm90_promote.py MMAGEN - the sm_90a GEMM's consumer K loop run
on the CPU, for FP8 kernels with every promotion interval (--promote 128,
256, 512, 1024) and a bf16 kernel.

The emitted PTX between `$c_kblock:` and `$c_epilogue:` is interpreted
for one consumer warp of either warpgroup (the second one's intervals
start %poff K blocks later), as the lane that releases stages and as one
that does not, with the warpgroup computing or idle (tile rows past M),
over sequences of work units of 1 to 17 K blocks (a split-K kernel's
slices are such units).  wgmma is modelled by the PTX ISA's rules for
async groups: wgmma.commit_group closes a group, wait_group N returns
when at most N are pending; a wgmma with scale-d false starts its
accumulator afresh, and writes the set of registers its braces name
(FP8 tiles under 128 rows keep two sets of partial sums and take K blocks
in pairs, one set promoted while the other's wgmma run).  Checked:
  - each use of a stage is released exactly once by the releasing lane,
    only after the wgmma that read it have retired, and before the warp
    waits on that stage again (else the producer never refills it);
  - the phase a warp waits for is the stage's use count mod 2;
  - at each promotion (the add.f32 of a set of partial sums into the f32
    sums) no wgmma in flight writes that set, and over a unit every
    (K block, k step) product reaches the sums exactly once (bf16: the
    accumulator holds them all);
  - nothing is in flight when the unit's epilogue starts.
Then the same replay must fail on mutated kernels (the K block 0 test of
scale-d dropped, the unit's last block not promoted, an interval's end
moved, a wait that lets one group too many stay in flight, a pair's
waits loosened), so that a
replay that checks nothing cannot pass.  Exit 0 when all is as stated,
1 otherwise.  (Written first by a reviewer as a simulation of the loop.)"""
import re
import subprocess
import sys

from ptx_ops import unslot

def load(txt):
    m = re.search(r'^\$consumer:(.*?)^\$c_epilogue:', txt, re.S | re.M)
    body = m.group(1)
    pre = body[:body.index('$c_tile:')]
    loop = body[body.index('$c_kblock:'):]
    st = int(re.search(r'setp.eq.u32 %p, %stage, (\d+);', loop).group(1))
    return pre, loop, st

def parse(src):
    ins, labels = [], {}
    for line in src.split('\n'):
        line = line.split('//')[0].strip()
        if not line: continue
        if line.endswith(':'):
            labels[line[:-1]] = len(ins); continue
        guard = None
        g = re.match(r'@(!?)(%\w+)\s+(.*)', line)
        if g: guard = (g.group(1) == '!', g.group(2)); line = g.group(3)
        ins.append((guard, line.rstrip(';')))
    return ins, labels

class Fail(Exception): pass

def run(txt, wg, leader, units, idle=False):
    pre, loop, S = load(txt)
    poff = 0
    m = re.search(r'selp.u32 %poff, (\d+), 0, %p', pre)
    if m and wg == 2: poff = int(m.group(1))
    ins, labels = parse(loop + '\n$c_epilogue:\n')
    # (a pair's two blocks come before `$c_single:`, one block's path after)
    one = loop[loop.index('$c_single:'):] if '$c_single:' in loop else loop
    steps_per_kb = one.count('wgmma.mma_async')
    R = {'%stage': 0, '%phase': 0, '%poff': poff, '%leader': leader, '%idle': idle,
         '%full': 1000, '%empty': 2000, '%prev': 0xdead}
    for m in re.finditer(r'setp\.eq\.u32 (%p\d+), 0, 0;', pre): R[m.group(1)] = True
    uses = {}          # stage -> number of full-waits so far
    released = {}      # (stage, use) -> count by this warp
    log = []
    accs = {}          # a set of partial sums (its first register) -> its products
    for u, kblocks in enumerate(units):
        R['%kb'] = 0; R['%kblocks'] = kblocks
        sums = []; pending = []; opengrp = None
        pc = 0; kbuse = {}   # kb -> (stage, use)
        waited = []          # the unit's K blocks in the order their stages were waited on
        steps = 0
        def val(x):
            x = x.strip()
            if x.startswith('%'): return R[x]
            return int(x, 0)
        def retire(n):
            while len(pending) > n:
                grp = pending.pop(0)
                for (kb, k, sd, reg) in grp:
                    accs[reg] = [(kb, k)] if not sd else accs.get(reg, [(-1, -1)]) + [(kb, k)]
        while True:
            steps += 1
            if steps > 100000: raise Fail('loop')
            if pc >= len(ins): break
            guard, op = ins[pc]; pc += 1
            if guard is not None:
                neg, p = guard
                if bool(R[p]) == neg: continue
            name, _, args = op.partition(' ')
            a = [x.strip() for x in args.split(',')] if args else []
            if name in ('bra', 'bra.uni'):
                if a[0] == '$c_epilogue': break
                pc = labels[a[0]]; continue
            if name == 'mbarrier.try_wait.parity.shared::cta.b64':
                bar = R['%bar'] - 1000; assert bar % 8 == 0
                s = bar // 8
                if s != R['%stage']: raise Fail('waits on a stage other than %stage')
                n = uses.get(s, 0)
                # every earlier use of this stage must have been released by this warp
                # (else the producer never refills it: deadlock)
                if leader:
                    for j in range(n):
                        if released.get((s, j), 0) != 1:
                            raise Fail(f'unit {u} kb {R["%kb"]}: waits on stage {s} use {n} before releasing use {j}')
                if R['%phase'] != n % 2: raise Fail('phase mismatch')
                # this wait is for the unit's next K block (a pair's
                # second block waits while %kb still names the first)
                kb = len(waited); waited.append(kb)
                uses[s] = n + 1; kbuse[kb] = (s, n)
                R['%p'] = True; continue
            if name == 'mbarrier.arrive.shared::cta.b64' or name == 'mbarrier.arrive.shared::cluster.b64':
                if not leader: raise Fail('non-leader releases')
                addr = R['%bar'] - 2000; s = addr // 8
                if name.endswith('cluster.b64'):
                    if R['%x'][1] == 1: continue   # count the rank-0 copy only
                    addr = R['%x'][0] - 2000; s = addr // 8
                n = uses.get(s, 0) - 1
                # which use? the most recent one not yet released
                cand = [j for j in range(uses.get(s, 0)) if released.get((s, j), 0) == 0]
                if not cand: raise Fail(f'unit {u} kb {R["%kb"]}: stage {s} released with no unreleased use')
                j = cand[0]
                # wgmma reading that use must have retired
                kbj = [kb for kb, v in kbuse.items() if v == (s, j)]
                for grp in pending:
                    for (kb, k, sd, reg) in grp:
                        if kb in kbj: raise Fail(f'unit {u} kb {R["%kb"]}: stage {s} released while its wgmma (kb {kb}) in flight')
                if opengrp:
                    raise Fail('release with an open group')
                released[(s, j)] = 1
                log.append(('rel', u, R['%kb'], s)); continue
            if name == 'mapa.shared::cluster.u32':
                R[a[0]] = (val(a[1]), int(a[2])); continue
            if name == 'wgmma.fence.sync.aligned': opengrp = []; continue
            if name.startswith('wgmma.mma_async'):
                m = re.search(r'\},\s*(%\w+),\s*(%\w+),\s*(%\w+)', op)
                sd = R[m.group(3)]
                reg = re.search(r'\{\s*(%\w+)', op).group(1)
                kb = waited[-1]
                opengrp.append((kb, sum(1 for e in opengrp if e[0] == kb), sd, reg)); continue
            if name == 'wgmma.commit_group.sync.aligned':
                pending.append(opengrp); opengrp = None; continue
            if name == 'wgmma.wait_group.sync.aligned':
                retire(int(a[0])); continue
            if name == 'add.f32':
                # promote_sums: first add of a run marks one promotion
                if a[0] == a[1]:
                    prev = ins[pc - 2][1] if pc >= 2 else ''
                    if not prev.startswith('add.f32'):
                        # the run's first add reads the set's first register
                        if any(e[3] == a[2] for grp in pending + [opengrp or []] for e in grp):
                            raise Fail(f'unit {u} kb {R["%kb"]}: promotion reads {a[2]} with wgmma writing it in flight')
                        if not idle:
                            if a[2] not in accs: raise Fail('promote of undefined acc')
                            sums.extend(accs.pop(a[2]))
                        log.append(('prom', u, R['%kb']))
                    continue
            if name in ('mul.wide.u32', 'add.u64', 'add.s64'): continue
            if name == 'mov.u32': R[a[0]] = val(a[1]); continue
            if name == 'add.u32': R[a[0]] = (val(a[1]) + val(a[2])) & 0xffffffff; continue
            if name == 'and.b32': R[a[0]] = val(a[1]) & val(a[2]); continue
            if name == 'xor.b32': R[a[0]] = val(a[1]) ^ val(a[2]); continue
            if name == 'shl.b32': R[a[0]] = (val(a[1]) << val(a[2])) & 0xffffffff; continue
            if name == 'and.pred': R[a[0]] = bool(R[a[1]]) and bool(R[a[2]]); continue
            m = re.match(r'setp\.(eq|ne|lt|ge|gt)(?:\.(and|or))?\.u32', name)
            if m:
                x, y = val(a[1]), val(a[2])
                r = {'eq': x == y, 'ne': x != y, 'lt': x < y, 'ge': x >= y, 'gt': x > y}[m.group(1)]
                if m.group(2) == 'and': r = r and bool(R[a[3]])
                if m.group(2) == 'or': r = r or bool(R[a[3]])
                R[a[0]] = r; continue
            raise Fail('unknown ' + op)
        if pending or opengrp: raise Fail(f'unit {u}: wgmma in flight at the epilogue')
        want = sorted((kb, k) for kb in range(kblocks) for k in range(steps_per_kb))
        final = sums if '$c_promote' in loop or 'add.f32' in loop else \
            next(iter(accs.values()), None)
        if not idle and sorted(final) != want:
            raise Fail(f'unit {u} kblocks {kblocks}: sums {sorted(set(final)) if final else final} != each K block once (dups {len(final)-len(set(final))})')
    # all uses released once (leader)
    if leader:
        for s, n in uses.items():
            for j in range(n):
                if released.get((s, j), 0) != 1: raise Fail(f'stage {s} use {j} never released')
    return log


UNITS = ([1], [2], [3], [5], [1, 1, 1], [3, 2, 5, 1, 4, 7, 8, 9, 16, 17], [2, 2, 2, 3], [13])

VARIANTS = [
    ('e4m3', 'e4m3', []),
    ('e4m3', 'e4m3', ['--promote', '256']),
    ('e4m3', 'e5m2', ['--promote', '512', '--cluster', '1']),
    ('e5m2', 'e5m2', ['--promote', '1024']),
    ('e4m3', 'e4m3', ['--promote', '256', '--split-k', '3']),
    ('e4m3', 'e4m3', ['--promote', '512', '--split-k', 'auto', '--tile', '128x64']),
    ('e4m3', 'e4m3', ['--promote', '1024', '--tile', '64x192', '--stages', '2']),
    ('e4m3', 'e4m3', ['--tile', '16x64']),
    ('e4m3', 'e5m2', ['--tile', '64x128', '--split-k', '3']),
    ('e5m2', 'e4m3', ['--tile', '32x96', '--stages', '3']),
    ('bf16', 'bf16', []),
]


def generate(mmagen, a, b, more):
    args = [mmagen, 'gemm', '--arch', 'sm_90a', '--a', a, '--b', b, '--out', 'bf16'] + more
    return unslot(subprocess.run(args, check=True, capture_output=True, text=True).stdout)


def check(txt, crash=None):
    """the first failure over every warpgroup, lane, idleness and unit list;
    crash (a list) collects the replay's own errors, which are failures too
    but do not count as a mutant caught"""
    for wg in (1, 2):
        for idle in (False, True):
            for units in UNITS:
                for leader in (True, False):
                    try:
                        run(txt, wg, leader, units, idle)
                    except Fail as e:
                        return 'wg %d idle %s units %s leader %s: %s' % (wg, idle, units, leader, e)
                    except (KeyError, ValueError, AttributeError, IndexError) as e:
                        if crash is not None:
                            crash.append(e)
                        return 'the replay could not follow the kernel: %r' % e
    return None


def mutate(txt, kind):
    """the kernel with one mistake, or None when there is no place for it"""
    loop = txt.index('$c_kblock:')
    head, body = txt[:loop], txt[loop:]
    if kind == 'kb0':        # scale-d no longer forced to 0 on the unit's first K block
        new = re.sub(r'\tsetp\.ne\.and\.u32 (%p\d+), %kb, 0, \1;\n', '', body, count=1)
    elif kind == 'last':     # the unit's last K block promotes only at an interval's end
        new = re.sub(r'\tsetp\.eq\.or\.u32 %p, %x, %kblocks, %p;\n', '', body, count=1)
    elif kind == 'end':      # the interval ends one K block early
        m = re.search(r'setp\.eq\.u32 %p, %t, (\d+);', body)
        new = body.replace(m.group(0), 'setp.eq.u32 %%p, %%t, %d;' % (int(m.group(1)) - 1), 1) \
            if m and int(m.group(1)) > 0 else body
    elif kind == 'wait':     # the wait before a promotion leaves a group in flight
        new = body.replace('$c_promote:\n\twgmma.wait_group.sync.aligned 0;',
                           '$c_promote:\n\twgmma.wait_group.sync.aligned 1;', 1)
    elif kind == 'release':  # the interval's release lets two groups stay in flight
        new = re.sub(r'(@%p bra\.uni \$c_promote;\n\twgmma\.wait_group\.sync\.aligned )1;',
                     r'\g<1>2;', body, count=1)
    elif kind == 'pair1':    # a pair's first set promoted with its wgmma in flight
        new = re.sub(r'(\twgmma\.commit_group\.sync\.aligned;\n(?:\t//[^\n]*\n)?'
                     r'\twgmma\.wait_group\.sync\.aligned )1;', r'\g<1>2;', body, count=1)
    elif kind == 'pair0':    # a pair's second set promoted with its wgmma in flight
        new = body.replace('$c_released_a:\n\twgmma.wait_group.sync.aligned 0;',
                           '$c_released_a:\n\twgmma.wait_group.sync.aligned 1;', 1)
    elif kind == 'pairrel':  # a pair's first stage released before its wgmma retire
        m = re.search(r'\twgmma\.wait_group\.sync\.aligned 1;\n((?:\tadd\.f32[^\n]*\n)*)'
                      r'(\t@!%leader bra \$c_released_a;\n(?:\t[^\n]*\n)*?\$c_released_a:\n)', body)
        new = body.replace(m.group(0), m.group(2) + '\twgmma.wait_group.sync.aligned 1;\n' +
                           m.group(1), 1) if m else body
    else:
        raise ValueError(kind)
    return head + new if new != body else None


def main():
    mmagen = sys.argv[1]
    passed = failed = 0
    for a, b, more in VARIANTS:
        txt = generate(mmagen, a, b, more)
        what = '%s x %s %s' % (a, b, ' '.join(more))
        err = check(txt)
        if err:
            failed += 1
            print('FAIL %s: %s' % (what, err))
        else:
            passed += 1
    # a replay that checks nothing would pass these
    for more, kinds in ((['--promote', '512'], ('kb0', 'last', 'end', 'wait', 'release')),
                        (['--promote', '256', '--split-k', '3'], ('kb0', 'last', 'wait')),
                        (['--tile', '16x64'], ('pair1', 'pair0', 'pairrel'))):
        txt = generate(mmagen, 'e4m3', 'e4m3', more)
        for kind in kinds:
            bad = mutate(txt, kind)
            crash = []
            err = check(bad, crash) if bad else None
            if bad and err and not crash:
                passed += 1
            else:
                failed += 1
                print('FAIL e4m3 %s with mutation %s: the replay %s' %
                      (' '.join(more), kind, 'had nothing to mutate' if not bad else
                       'could not follow it (%r)' % crash[0] if crash else 'found nothing wrong'))
    print('%d passed, %d failed' % (passed, failed))
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
