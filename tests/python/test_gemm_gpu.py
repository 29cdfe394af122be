"""mmagen.gemm on the GPU against float64 references computed by torch on
fresh random inputs over each type's range, outputs poisoned before each
launch.  Skips without torch and a CUDA device (conftest.gpu)."""
from __future__ import annotations

import threading
from typing import Any, Optional, Tuple

import pytest

import mmagen
from conftest import gpu

pytestmark = gpu

try:
    import torch
except ImportError:  # the module is skipped then (pytestmark)
    torch = None  # type: ignore[assignment]

# relative rounding of D's type
EPS_OUT = {"bfloat16": 2.0**-8, "float16": 2.0**-11, "float32": 2.0**-20,
           "float8_e4m3fn": 2.0**-3, "float8_e5m2": 2.0**-2}


def _name(dt: Any) -> str:
    return str(dt).replace("torch.", "")


def rand(shape: Tuple[int, int], dt: Any, gen: Any) -> Any:
    """Random values over the type's range: FP8 and 8-bit integers as
    random bit patterns (NaN and infinity left out), wider floats as
    normal numbers times powers of two from 2^-8 to 2^8 (f16: 2^-4 to 2^4)."""
    if dt in (torch.float8_e4m3fn, torch.float8_e5m2):
        bits = torch.randint(0, 256, shape, dtype=torch.uint8, device="cuda", generator=gen)
        if dt == torch.float8_e4m3fn:
            bits[(bits & 0x7F) == 0x7F] = 0x3C        # NaN -> 1.5
        else:
            bits[(bits & 0x7C) == 0x7C] = 0x3C        # Inf/NaN -> 1.0
        return bits.view(dt)
    if dt == torch.int8:
        return torch.randint(-128, 128, shape, dtype=torch.int8, device="cuda", generator=gen)
    if dt == torch.uint8:
        return torch.randint(0, 256, shape, dtype=torch.uint8, device="cuda", generator=gen)
    x = torch.randn(shape, dtype=torch.float32, device="cuda", generator=gen)
    # f16: 2^-4 .. 2^4, so that sums over K = 4096 stay below 65504
    span = 4 if dt == torch.float16 else 8
    e = torch.randint(-span, span + 1, shape, device="cuda", generator=gen).float()
    return (x * torch.exp2(e)).to(dt)


def poison(m: int, n: int, dt: Any) -> Any:
    if dt == torch.int32:
        return torch.full((m, n), 0x7F7F7F7F, dtype=torch.int32, device="cuda")
    return torch.full((m, n), float("nan"), dtype=torch.float32, device="cuda").to(dt)


def check(d: Any, a: Any, b: Any, alpha: float = 1.0, beta: float = 0.0, c: Any = None,
          in_rel: float = 2.0**-16) -> None:
    """D against alpha * A @ B + beta * C in float64: integers exactly;
    floats within D's rounding plus a bound relative to sum |a| |b|: the
    sums' (the tensor cores align each step's products to the largest,
    about 2^-22 of it seen on an H200 at K = 4096: 2^-16 leaves room and
    still fails a lost or doubled K slice by orders of magnitude), the
    inputs' rounding to tf32 (2^-8) or FP8's partial sums (2^-9)."""
    ref = alpha * (a.double() @ b.double())
    if c is not None:
        ref = ref + beta * c.double()
    if d.dtype == torch.int32:
        assert torch.equal(d.double(), ref), "int32 D differs from the exact sum"
        return
    mag = alpha * (a.double().abs() @ b.double().abs())
    if c is not None:
        mag = mag + abs(beta) * c.double().abs()
    tol = EPS_OUT[_name(d.dtype)] * ref.abs() + in_rel * mag + 1e-30
    err = (d.double() - ref).abs()
    bad = ~(err <= tol)           # NaN fails
    if bad.any():
        i = int(bad.flatten().nonzero()[0])
        n = d.shape[1]
        raise AssertionError(f"{int(bad.sum())} of {d.numel()} elements off, first at "
                             f"({i // n}, {i % n}): {d.flatten()[i].item()} vs "
                             f"{ref.flatten()[i].item()} (tol {tol.flatten()[i].item():.3g})")


