"""mmagen.gemm: D = alpha * A @ B + beta * C on CUDA tensors, a kernel
generated for each kind of operands and each shape on first use, then
launched by libmmart from a cache."""
from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Any, Dict, NamedTuple, Optional, Tuple, Union

from . import _native
from ._native import MmagenError
from ._tables import _gemm_fields
from ._tensors import Operand, major, operand, torch_dtype_of, torch_module, torch_type_name

__all__ = ["gemm", "device_info", "DeviceInfo", "clear_cache"]

# A launch may use the kernel's own buffers (operands that are not torch
# tensors: no allocator of the caller's to take scratch from).
_OWN = 2**64 - 1
# Scratch kept for this many (device, stream) pairs, the least recently
# used dropped (a program that makes a stream per request leaves no pile)
_SCRATCH_KEPT = 16

_handles: Dict[Tuple[Any, ...], Any] = {}
_scratch: "OrderedDict[Tuple[int, int], Any]" = OrderedDict()
_lock = threading.Lock()

# the kinds of A and B that a kernel multiplies together
_CLASS = {"bf16": "bf16", "f16": "f16", "tf32": "tf32", "e4m3": "fp8", "e5m2": "fp8",
          "s8": "i8", "u8": "i8"}
# the types D may have (C has D's)
_OUT_TYPES = ("bf16", "f16", "f32", "s32", "e4m3", "e5m2")

# the default type of D for each type of A (B of the same class)
_DEFAULT_OUT = {"bf16": "bf16", "f16": "f16", "tf32": "f32", "e4m3": "bf16", "e5m2": "bf16",
                "s8": "s32", "u8": "s32"}


class DeviceInfo(NamedTuple):
    major: int       # compute capability
    minor: int
    name: str
    sms: int         # multiprocessors


def device_info(device: int = 0) -> DeviceInfo:
    """Compute capability, name and multiprocessors of a CUDA device;
    DeviceError without a driver, MmagenError for a device index the
    machine does not have."""
    _check_device(device)
    return DeviceInfo(*_with_device(device, lambda: _native.device_info(device)))


def clear_cache() -> None:
    """Forget every generated kernel and scratch buffer (they are made
    again on next use)."""
    with _lock:
        _handles.clear()
        _scratch.clear()


def _check_device(device: int) -> None:
    if not isinstance(device, int) or isinstance(device, bool) or device < 0:
        raise MmagenError(f"device {device!r} is not a CUDA device index; give 0, 1, ...")


def _with_device(device: int, fn: Any) -> Any:
    """fn() with torch's current device kept: libmmart makes the device's
    primary context current when it first opens it."""
    torch = torch_module()
    if torch is None or not torch.cuda.is_available():
        return fn()
    if device >= torch.cuda.device_count():
        n = torch.cuda.device_count()
        raise MmagenError(f"CUDA device {device} not found ({n} device{'s' if n != 1 else ''}: "
                          f"give 0{' to ' + str(n - 1) if n > 1 else ''})")
    with torch.cuda.device(device):
        return fn()


def _handle(device: int, arch: Optional[str], ta: str, tb: str, tout: str, layout: str,
            acc: Optional[str], quant: Optional[str]) -> Any:
    key = (device, arch, ta, tb, tout, layout, acc, quant)
    h = _handles.get(key)
    if h is None:
        fields = _gemm_fields(arch, ta, tb, tout, acc, layout, None, None, None, None, None,
                              None, quant)
        try:
            h = _with_device(device, lambda: _native.gemm_new(device, *fields))
        except MmagenError as e:
            raise MmagenError(f"gemm({ta} A {_LAYOUT_WORDS[layout[0]][0]}, {tb} B "
                              f"{_LAYOUT_WORDS[layout[1]][1]} -> {tout}): {e}") from None
        with _lock:
            h = _handles.setdefault(key, h)
    return h


_LAYOUT_WORDS = {"t": ("row-major", "row-major (N-major)"),
                 "n": ("column-major (M-major)", "column-major")}


def _stream_of(torch: Any, device: int, stream: Any) -> int:
    if stream is None:
        if torch is None:
            return 0
        raw = getattr(torch._C, "_cuda_getCurrentRawStream", None)
        if raw is not None:
            return int(raw(device))
        return int(torch.cuda.current_stream(device).cuda_stream)
    if isinstance(stream, int) and not isinstance(stream, bool):
        return stream
    handle = getattr(stream, "cuda_stream", None)
    if isinstance(handle, int):
        return handle
    raise MmagenError(f"stream {stream!r}: give a torch.cuda.Stream or a CUstream as an int")


