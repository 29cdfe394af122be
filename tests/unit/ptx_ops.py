"""ptx_ops.py - what the CPU replays of emitted PTX (replay_sm90_*.py)
share: an instruction's operand text split at its top-level commas, and
the kernel's registers by name."""

import re


def split_ops(rest):
    """'%r1, [%r2+8], {%f1, %f2}' -> ['%r1', '[%r2+8]', '{%f1, %f2}']:
    commas inside braces and brackets stay with their operand"""
    ops, cur, depth = [], '', 0
    for ch in rest:
        depth += ch in '{['
        depth -= ch in '}]'
        if ch == ',' and depth == 0:
            ops.append(cur.strip())
            cur = ''
        else:
            cur += ch
    if cur.strip():
        ops.append(cur.strip())
    return ops


def unslot(ptx):
    """the sm_90a GEMM's PTX with the registers its template shares with C
    (builder registers such as %r7, named by the kernel's
    `// slots: m0=%r7 ...` comment lines) written by their names (%m0),
    as the replays read them"""
    names = {}
    for line in ptx.split('\n'):
        if '// slots:' in line:
            for name, reg in re.findall(r'(\w+)=(%\w+)', line):
                names[reg] = '%' + name
    if not names:
        raise ValueError('the kernel has no `// slots:` comment')
    return re.sub(r'%\w+', lambda m: names.get(m.group(0), m.group(0)), ptx)