def case(m: int, n: int, k: int, ta: Any, tb: Any, tout: Any, seed: int,
         a_col: bool = False, b_row: bool = True, in_rel: float = 2.0**-16,
         **kw: Any) -> None:
    gen = torch.Generator(device="cuda").manual_seed(seed)
    a = rand((k, m), ta, gen).t() if a_col else rand((m, k), ta, gen)
    b = rand((k, n), tb, gen) if b_row else rand((n, k), tb, gen).t()
    out = poison(m, n, tout)
    d = mmagen.gemm(a, b, tout, out=out, **kw)
    assert d is out
    torch.cuda.synchronize()
    check(d, a, b, kw.get("alpha", 1.0), kw.get("beta") or 0.0, kw.get("c"), in_rel)


SHAPES = [(1, 1, 1), (17, 33, 65), (128, 256, 512), (127, 129, 255), (16, 4096, 4096),
          (300, 500, 1000)]


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("dt", ["bfloat16", "float16"])
@pytest.mark.parametrize("layout", ["tn", "tt", "nn", "nt"])
def test_16bit(shape: Tuple[int, int, int], dt: str, layout: str) -> None:
    t = getattr(torch, dt)
    case(*shape, t, t, t, seed=hash((shape, dt, layout)) & 0xFFFF,
         a_col=layout[0] == "n", b_row=layout[1] == "t")


@pytest.mark.parametrize("dt,out", [("bfloat16", "float32"), ("float16", "float32"),
                                    ("float16", "bfloat16")])
def test_16bit_out(dt: str, out: str) -> None:
    t = getattr(torch, dt)
    case(200, 300, 400, t, t, getattr(torch, out), seed=7, b_row=False)


@pytest.mark.parametrize("shape", SHAPES)
def test_tf32(shape: Tuple[int, int, int]) -> None:
    # A and B rounded to tf32 (10 mantissa bits) before the products
    case(*shape, torch.float32, torch.float32, torch.float32, seed=11, b_row=False,
         in_rel=2.0**-8)


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("ta,tb", [("float8_e4m3fn", "float8_e4m3fn"),
                                   ("float8_e5m2", "float8_e4m3fn"),
                                   ("float8_e5m2", "float8_e5m2")])
@pytest.mark.parametrize("out", ["bfloat16", "float32"])
def test_fp8(shape: Tuple[int, int, int], ta: str, tb: str, out: str) -> None:
    # Hopper's FP8 wgmma keeps about 14 bits of its partial sums between
    # promotions (every 128 K): 2^-9 of sum |a| |b| (seen: 2^-10.8 at K = 255)
    case(*shape, getattr(torch, ta), getattr(torch, tb), getattr(torch, out), seed=13,
         b_row=False, in_rel=2.0**-9)


def test_fp8_out_and_scales() -> None:
    # e4m3 D (saturating), scales as Python floats folded into alpha
    gen = torch.Generator(device="cuda").manual_seed(5)
    a = (torch.randn(64, 256, device="cuda", generator=gen) * 0.25).to(torch.float8_e4m3fn)
    b = (torch.randn(128, 256, device="cuda", generator=gen) * 0.25).to(torch.float8_e4m3fn).t()
    out = poison(64, 128, torch.float8_e4m3fn)
    d = mmagen.gemm(a, b, torch.float8_e4m3fn, out=out, scale_a=0.5, scale_b=0.25)
    torch.cuda.synchronize()
    ref = (0.125 * (a.double() @ b.double())).clamp(-448, 448)
    assert (d.double() - ref).abs().le(2.0**-3 * ref.abs() + 2.0**-9).all()


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("ta,tb", [("int8", "int8"), ("uint8", "int8"), ("uint8", "uint8")])
def test_int8(shape: Tuple[int, int, int], ta: str, tb: str) -> None:
    case(*shape, getattr(torch, ta), getattr(torch, tb), torch.int32, seed=17, b_row=False)


@pytest.mark.parametrize("shape", [(64, 1024, 8192), (129, 255, 100), (256, 256, 256)])
@pytest.mark.parametrize("ta,tout", [("bfloat16", "bfloat16"), ("bfloat16", "float32"),
                                     ("float16", "float16"), ("int8", "int32"),
                                     ("float8_e4m3fn", "bfloat16")])