def _scratch_for(torch: Any, device: int, stream: int, need: int) -> Tuple[int, int, Any]:
    """Device memory for a launch's split-K counters, workspace and
    staging, from torch's allocator on the current stream (the launch's:
    torch operands launch there), any contents (the launch zeroes its
    counters).  Under graph capture a new block each time, from the
    graph's pool (a kept one could be replaced while the graph holds
    it); otherwise kept per (device, stream) and grown by doubling."""
    if torch.cuda.is_current_stream_capturing():
        t = torch.empty(need, dtype=torch.uint8, device=f"cuda:{device}")
        return int(t.data_ptr()), need, t
    key = (device, stream)
    with _lock:
        t = _scratch.get(key)
        if t is None or t.numel() < need:
            t = torch.empty(max(need, 2 * (t.numel() if t is not None else 0)),
                            dtype=torch.uint8, device=f"cuda:{device}")
            _scratch[key] = t
        _scratch.move_to_end(key)
        while len(_scratch) > _SCRATCH_KEPT:
            _scratch.popitem(last=False)
    return int(t.data_ptr()), int(t.numel()), t


_F32_MAX = 3.4028234663852886e38


def _is_number(x: Any) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool)


def _is_array(x: Any) -> bool:
    torch = torch_module()
    return (torch is not None and isinstance(x, torch.Tensor)) or \
        hasattr(x, "__cuda_array_interface__") or hasattr(x, "__dlpack__")


def _block_scales(scale_a: Any, scale_b: Any, m: int, n: int, k: int, ta: str, tb: str,
                  dev: int, stream: int) -> Tuple[int, int, int, int, int, int, Any]:
    """Block scales as tensors: f32, scale_a M x ceil(K/128) (one per row
    and 128 K), scale_b ceil(K/128) x ceil(N/128) (one per 128 x 128 block,
    oriented as b), any strides (a transposed view of DeepGEMM's or
    torch's layout is read in place).  (sa, sb, sa_sm, sa_sk, sb_sn, sb_sk,
    what keeps them alive)."""
    if not _is_array(scale_a) or not _is_array(scale_b):
        raise MmagenError("block scales come in pairs: scale_a (M x ceil(K/128)) and scale_b "
                          "(ceil(K/128) x ceil(N/128)), both float32 tensors")
    if _CLASS.get(ta) != "fp8" or _CLASS.get(tb) != "fp8":
        raise MmagenError(f"block scales (fp8-block) take FP8 A and B, not {ta} and {tb}")
    kb, nb = (k + 127) // 128, (n + 127) // 128
    out = []
    for x, name, rows, cols in ((scale_a, "scale_a", m, kb), (scale_b, "scale_b", kb, nb)):
        S = operand(x, name, stream)
        if S.type != "f32":
            raise MmagenError(f"{name} holds {S.type}: block scales are float32")
        if (S.rows, S.cols) != (rows, cols):
            want = "M x ceil(K/128)" if name == "scale_a" else "ceil(K/128) x ceil(N/128)"
            raise MmagenError(f"{name} is {S.rows} x {S.cols}: give {want} = {rows} x {cols}"
                              f"{' (a (N/128 x K/128) tensor: pass its .t())' if name == 'scale_b' else ''}")
        if S.device >= 0 and S.device != dev:
            raise MmagenError(f"{name} is on cuda:{S.device}, a and b on cuda:{dev}")
        s0 = S.s0 if rows > 1 else 1       # a stride of a dimension of 1 is never used
        s1 = S.s1 if cols > 1 else 1
        if s0 < 0 or s1 < 0 or (s0 == 0 and s1 == 0):
            raise MmagenError(f"{name}'s strides ({S.s0}, {S.s1}): give {name}.contiguous()")
        out.append((S.addr, s0, s1, S.obj))
    (pa, a_m, a_k, ka), (pb, b_k, b_n, kb_) = out
    return pa, pb, a_m, a_k, b_n, b_k, (ka, kb_)


def _float(x: Any, name: str) -> float:
    if isinstance(x, (int, float)) and not isinstance(x, bool):
        v = float(x)
        if not abs(v) <= _F32_MAX:
            raise MmagenError(f"{name} = {x!r}: give a finite f32 number (|x| <= 3.4e38)")
        return v
    raise MmagenError(f"{name} = {x!r}: give a Python number (device tensors of scales come "
                      "with block-scaled FP8)")


