"""Block-scaled FP8 (fp8-block) through mmagen.gemm beside torch's
block-wise torch._scaled_mm (cuBLASLt) and mmagen's per-tensor FP8 GEMM,
in one run: CUDA-event medians of bursts of the same length, random data.

    python tests/bench/fp8_block.py [MxNxK ...]
"""
from __future__ import annotations

import statistics
import sys
from typing import Any, Callable, List, Optional

import torch

import mmagen


def time_ms(fn: Callable[[], Any], reps: int = 20, bursts: int = 7) -> float:
    fn()
    torch.cuda.synchronize()
    out = []
    for _ in range(bursts):
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        s.record()
        for _ in range(reps):
            fn()
        e.record()
        e.synchronize()
        out.append(s.elapsed_time(e) / reps)
    return statistics.median(out)


def torch_blockwise(a: Any, b: Any, sa: Any, sb: Any) -> Optional[Callable[[], Any]]:
    """torch._scaled_mm with 1x128 / 128x128 scales, in the first layout it takes."""
    for sa_, sb_ in ((sa.t().contiguous().t(), sb.t().contiguous().t()), (sa, sb),
                     (sa.t().contiguous().t(), sb.contiguous())):
        try:
            torch._scaled_mm(a, b, sa_, sb_, out_dtype=torch.bfloat16)
            return lambda: torch._scaled_mm(a, b, sa_, sb_, out_dtype=torch.bfloat16)
        except Exception as e:  # noqa: BLE001 - the layouts it refuses
            err = str(e).splitlines()[0][:120]
    print(f"  torch block-wise refused: {err}")
    return None


def main() -> None:
    shapes = [tuple(int(x) for x in s.split("x")) for s in sys.argv[1:]] or \
        [(8192, 8192, 8192), (4096, 7168, 16384), (128, 4096, 4096), (4096, 2112, 7168)]
    print(f"{'shape':20} {'mmagen blk':>10} {'torch blk':>10} {'ratio':>6} {'mmagen pt':>10}  TFLOP/s")
    for m, n, k in shapes:
        a = torch.randn(m, k, device="cuda").to(torch.float8_e4m3fn)
        b = torch.randn(n, k, device="cuda").to(torch.float8_e4m3fn).t()
        sa = torch.rand(m, (k + 127) // 128, device="cuda") + 0.5
        sb = torch.rand((k + 127) // 128, (n + 127) // 128, device="cuda") + 0.5
        out = torch.empty(m, n, device="cuda", dtype=torch.bfloat16)
        flop = 2.0 * m * n * k
        t_blk = time_ms(lambda: mmagen.gemm(a, b, out=out, scale_a=sa, scale_b=sb))
        t_pt = time_ms(lambda: mmagen.gemm(a, b, out=out))
        tb = torch_blockwise(a, b, sa, sb)
        t_t = time_ms(tb) if tb else float("nan")
        f = lambda t: flop / t / 1e9  # noqa: E731
        print(f"{m}x{n}x{k:<8} {f(t_blk):10.0f} {f(t_t):10.0f} {t_t / t_blk:6.2f} {f(t_pt):10.0f}")


if __name__ == "__main__":
    main()