def test_c_beta(shape: Tuple[int, int, int], ta: str, tout: str) -> None:
    """beta * C through every path: split-K (64 x 1024 x 8192), staged
    (odd sizes, C with ld + 3), plain; C in place of D too."""
    m, n, k = shape
    t, to = getattr(torch, ta), getattr(torch, tout)
    gen = torch.Generator(device="cuda").manual_seed(m * 7 + n)
    a = rand((m, k), t, gen)
    b = rand((n, k), t, gen).t()
    cbig = rand((m, n + 3), to if to != torch.int32 else torch.int8, gen).to(to)
    c = cbig[:, :n]
    out = poison(m, n, to)
    # int32: alpha and beta of 1 (the epilogue scales in f32, inexact past 2^24)
    alpha, beta = (1.0, 1.0) if to == torch.int32 else (0.75, -1.5)
    mmagen.gemm(a, b, out=out, c=c, alpha=alpha, beta=beta)
    torch.cuda.synchronize()
    check(out, a, b, alpha, beta, c, in_rel=2.0**-9 if "float8" in ta else 2.0**-16)
    cc = c.clone()
    mmagen.gemm(a, b, out=c, c=c, alpha=alpha, beta=beta)      # D over C
    torch.cuda.synchronize()
    check(c, a, b, alpha, beta, cc, in_rel=2.0**-9 if "float8" in ta else 2.0**-16)


def test_k_major_degenerate() -> None:
    """M = 1 or N = 1 views of FP8/int8 that are not K-major are refused
    (not read with the wrong stride); K-major ones run."""
    w = torch.randn(512, 64, device="cuda").to(torch.float8_e4m3fn)
    bk = torch.randn(64, 512, device="cuda").to(torch.float8_e4m3fn).t()   # K-major B
    with pytest.raises(mmagen.MmagenError, match="a.contiguous"):
        mmagen.gemm(w.t()[:1], bk)                                        # 1 x 512, stride 64
    with pytest.raises(mmagen.MmagenError, match=r"b\.t\(\)"):
        mmagen.gemm(torch.randn(8, 512, device="cuda").to(torch.float8_e4m3fn), w[:, :1])
    a1 = w.t()[:1].contiguous()
    d = mmagen.gemm(a1, bk)
    torch.cuda.synchronize()
    check(d, a1, bk, in_rel=2.0**-9)
    b1 = w[:, :1].contiguous()                                            # 512 x 1, unit strides
    a8 = torch.randn(8, 512, device="cuda").to(torch.float8_e4m3fn)
    d = mmagen.gemm(a8, b1)
    torch.cuda.synchronize()
    check(d, a8, b1, in_rel=2.0**-9)


def test_fp8_row_major_b_refused() -> None:
    a = torch.zeros(64, 64, device="cuda").to(torch.float8_e4m3fn)
    b = torch.zeros(64, 64, device="cuda").to(torch.float8_e4m3fn)
    with pytest.raises(mmagen.MmagenError, match=r"b\.t\(\)\.contiguous\(\)\.t\(\)"):
        mmagen.gemm(a, b)


def test_defaults_and_c() -> None:
    gen = torch.Generator(device="cuda").manual_seed(3)
    a = rand((100, 64), torch.bfloat16, gen)
    b = rand((64, 72), torch.bfloat16, gen)
    c = rand((100, 72), torch.bfloat16, gen)
    d = mmagen.gemm(a, b)
    assert d.dtype == torch.bfloat16 and d.shape == (100, 72)
    torch.cuda.synchronize()
    check(d, a, b)
    d = mmagen.gemm(a, b, c=c, alpha=0.5)          # beta 1 with c
    torch.cuda.synchronize()
    check(d, a, b, 0.5, 1.0, c)
    d = mmagen.gemm(a, b, c=c, alpha=2.0, beta=-0.75)
    torch.cuda.synchronize()
    check(d, a, b, 2.0, -0.75, c)
    i = mmagen.gemm(a.to(torch.int8), b.t().contiguous().t().to(torch.int8))
    assert i.dtype == torch.int32
    f = mmagen.gemm(a.to(torch.float8_e4m3fn), b.t().contiguous().t().to(torch.float8_e4m3fn))
    assert f.dtype == torch.bfloat16


