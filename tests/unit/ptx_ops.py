"""ptx_ops.py - what the CPU replays of emitted PTX (replay_sm90_*.py)
share: an instruction's operand text split at its top-level commas."""


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