def gemm(a: Any, b: Any, out_dtype: Any = None, *, c: Any = None, alpha: float = 1.0,
         beta: Optional[float] = None, scale_a: Optional[float] = None,
         scale_b: Optional[float] = None, out: Any = None, stream: Any = None,
         arch: Optional[str] = None, device: Optional[int] = None,
         acc: Optional[str] = None) -> Any:
    """D = alpha * scale_a * scale_b * (a @ b) + beta * c.

    a (M x K) and b (K x N): torch CUDA tensors (or objects with
    __cuda_array_interface__ or __dlpack__), bfloat16, float16, float32
    (computed as tf32), float8_e4m3fn/float8_e5m2 (any mix), or
    int8/uint8 (any mix).  How each is stored is read from its strides:
    A row- or column-major, B column- or row-major (FP8, int8 and tf32:
    A row-major and B column-major, as torch._scaled_mm takes them);
    other strides are copied contiguous first (torch tensors) or refused.
    scale_a and scale_b are Python numbers (multiplied into alpha) or, for
    FP8 A and B, float32 tensors of block scales (DeepSeek-V3's
    fine-grained FP8, sm_90a): scale_a M x ceil(K/128), one per row and
    128 K; scale_b ceil(K/128) x ceil(N/128), one per 128 x 128 block of
    b; any strides (DeepGEMM's N/128 x K/128 layout: pass its .t()).
    D is row-major M x N of out_dtype (default: bf16/f16 as the inputs,
    float32 for float32, bfloat16 for FP8, int32 for int8), new or
    `out`; c (beta defaults to 1 with c, 0 without) has D's type.

    Torch operands launch on the current stream of their device, with
    scratch (split-K, staging) from torch's allocator per stream: safe
    from several threads and on several streams, and inside CUDA graph
    capture after a call of the same shape outside it.  Other operands
    launch on `stream` (a CUstream as an int; default 0) on `device`, with
    the kernel's own scratch: launches of one kind of operands on several
    streams must then be ordered.  `arch` overrides the GPU's target
    (sm_80: the mma.sync kernel); `acc` the accumulator ("f16" for f16
    inputs)."""
    torch = torch_module()
    is_torch = torch is not None and isinstance(a, torch.Tensor)
    if stream is not None and is_torch:
        raise MmagenError("stream= is for operands that are not torch tensors: torch's launch "
                          "on the current stream (with torch.cuda.stream(s): ...)")
    # the stream of operands that are not torch tensors, known before they
    # are read (a DLPack producer orders its work before it)
    st_other = 0 if is_torch else _stream_of(None, 0, stream)
    A = operand(a, "a", st_other)
    B = operand(b, "b", st_other)
    m, k = A.rows, A.cols
    if B.rows != k:
        raise MmagenError(f"a is {m} x {k} and b {B.rows} x {B.cols}: b needs {k} rows "
                          "(a's columns)")
    n = B.cols
    if m < 1 or n < 1 or k < 1:
        raise MmagenError(f"M = {m}, N = {n}, K = {k}: each must be at least 1")
    # K-major preferred where both fit: A row-major, B column-major
    ma, mb = major(A, "row"), major(B, "col")
    if ma is None or mb is None:
        if torch is None or not isinstance(a if ma is None else b, torch.Tensor):
            which = "a" if ma is None else "b"
            raise MmagenError(f"{which}'s strides ({(A if ma is None else B).s0}, "
                              f"{(A if ma is None else B).s1}) are neither row- nor column-major: "
                              "give a contiguous copy")
        # copied K-major, the layout every type takes
        if ma is None:
            a = a.contiguous()
            A = operand(a, "a")
            ma = major(A, "row")
        if mb is None:
            b = b.t().contiguous().t()
            B = operand(b, "b")
            mb = major(B, "col")
        assert ma is not None and mb is not None
    # the kernel's layout: A row-major (K-major) "t", column-major "n";
    # B column-major (K-major) "n", row-major "t"
    if A.type in ("e4m3", "e5m2", "s8", "u8", "f32") and (ma[0] != "row" or mb[0] != "col"):
        # K-major only (major() took it wherever the strides allow)
        raise MmagenError(
            f"{'float32 (tf32)' if A.type == 'f32' else A.type} GEMMs read A row-major and "
            f"B column-major (K-major): give {'a.contiguous()' if ma[0] != 'row' else 'a'}"
            f" and {'b.t().contiguous().t()' if mb[0] != 'col' else 'b'}")
    layout = ("t" if ma[0] == "row" else "n") + ("n" if mb[0] == "col" else "t")
    ta = "tf32" if A.type == "f32" else A.type
    tb = "tf32" if B.type == "f32" else B.type
    if _CLASS.get(ta, ta) != _CLASS.get(tb, tb) or ta not in _CLASS:
        raise MmagenError(f"a holds {ta} and b {tb}: gemm takes A and B as bf16/bf16, f16/f16, "
                          "float32/float32 (tf32), any mix of e4m3/e5m2, or any mix of s8/u8")

    # -1: an operand whose device is not known (__cuda_array_interface__)
    dev = A.device if A.device >= 0 else B.device
    if A.device >= 0 and B.device >= 0 and B.device != A.device:
        raise MmagenError(f"a is on cuda:{A.device} and b on cuda:{B.device}: give both on one device")
    if dev < 0:
        dev = device if device is not None else 0
    elif device is not None and device != dev:
        raise MmagenError(f"device={device} but the tensors are on cuda:{dev}")
    _check_device(dev)

    # D's type
    if out_dtype is None and out is not None:
        tout = operand(out, "out", st_other).type
    elif out_dtype is None:
        tout = _DEFAULT_OUT.get(ta, ta)
    elif isinstance(out_dtype, str):
        tout = out_dtype
    else:
        tout = torch_type_name(out_dtype)
    if tout not in _OUT_TYPES:
        raise MmagenError(f"out_dtype {out_dtype!r}: D is one of bf16, f16, f32, s32, e4m3, "
                          "e5m2 (or their torch dtypes)")

    al = _float(alpha, "alpha")
    quant: Optional[str] = None
    scales: Tuple[int, int, int, int, int, int, Any] = (0, 0, 0, 0, 0, 0, None)
    if _is_array(scale_a) or _is_array(scale_b):
        quant = "fp8-block"
        scales = _block_scales(scale_a, scale_b, m, n, k, ta, tb, dev, st_other)
    else:
        if scale_a is not None:
            al *= _float(scale_a, "scale_a")
        if scale_b is not None:
            al *= _float(scale_b, "scale_b")
    al = _float(al, "alpha * scale_a * scale_b")
    be = (1.0 if c is not None else 0.0) if beta is None else _float(beta, "beta")
    if be != 0 and c is None:
        raise MmagenError(f"beta = {be} needs c (M x N, D's type); give c or beta=0")

    if out is None:
        if torch is None or not isinstance(a, torch.Tensor):
            raise MmagenError("out= is needed when a and b are not torch tensors (M x N, row-major)")
        out = a.new_empty((m, n), dtype=torch_dtype_of(tout))
    D = operand(out, "out", st_other)
    _check_cd(D, "out", m, n, tout, dev)
    pc, ldc = 0, 0
    if c is not None:
        C = operand(c, "c", st_other)
        _check_cd(C, "c", m, n, tout, dev)
        if be != 0:
            pc, ldc = C.addr, C.s0 if m > 1 else n

    st = _stream_of(torch, dev, None) if is_torch else st_other
    h = _handle(dev, arch, ta, tb, tout, layout, acc, quant)
    args = (h, st, m, n, k, A.addr, B.addr, pc, D.addr, ma[1], mb[1], ldc,
            D.s0 if m > 1 else n, al, be, 1.0)
    # launched at once when the launch needs no scratch (most shapes);
    # else the bytes it needs come back and it is launched with them
    sc = scales[:6]
    need = _native.gemm_launch(*args, 0, 0 if is_torch else _OWN, *sc)
    if need:
        sp, sb, keep = _scratch_for(torch, dev, st, need)
        need = _native.gemm_launch(*args, sp, sb, *sc)
        if need:
            raise MmagenError(f"gemm: scratch of {sb} bytes is below the {need} the launch needs")
        del keep
    return out


def _check_cd(x: Operand, name: str, m: int, n: int, t: str, dev: int) -> None:
    if (x.rows, x.cols) != (m, n):
        raise MmagenError(f"{name} is {x.rows} x {x.cols}: give M x N = {m} x {n}")
    want = "f32" if t == "tf32" else t
    if x.type != want:
        raise MmagenError(f"{name} holds {x.type}: D and C hold {want} here (out_dtype)")
    if not (n == 1 or x.s1 == 1) or (m > 1 and x.s0 < n):
        raise MmagenError(f"{name}'s strides ({x.s0}, {x.s1}) are not row-major: D and C are "
                          f"row-major with a leading dimension >= N = {n}")
    if x.device >= 0 and x.device != dev:
        raise MmagenError(f"{name} is on cuda:{x.device}, a and b on cuda:{dev}")