def test_strided_views() -> None:
    gen = torch.Generator(device="cuda").manual_seed(9)
    big = rand((300, 700), torch.float16, gen)
    a = big[5:205, 3:131]                 # row-major, lda 700, base off 16 bytes
    b = rand((128, 301), torch.float16, gen)[:, 1:301]
    out_big = poison(200, 310, torch.float16)
    out = out_big[:, 5:305]               # ldd 310, base off pairs
    d = mmagen.gemm(a, b, out=out)
    torch.cuda.synchronize()
    check(d, a, b)
    assert out_big[:, :5].isnan().all() and out_big[:, 305:].isnan().all()
    # neither row- nor column-major: copied contiguous
    s = rand((200, 256), torch.float16, gen)[:, ::2]
    d = mmagen.gemm(s, b)
    torch.cuda.synchronize()
    check(d, s, b)


def test_out_rules() -> None:
    a = torch.ones(8, 16, device="cuda", dtype=torch.bfloat16)
    b = torch.ones(16, 24, device="cuda", dtype=torch.bfloat16)
    with pytest.raises(mmagen.MmagenError, match="row-major"):
        mmagen.gemm(a, b, out=torch.empty(24, 8, device="cuda", dtype=torch.bfloat16).t())
    with pytest.raises(mmagen.MmagenError, match="8 x 24"):
        mmagen.gemm(a, b, out=torch.empty(8, 25, device="cuda", dtype=torch.bfloat16))
    with pytest.raises(mmagen.MmagenError, match="holds"):
        mmagen.gemm(a, b, torch.float32, out=torch.empty(8, 24, device="cuda",
                                                         dtype=torch.bfloat16))
    with pytest.raises(mmagen.MmagenError, match="CUDA tensors"):
        mmagen.gemm(a.cpu(), b)
    with pytest.raises(mmagen.MmagenError, match="dimensions"):
        mmagen.gemm(a[None], b)
    with pytest.raises(mmagen.MmagenError, match="needs c"):
        mmagen.gemm(a, b, beta=1.0)


def test_interfaces() -> None:
    """The same GEMM through __cuda_array_interface__ and DLPack objects."""
    class CAI:
        def __init__(self, t: Any) -> None:
            self.t = t
            self.__cuda_array_interface__ = t.__cuda_array_interface__

    class DL:
        def __init__(self, t: Any) -> None:
            self.t = t

        def __dlpack__(self, stream: Optional[int] = None) -> Any:
            return self.t.__dlpack__()

        def __dlpack_device__(self) -> Any:
            return self.t.__dlpack_device__()

    gen = torch.Generator(device="cuda").manual_seed(21)
    a = rand((96, 160), torch.float16, gen)
    b = rand((224, 160), torch.float16, gen).t()
    for wrap in (CAI, DL):
        out = poison(96, 224, torch.float16)
        mmagen.gemm(wrap(a), wrap(b), out=wrap(out))
        torch.cuda.synchronize()
        check(out, a, b)
    ab = rand((96, 160), torch.bfloat16, gen)
    bb = rand((160, 224), torch.bfloat16, gen)
    out = poison(96, 224, torch.bfloat16)
    mmagen.gemm(DL(ab), DL(bb), out=DL(out))
    torch.cuda.synchronize()
    check(out, ab, bb)
    with pytest.raises(mmagen.MmagenError, match="out= is needed"):
        mmagen.gemm(CAI(a), CAI(b))


def test_mma_sync_path() -> None:
    gen = torch.Generator(device="cuda").manual_seed(23)
    a = rand((77, 96), torch.bfloat16, gen)
    b = rand((96, 130), torch.bfloat16, gen)
    out = poison(77, 130, torch.bfloat16)
    mmagen.gemm(a, b, out=out, arch="sm_80")
    torch.cuda.synchronize()
    check(out, a, b)


def _garble_scratch() -> None:
    """The scratch kept per stream filled with 0xFF: a launch (or a
    replayed graph) that relied on what an earlier one left there fails."""
    from mmagen import _gemm
    for t in list(_gemm._scratch.values()):
        t.fill_(0xFF)


def _splits(m: int, n: int, k: int) -> bool:
    abi = mmagen.gemm_kernel("sm_90a", "bf16", "bf16", "bf16", problem=(m, n, k),
                             sms=mmagen.device_info(0).sms, format="abi")
    return "split none" not in abi


@pytest.mark.parametrize("shape,off", [((256, 512, 1024), 0), ((64, 1024, 8192), 0),
                                       ((32, 2048, 8192), 0), ((33, 1000, 3000), 1)])
