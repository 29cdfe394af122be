"""Operands from PyTorch tensors, __cuda_array_interface__ objects and
DLPack producers, as (address, rows, cols, strides, type, device)."""
from __future__ import annotations

import sys
from typing import Any, Dict, NamedTuple, Optional, Tuple

from ._native import MmagenError

# element type names as mmagen spells them, per torch dtype name
_TORCH_NAMES: Dict[str, str] = {
    "bfloat16": "bf16", "float16": "f16", "float32": "f32", "int8": "s8", "uint8": "u8",
    "int32": "s32", "float8_e4m3fn": "e4m3", "float8_e5m2": "e5m2",
}
# __cuda_array_interface__ typestr (no byte order for one byte)
_CAI_NAMES: Dict[str, str] = {
    "<f2": "f16", "<f4": "f32", "|i1": "s8", "|u1": "u8", "<i4": "s32",
}
# DLPack (code, bits): kDLInt 0, kDLUInt 1, kDLFloat 2, kDLBfloat 4
_DL_NAMES: Dict[Tuple[int, int], str] = {
    (2, 16): "f16", (2, 32): "f32", (0, 8): "s8", (1, 8): "u8", (0, 32): "s32", (4, 16): "bf16",
}
_DL_CUDA = 2

_torch_dtypes: Dict[Any, str] = {}


def torch_module() -> Any:
    """torch when the program has imported it (never imported here)."""
    return sys.modules.get("torch")


def torch_type_name(dtype: Any) -> str:
    """mmagen's name of a torch dtype."""
    name = _torch_dtypes.get(dtype)
    if name is None:
        name = _TORCH_NAMES.get(str(dtype).replace("torch.", ""), "")
        _torch_dtypes[dtype] = name
    if not name:
        raise MmagenError(f"{dtype} is not a GEMM element type; legal: bfloat16, float16, "
                          "float32 (as tf32), float8_e4m3fn, float8_e5m2, int8, uint8 "
                          "(D also int32)")
    return name


def torch_dtype_of(name: str) -> Any:
    """The torch dtype of an mmagen type name (f32 and tf32: float32)."""
    torch = torch_module()
    for k, v in _TORCH_NAMES.items():
        if v == name or (name == "tf32" and k == "float32"):
            return getattr(torch, k)
    raise MmagenError(f"no torch dtype holds {name}")


class Operand(NamedTuple):
    addr: int
    rows: int
    cols: int
    s0: int          # strides in elements
    s1: int
    type: str        # mmagen's name of the element type
    device: int      # -1: not known (not a torch tensor)
    obj: Any         # what keeps the memory alive (a DLPack capsule)


def operand(x: Any, name: str, stream: int = 0) -> Operand:
    """One 2-D operand; a one-line MmagenError for anything else.  A
    DLPack producer is told the stream the launch will be on (`stream`,
    0: the legacy default) so that it orders its own work before it."""
    torch = torch_module()
    if torch is not None and isinstance(x, torch.Tensor):
        if not x.is_cuda:
            raise MmagenError(f"{name} is on {x.device}: mmagen.gemm takes CUDA tensors "
                              f"({name}.cuda())")
        if x.dim() != 2:
            raise MmagenError(f"{name} has {x.dim()} dimensions: give a 2-D tensor "
                              f"(a batch: one call per matrix)")
        s0, s1 = x.stride()
        r, c = x.shape
        return Operand(x.data_ptr(), r, c, s0, s1, torch_type_name(x.dtype), x.get_device(), x)
    cai = getattr(x, "__cuda_array_interface__", None)
    if cai is not None:
        return _from_cai(cai, name, x)
    if hasattr(x, "__dlpack__"):
        return _from_dlpack(x, name, stream)
    raise MmagenError(f"{name} is a {type(x).__name__}: give a torch CUDA tensor, or an object "
                      "with __cuda_array_interface__ or __dlpack__")


def _from_cai(cai: Dict[str, Any], name: str, x: Any) -> Operand:
    shape = tuple(cai.get("shape", ()))
    if len(shape) != 2:
        raise MmagenError(f"{name} has {len(shape)} dimensions: give a 2-D array")
    t = _CAI_NAMES.get(str(cai.get("typestr", "")))
    if t is None:
        raise MmagenError(f"{name}'s typestr {cai.get('typestr')!r} is not a GEMM element type; "
                          "legal: <f2 (f16), <f4 (f32 as tf32), |i1 (s8), |u1 (u8); bf16 "
                          "through DLPack, FP8 through torch tensors")
    size = {"f16": 2, "f32": 4, "s8": 1, "u8": 1, "s32": 4}[t]
    data = cai.get("data")
    if not data or not isinstance(data[0], int):
        raise MmagenError(f"{name}'s __cuda_array_interface__ has no data pointer")
    strides = cai.get("strides")
    r, c = int(shape[0]), int(shape[1])
    if strides is None:
        s0, s1 = c, 1
    else:
        if strides[0] % size or strides[1] % size:
            raise MmagenError(f"{name}'s strides {tuple(strides)} are not whole elements of "
                              f"{size} bytes")
        s0, s1 = strides[0] // size, strides[1] // size
    return Operand(int(data[0]), r, c, s0, s1, t, -1, x)


def _from_dlpack(x: Any, name: str, stream: int) -> Operand:
    dev = getattr(x, "__dlpack_device__", None)
    if dev is not None:
        dtype, _ = dev()
        if int(dtype) != _DL_CUDA:
            raise MmagenError(f"{name} is on DLPack device type {int(dtype)}: mmagen.gemm takes "
                              "CUDA memory (device type 2)")
    # DLPack's CUDA streams: 1 is the legacy default (0 is not allowed)
    try:
        cap = x.__dlpack__(stream=stream or 1)
    except TypeError:          # a producer that takes no stream
        cap = x.__dlpack__()
    from . import _native
    addr, dtype, dev_id, code, bits, lanes, shape, strides = _native.dlpack_info(cap)
    if dtype != _DL_CUDA:
        raise MmagenError(f"{name} is on DLPack device type {dtype}: mmagen.gemm takes CUDA memory")
    if len(shape) != 2:
        raise MmagenError(f"{name} has {len(shape)} dimensions: give a 2-D array")
    t = _DL_NAMES.get((code, bits)) if lanes == 1 else None
    if t is None:
        raise MmagenError(f"{name}'s DLPack type (code {code}, {bits} bits, {lanes} lanes) is not "
                          "a GEMM element type; legal: f16, bf16, f32 (as tf32), s8, u8")
    r, c = shape
    s0, s1 = strides if strides is not None else (c, 1)
    return Operand(addr, r, c, s0, s1, t, dev_id, cap)


def major(op: Operand, prefer: str) -> Optional[Tuple[str, int]]:
    """How a matrix is stored: ("row", ld) when each row's elements are
    adjacent, ("col", ld) when each column's are, None for neither; where
    both fit (a dimension of 1 with a unit stride), `prefer` ("row" or
    "col": the K-major one for the operand)."""
    r, c, s0, s1 = op.rows, op.cols, op.s0, op.s1
    row = (c == 1 or s1 == 1) and (r == 1 or s0 >= c)
    col = (r == 1 or s0 == 1) and (c == 1 or s1 >= r)
    if row and (prefer == "row" or not col):
        return "row", (s0 if r > 1 else c)
    if col:
        return "col", (s1 if c > 1 else r)
    return None
