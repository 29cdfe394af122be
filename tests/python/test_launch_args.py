"""What gemm() hands the launcher, without a GPU: the extension's
gemm_new and gemm_launch replaced by recorders, operands faked with
__cuda_array_interface__, so that layouts, leading dimensions, pointers
and scalars read from strides are checked against values worked out by
hand here (a wrong stride sent to the kernel reads the wrong bytes
without any error)."""
from __future__ import annotations

from typing import Any, Dict, List, Optional, Tuple

import pytest

import mmagen
from mmagen import _gemm

SIZE = {"<f2": 2, "<f4": 4, "|i1": 1, "|u1": 1, "<i4": 4}


class F:
    """A fake CUDA matrix: rows x cols with element strides (s0, s1)."""

    def __init__(self, rows: int, cols: int, t: str = "<f2", strides: Optional[Tuple[int, int]] = None,
                 addr: int = 0x10000) -> None:
        s0, s1 = strides if strides is not None else (cols, 1)
        e = SIZE[t]
        self.addr = addr
        self.__cuda_array_interface__: Dict[str, Any] = {
            "shape": (rows, cols), "typestr": t, "data": (addr, False),
            "strides": (s0 * e, s1 * e), "version": 3}


class Recorder:
    def __init__(self) -> None:
        self.new: List[Tuple[Any, ...]] = []
        self.launch: List[Tuple[Any, ...]] = []

    def gemm_new(self, device: int, *fields: Any) -> str:
        self.new.append((device,) + fields)
        return "handle"

    def gemm_launch(self, *args: Any) -> int:
        self.launch.append(args)
        return 0


@pytest.fixture
def rec(monkeypatch: pytest.MonkeyPatch) -> Recorder:
    r = Recorder()
    monkeypatch.setattr(_gemm._native, "gemm_new", r.gemm_new)
    monkeypatch.setattr(_gemm._native, "gemm_launch", r.gemm_launch)
    monkeypatch.setattr(_gemm, "torch_module", lambda: None)
    _gemm.clear_cache()
    yield r
    _gemm.clear_cache()


LAYOUT = {0: "tn", 1: "nn", 2: "nt", 3: "tt"}


def run(rec: Recorder, a: F, b: F, out: F, **kw: Any) -> Dict[str, Any]:
    mmagen.gemm(a, b, out=out, **kw)
    new, args = rec.new[-1], rec.launch[-1]
    names = ["h", "stream", "m", "n", "k", "a", "b", "c", "d", "lda", "ldb", "ldc", "ldd",
             "alpha", "beta", "d_scale", "scratch", "scratch_bytes"]
    got = dict(zip(names, args))
    got["layout"] = LAYOUT[new[6]]
    got["types"] = new[2:5]
    return got


def test_tn_with_pitches(rec: Recorder) -> None:
    a = F(100, 64, strides=(72, 1), addr=0x1000)          # row-major, lda 72
    b = F(64, 40, strides=(1, 80), addr=0x2000)           # column-major, ldb 80
    d = F(100, 40, strides=(48, 1), addr=0x3000)
    g = run(rec, a, b, d)
    assert (g["layout"], g["m"], g["n"], g["k"]) == ("tn", 100, 40, 64)
    assert (g["a"], g["b"], g["d"], g["lda"], g["ldb"], g["ldd"]) == (0x1000, 0x2000, 0x3000, 72, 80, 48)
    assert g["types"] == ("f16", "f16", "f16")
    assert (g["c"], g["beta"], g["alpha"]) == (0, 0.0, 1.0)


def test_mn_major(rec: Recorder) -> None:
    a = F(100, 64, strides=(1, 104))                      # column-major: M-major, lda 104
    b = F(64, 40, strides=(48, 1))                        # row-major: N-major, ldb 48
    g = run(rec, a, b, F(100, 40))
    assert (g["layout"], g["lda"], g["ldb"]) == ("nt", 104, 48)
    g = run(rec, F(100, 64), b, F(100, 40))
    assert (g["layout"], g["lda"], g["ldb"]) == ("tt", 64, 48)


def test_size_one_dims(rec: Recorder) -> None:
    # M = 1 with any row stride: row-major, lda = K
    g = run(rec, F(1, 64, strides=(999, 1)), F(64, 40, strides=(1, 64)), F(1, 40))
    assert (g["layout"], g["lda"], g["ldb"]) == ("tn", 64, 64)
    # N = 1, B with unit strides both ways: K-major preferred, ldb = K
    g = run(rec, F(8, 64, "|i1"), F(64, 1, "|i1", strides=(1, 1)), F(8, 1, "<i4"))
    assert (g["layout"], g["ldb"], g["types"]) == ("tn", 64, ("s8", "s8", "s32"))
    # M = 1, A whose K stride is 64: not K-major; s8 needs K-major
    with pytest.raises(mmagen.MmagenError, match="a.contiguous"):
        run(rec, F(1, 512, "|i1", strides=(1, 64)), F(512, 8, "|i1", strides=(1, 512)),
            F(1, 8, "<i4"))
    # N = 1, B whose K stride is 64 (a column of a row-major matrix)
    with pytest.raises(mmagen.MmagenError, match=r"b\.t\(\)"):
        run(rec, F(8, 512, "|i1"), F(512, 1, "|i1", strides=(64, 1)), F(8, 1, "<i4"))
    # f16 takes it M-major instead: lda is the K stride
    g = run(rec, F(1, 512, strides=(1, 64)), F(512, 8, strides=(1, 512)), F(1, 8))
    assert (g["layout"], g["lda"]) == ("nn", 64)


def test_c_scalars_and_types(rec: Recorder) -> None:
    c = F(10, 20, "<f4", strides=(23, 1), addr=0x5000)
    g = run(rec, F(10, 30, "<f4"), F(30, 20, "<f4", strides=(1, 30)), F(10, 20, "<f4"), c=c,
            alpha=2.0, scale_a=0.5, scale_b=0.25)
    assert (g["c"], g["ldc"], g["beta"], g["alpha"]) == (0x5000, 23, 1.0, 0.25)
    assert g["types"] == ("tf32", "tf32", "f32")
    g = run(rec, F(10, 30, "<f4"), F(30, 20, "<f4", strides=(1, 30)), F(10, 20, "<f4"), c=c,
            beta=0.0)
    assert (g["c"], g["beta"]) == (0, 0.0)
    with pytest.raises(mmagen.MmagenError, match="finite"):
        run(rec, F(10, 30), F(30, 20), F(10, 20), scale_a=1e20, scale_b=1e20)


def test_stream_and_device(rec: Recorder) -> None:
    g = run(rec, F(4, 8), F(8, 4), F(4, 4), stream=0x1234, device=0)
    assert g["stream"] == 0x1234
    assert g["scratch_bytes"] == 2**64 - 1      # not torch: the kernel's own buffers
    assert rec.new[-1][0] == 0


def test_block_scales_refused_for_16_bit(rec: Recorder) -> None:
    # (FP8 cannot be faked through __cuda_array_interface__: the GPU tests
    # run block scaling; here the rules that come before it)
    sa, sb = F(4, 1, "<f4"), F(1, 1, "<f4")
    with pytest.raises(mmagen.MmagenError, match="FP8 A and B"):
        run(rec, F(4, 8), F(8, 4), F(4, 4), scale_a=sa, scale_b=sb)
    with pytest.raises(mmagen.MmagenError, match="pairs"):
        run(rec, F(4, 8), F(8, 4), F(4, 4), scale_a=sa)