def test_graph_capture(shape: Tuple[int, int, int], off: int) -> None:
    """Capture after a warm-up; the split-K shapes take scratch inside the
    capture (from the graph's pool), the offset one stages A."""
    m, n, k = shape
    if m <= 64 and not off:
        assert _splits(m, n, k), f"{shape} should be a split-K launch"
    gen = torch.Generator(device="cuda").manual_seed(m)
    abig = rand((m, k + off), torch.bfloat16, gen)
    a = abig[:, off:]                      # off 1: base off 16 bytes, staged
    b = rand((n, k), torch.bfloat16, gen).t()
    d = mmagen.gemm(a, b)                  # warm-up: the kernel for the shape
    torch.cuda.synchronize()
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        d = mmagen.gemm(a, b)
    for i in range(3):
        abig.copy_(rand((m, k + off), torch.bfloat16, gen))
        b.copy_(rand((n, k), torch.bfloat16, gen).t())
        d.fill_(float("nan"))
        _garble_scratch()
        mmagen.gemm(rand((m, k), torch.bfloat16, gen), b)   # eager launches between replays
        g.replay()
        torch.cuda.synchronize()
        check(d, a, b)


def test_two_streams() -> None:
    gen = torch.Generator(device="cuda").manual_seed(31)
    s1, s2 = torch.cuda.Stream(), torch.cuda.Stream()
    jobs = []
    for i in range(6):
        m, n, k = (16, 4096, 4096) if i % 2 else (200, 1000, 2000)
        a = rand((m, k), torch.bfloat16, gen)
        b = rand((k, n), torch.bfloat16, gen)
        jobs.append((a, b))
    torch.cuda.synchronize()
    outs = []
    for i, (a, b) in enumerate(jobs):
        s = s1 if i % 2 else s2
        with torch.cuda.stream(s):
            outs.append(mmagen.gemm(a, b))
    torch.cuda.synchronize()
    for (a, b), d in zip(jobs, outs):
        check(d, a, b)


def test_threads() -> None:
    errors = []
    gen = torch.Generator(device="cuda").manual_seed(37)
    inputs = [(rand((16 + 40 * t, 1024), torch.float16, gen),
               rand((1024, 2048), torch.float16, gen)) for t in range(4)]
    torch.cuda.synchronize()

    def work(t: int) -> None:
        try:
            s = torch.cuda.Stream()
            a, b = inputs[t]
            with torch.cuda.stream(s):
                for _ in range(20):
                    d = mmagen.gemm(a, b)
            s.synchronize()
            check(d, a, b)
        except Exception as e:  # reported below
            errors.append(repr(e))

    th = [threading.Thread(target=work, args=(t,)) for t in range(4)]
    for x in th:
        x.start()
    for x in th:
        x.join()
    assert not errors, errors


def test_devices() -> None:
    n = torch.cuda.device_count()
    info = mmagen.device_info(0)
    assert info[3] == torch.cuda.get_device_properties(0).multi_processor_count
    assert (info[0], info[1]) == torch.cuda.get_device_capability(0)
    with pytest.raises(mmagen.MmagenError, match=f"device {n} not found"):
        mmagen.device_info(n)
    before = torch.cuda.current_device()
    a = torch.ones(8, 8, device="cuda", dtype=torch.float16)
    mmagen.gemm(a, a)
    assert torch.cuda.current_device() == before
    if n == 1:
        class CAI:
            def __init__(self, t: Any) -> None:
                self.__cuda_array_interface__ = t.__cuda_array_interface__
        with pytest.raises(mmagen.MmagenError, match="device 1 not found"):
            mmagen.gemm(CAI(a), CAI(a), out=CAI(a), device=1)
    else:
        with torch.cuda.device(1):
            a1 = torch.ones(8, 8, device="cuda:1", dtype=torch.float16)
            d = mmagen.gemm(a1, a1)
            assert d.device.index == 1 and torch.equal(d, a1 @ a1)


def test_scratch_shared() -> None:
    """Split-K kernels of different shapes one after another on one stream
    share its scratch: each launch must reset its own counters (a stale
    counter from another kernel's workspace loses or repeats slices)."""
    gen = torch.Generator(device="cuda").manual_seed(41)
    jobs = [(64, 1024, 8192), (32, 2048, 8192), (8, 1024, 6144), (64, 512, 8192)]
    for m, n, k in jobs:       # each a split-K kernel (else this tests nothing)
        assert _splits(m, n, k), (m, n, k)
    for rep in range(2):
        for m, n, k in jobs:
            a = rand((m, k), torch.bfloat16, gen)
            b = rand((n, k), torch.bfloat16, gen).t()
            out = poison(m, n, torch.bfloat16)
            _garble_scratch()
            mmagen.gemm(a, b, out=out)
            torch.cuda.synchronize()
            check(out, a, b)


def _block_ref(a: Any, b: Any, sa: Any, sb: Any) -> Tuple[Any, Any]:
    """(A * SA) @ (B * SB) in float64, each scale spread over its block,
    and the same of absolute values (the tolerance's scale)."""
    m, k = a.shape
    n = b.shape[1]
    SA = sa.double().repeat_interleave(128, dim=1)[:, :k]
    SB = sb.double().repeat_interleave(128, dim=0)[:k].repeat_interleave(128, dim=1)[:, :n]
    x, y = a.double() * SA, b.double() * SB
    return x @ y, x.abs() @ y.abs()


@pytest.mark.parametrize("shape", [(128, 256, 512), (129, 300, 136), (1, 1, 1), (64, 1024, 8192),
                                   (300, 500, 1000), (256, 384, 7168)])
@pytest.mark.parametrize("layout", ["row", "col"])
@pytest.mark.parametrize("tout", ["bfloat16", "float32"])
def test_fp8_block_scaled(shape: Tuple[int, int, int], layout: str, tout: str) -> None:
    """DeepSeek-V3's FP8: f32 scales per 1 x 128 of A and 128 x 128 of B,
    row-major or as transposed views (DeepGEMM's M- and K-major scales),
    K not a multiple of 128 (136, 1000), random FP8 over the type's range
    and scales from 2^-12 to 2^4 (powers of two and not)."""
    m, n, k = shape
    kb, nb = (k + 127) // 128, (n + 127) // 128
    gen = torch.Generator(device="cuda").manual_seed(m * 31 + n + k)
    a = rand((m, k), torch.float8_e4m3fn, gen)
    b = rand((n, k), torch.float8_e5m2 if k % 2 else torch.float8_e4m3fn, gen).t()

    def scales(r: int, c: int) -> Any:
        e = torch.randint(-12, 5, (r, c), device="cuda", generator=gen).float()
        f = torch.rand((r, c), device="cuda", generator=gen) + 0.5
        return torch.exp2(e) * torch.where(f > 1.2, f, torch.ones_like(f))

    if layout == "row":
        sa, sb = scales(m, kb), scales(kb, nb)
    else:   # M-major A scales (kb x m) and DeepGEMM's (nb x kb) B scales, as views
        sa, sb = scales(kb, m).t(), scales(nb, kb).t()
    to = getattr(torch, tout)
    out = poison(m, n, to)
    d = mmagen.gemm(a, b, to, out=out, scale_a=sa, scale_b=sb)
    torch.cuda.synchronize()
    ref, mag = _block_ref(a, b, sa, sb)
    tol = EPS_OUT[tout] * ref.abs() + 2.0**-9 * mag + 1e-30
    bad = ~((d.double() - ref).abs() <= tol)
    assert not bad.any(), (f"{int(bad.sum())} of {d.numel()} off, e.g. {d[bad][0].item()} vs "
                           f"{ref[bad][0].item()}")


def test_fp8_block_scaled_rules() -> None:
    a = torch.zeros(64, 256, device="cuda").to(torch.float8_e4m3fn)
    b = torch.zeros(128, 256, device="cuda").to(torch.float8_e4m3fn).t()
    sa, sb = torch.ones(64, 2, device="cuda"), torch.ones(2, 1, device="cuda")
    with pytest.raises(mmagen.MmagenError, match="pairs"):
        mmagen.gemm(a, b, scale_a=sa)
    with pytest.raises(mmagen.MmagenError, match="2 x 1"):
        mmagen.gemm(a, b, scale_a=sa, scale_b=torch.ones(1, 2, device="cuda"))
    with pytest.raises(mmagen.MmagenError, match="float32"):
        mmagen.gemm(a, b, scale_a=sa.half(), scale_b=sb)
    with pytest.raises(mmagen.MmagenError, match="FP8"):
        mmagen.gemm(a.half(), b.half(), scale_a=sa, scale_b=sb)
    with pytest.raises(mmagen.MmagenError, match="contiguous"):
        mmagen.gemm(a, b, scale_a=torch.ones(1, 1, device="cuda").expand(64, 2), scale_b=sb)
