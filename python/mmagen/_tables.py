"""The generator from Python: forms, instructions, GEMM kernels as text,
plans and inspection reports.  No GPU is needed for any of these."""
from __future__ import annotations

import dataclasses
import json
import os
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple, Type, TypeVar, Union

from . import _native
from ._native import MmagenError

__all__ = [
    "Form", "Plan", "PlanPath", "PlanForm", "Report", "ReportImage", "ReportKernel",
    "PtxOp", "SassOp", "Verdict", "targets", "forms", "emit", "gemm_kernel", "plan",
    "inspect", "cli_path",
]

T = TypeVar("T")


def _build(cls: Type[T], d: Dict[str, Any], nested: Optional[Dict[str, Any]] = None) -> T:
    """A dataclass from one JSON object: every field from its key (the
    tests hold the keys and the fields equal)."""
    kw: Dict[str, Any] = {}
    rename = getattr(cls, "_json_names", {})
    for f in dataclasses.fields(cls):  # type: ignore[arg-type]
        key = rename.get(f.name, f.name)
        v = d.get(key)
        if nested and f.name in nested:
            v = [_build(nested[f.name], x) for x in (v or [])]
        kw[f.name] = v
    return cls(**kw)


@dataclass(frozen=True)
class Form:
    """One legal instruction form on a target.  Every field but opcode,
    min_arch and min_ptx is a selector facet as `mmagen list` and
    `emit(...)` spell it ("-" where the form has none): passing those
    that are not "-" to emit() selects this form alone."""
    opcode: str
    family: str
    shape: str
    a: str
    b: str
    c: str
    d: str
    sparse: str
    layout: str
    satfinite: str
    popc: str
    kind: str
    block_scale: str
    scale_vec: str
    stype: str
    cta_group: str
    ws: str
    ashift: str
    asrc: str
    rnd: str
    num: str
    trans: str
    ldtype: str
    min_arch: str
    min_ptx: str

    def __str__(self) -> str:
        return self.opcode

    def facets(self) -> Dict[str, str]:
        """The selector facets this form has (not "-"), as emit() takes them."""
        skip = {"opcode", "min_arch", "min_ptx"}
        return {f.name: getattr(self, f.name) for f in dataclasses.fields(self)
                if f.name not in skip and getattr(self, f.name) != "-"}


def _filters(kw: Dict[str, Any]) -> List[Tuple[str, str]]:
    out = []
    for k, v in kw.items():
        if v is None:
            continue
        if isinstance(v, bool):
            v = "yes" if v else "no"
        out.append((k, str(v)))
    return out


def targets() -> List[str]:
    """Every target mmagen knows, oldest first ("sm_75" ... "sm_121f", as
    `mmagen list --targets`)."""
    return list(_native.targets())


def forms(arch: str, **filters: Union[str, int, bool, None]) -> List[Form]:
    """The forms on `arch` that the filters select, in table order.
    Filters are the selector options of `mmagen list`, '-' written '_':
    family, shape, a, b, c, d, sparse, layout, satfinite, popc, kind,
    block_scale, scale_vec, stype, cta_group, ws, ashift, asrc, rnd, num,
    trans, ldtype; values as the command line spells them
    (family="mma", shape="m16n8k16", a="bf16", kind="f8f6f4")."""
    return [_build(Form, d) for d in _native.forms(arch, _filters(filters))]


def emit(arch: str, opcode: Optional[str] = None, *, format: str = "ptx",
         **filters: Union[str, int, bool, None]) -> str:
    """One instruction as a standalone PTX module (format "ptx"), a CUDA
    header with an inline-asm wrapper ("cuda") or the line alone
    ("text"): give its complete opcode, or the filters of forms() that
    select exactly one form (the error names the fields that tell the
    candidates apart)."""
    return str(_native.emit(arch, opcode, _filters(filters), format))


_LAYOUTS = {"tn": 0, "nn": 1, "nt": 2, "tt": 3}
_SCHEDULES = {None: 0, "cooperative": 1, "pingpong": 2}
_PATHS = {None: 0, "wgmma": 1, "mma.sync": 2}


# gemm_emit's and gemm_new's request fields, in their order (mypy checks the calls)
_GemmFields = Tuple[Optional[str], str, str, str, Optional[str], int, int, int, int, int, int,
                    int, int, Optional[str]]


def _gemm_fields(arch: Optional[str], a: str, b: str, out: str, acc: Optional[str],
                 layout: str, tile: Optional[Tuple[int, int]], stages: Optional[int],
                 cluster: Optional[int], split_k: Union[int, str, None],
                 schedule: Optional[str], path: Optional[str],
                 quant: Optional[str] = None) -> _GemmFields:
    if layout not in _LAYOUTS:
        raise MmagenError(f"layout {layout!r} is not one; legal: tn, nn, nt, tt")
    if schedule not in _SCHEDULES:
        raise MmagenError(f"schedule {schedule!r} is not one; legal: cooperative, pingpong")
    if path not in _PATHS:
        raise MmagenError(f"path {path!r} is not one; legal: wgmma, mma.sync")
    if split_k == "auto":
        sk = 0xFFFFFFFF
    elif split_k is None:
        sk = 0
    elif isinstance(split_k, int) and not isinstance(split_k, bool) and 1 <= split_k <= 256:
        sk = split_k
    else:
        raise MmagenError(f"split_k {split_k!r}: give 1 to 256 K slices, or 'auto'")
    if tile is not None and (not isinstance(tile, (tuple, list)) or len(tile) != 2):
        raise MmagenError(f"tile {tile!r}: give (M, N) such as (128, 256)")
    tm, tn = tile if tile is not None else (0, 0)
    for name, v in (("tile", tm), ("tile", tn), ("stages", stages), ("cluster", cluster)):
        if v is not None and (not isinstance(v, int) or isinstance(v, bool) or not 0 <= v <= 1024):
            raise MmagenError(f"{name} {v!r}: give a whole number such as 4 (tile: (128, 256))")
    if quant is not None and not isinstance(quant, str):
        raise MmagenError(f"quant {quant!r}: give a name such as 'fp8-block' or 'mxfp8'")
    return (arch, a, b, out, acc, _LAYOUTS[layout], tm, tn, stages or 0, cluster or 0, sk,
            _SCHEDULES[schedule], _PATHS[path], quant)


def gemm_kernel(arch: str, a: str, b: str, out: str, *, acc: Optional[str] = None,
                layout: str = "tn", tile: Optional[Tuple[int, int]] = None,
                stages: Optional[int] = None, cluster: Optional[int] = None,
                split_k: Union[int, str, None] = None, schedule: Optional[str] = None,
                path: Optional[str] = None, problem: Optional[Tuple[int, int, int]] = None,
                sms: int = 0, quant: Optional[str] = None, format: str = "ptx") -> str:
    """A whole GEMM kernel as `mmagen gemm` writes it: "ptx", its manifest
    ("json"), the ABI libmmart launches it from ("abi"), or a C header
    that embeds both ("c").  Types as the CLI spells them (bf16, f16,
    tf32, e4m3, e5m2, s8, u8; out also f32, s32); layout tn (A row-major,
    B column-major), nn, nt, tt.  quant: "fp8-block" (sm_90a: FP8 A and
    B with f32 scales per 1 x 128 and 128 x 128 blocks), or sm_120a's
    "mxfp8", "mxfp6", "mxfp4", "nvfp4".  problem=(M, N, K): tiles, cluster and
    split-K chosen for that problem on a GPU of `sms` multiprocessors
    (0, the default: 132, as the CLI)."""
    fields = _gemm_fields(arch, a, b, out, acc, layout, tile, stages, cluster, split_k,
                          schedule, path, quant)
    if problem is not None and (
            not isinstance(problem, (tuple, list)) or len(problem) != 3 or
            not all(isinstance(x, int) and not isinstance(x, bool) and 1 <= x < 2**31
                    for x in problem)):
        raise MmagenError(f"problem {problem!r}: give (M, N, K), each 1 to 2^31-1")
    if not isinstance(sms, int) or isinstance(sms, bool) or not 0 <= sms <= 1024:
        raise MmagenError(f"sms {sms!r}: give 1 to 1024 multiprocessors, such as 132")
    if sms and problem is None:
        raise MmagenError("sms says which GPU problem= chooses for; give problem=(M, N, K) too")
    m, n, k = problem if problem is not None else (0, 0, 0)
    # as `mmagen gemm --problem` without --sms: an H100's 132
    return str(_native.gemm_emit(*fields, format, m, n, k, (sms or 132) if m else 0))


@dataclass(frozen=True)
class PlanForm:
    """A form a path of a plan uses; `emulated` says why ptxas accepts it
    but the GPU has no such instruction (None: native)."""
    opcode: str
    family: str
    shape: str
    a: str
    b: str
    c: str
    d: str
    emulated: Optional[str]


@dataclass(frozen=True)
class PlanPath:
    """One way to compute a config on the target (docs/plan.md)."""
    id: str
    label: str
    native: bool
    available: bool
    emulated: bool
    a: str
    b: str
    acc: str
    acc_alt: Optional[str]
    scale_type: Optional[str]
    scale_block: int
    conversion: Optional[str]
    scale: Optional[str]
    packing: Optional[str]
    reason: str
    needs: Optional[str]
    lowest: Optional[str]
    emit: Optional[str]
    gemm: Optional[str]
    forms: List[PlanForm]


@dataclass(frozen=True)
class Plan:
    """What `mmagen plan --quant CONFIG --arch A` answers: the best path
    first, then the others in `order`."""
    config: str
    title: str
    weights: str
    activations: str
    target: str
    native: bool
    verdict: str
    order: str
    paths: List[PlanPath]

    def __str__(self) -> str:
        return self.verdict


def plan(quant: str, arch: str) -> Plan:
    """The MMA that computes quantization config `quant` ("w4a16",
    "w8a8-fp8", "nvfp4", ...; docs/plan.md) on `arch`."""
    d = json.loads(_native.plan(quant, arch))
    p = _build(Plan, d, {"paths": PlanPath})
    paths = [dataclasses.replace(x, forms=[_build(PlanForm, f) for f in d["paths"][i]["forms"]])
             for i, x in enumerate(p.paths)]
    return dataclasses.replace(p, paths=paths)


@dataclass(frozen=True)
class ReportImage:
    """One PTX module or cubin found in the input."""
    kind: str
    sm: int
    target: str
    where: str
    note: str


@dataclass(frozen=True)
class PtxOp:
    """A tensor-core instruction of the PTX, with how often it occurs."""
    opcode: str
    family: str
    shape: str
    kind: str
    a: str
    b: str
    c: str
    d: str
    sparse: bool
    block_scale: bool
    in_table: bool
    count: int


@dataclass(frozen=True)
class SassOp:
    """A tensor-core SASS instruction (HMMA, QGMMA, ...)."""
    _json_names = {"sass_class": "class"}
    target: str
    mnemonic: str
    sass_class: str
    shape: str
    a: str
    b: str
    sparse: bool
    helper: Optional[str]
    count: int


@dataclass(frozen=True)
class Verdict:
    """native, converted, emulated or unknown, for one kernel on a target."""
    target: str
    verdict: str
    reason: str


@dataclass(frozen=True)
class ReportKernel:
    name: str
    ptx: List[PtxOp]
    sass: List[SassOp]
    verdicts: List[Verdict]


@dataclass(frozen=True)
class Report:
    """What `mmagen inspect` finds: the images, each kernel's PTX and SASS
    tensor-core instructions and verdicts, and notes (what was not
    examined and why).  str() is the report as the CLI prints it."""
    images: List[ReportImage]
    kernels: List[ReportKernel]
    notes: List[str]
    complete: bool       # False: some SASS was not examined (the notes say why)
    text: str

    def __str__(self) -> str:
        return self.text


def cli_path() -> str:
    """The mmagen program inside this package."""
    return str(Path(__file__).with_name("mmagen"))


def _run_cli(args: List[str], ok: Tuple[int, ...] = (0,)) -> Tuple[str, int]:
    exe = cli_path()
    if not os.access(exe, os.X_OK):
        raise MmagenError(f"the mmagen program is missing from the package ({exe}): reinstall it")
    r = subprocess.run([exe] + args, capture_output=True, text=True)
    if r.returncode not in ok:
        msg = r.stderr.strip().splitlines()
        line = msg[-1] if msg else f"mmagen {args[0]} failed ({r.returncode})"
        # the program's "mmagen: " prefix off, as the other errors have none
        raise MmagenError(line[len("mmagen: "):] if line.startswith("mmagen: ") else line)
    return r.stdout, r.returncode


def inspect(path_or_bytes: Union[str, "os.PathLike[str]", bytes], arch: Optional[str] = None) -> Report:
    """The tensor-core instructions of a PTX file, a cubin, a fatbinary or
    an ELF that holds them (a .so, an executable), and what SASS runs
    them: as `mmagen inspect` (nvdisasm/cuobjdump and ptxas are used
    when found, else a note says what was not examined).  `arch`: the
    target whose SASS to examine."""
    extra = ["--arch", arch] if arch else []
    if isinstance(path_or_bytes, (bytes, bytearray, memoryview)):
        with tempfile.TemporaryDirectory(prefix="mmagen-inspect-") as d:
            f = os.path.join(d, "input")
            with open(f, "wb") as fh:
                fh.write(bytes(path_or_bytes))
            try:
                return _report(f, extra)
            except MmagenError as e:
                # name the bytes, not a temporary file the caller never saw
                raise MmagenError(str(e).replace(repr(f), "the bytes given")) from None
    p = os.fspath(path_or_bytes)
    if not os.path.isfile(p):
        raise MmagenError(f"inspect: {p!r} is not a file; give a path or the bytes")
    return _report(p, extra)


def _report(path: str, extra: List[str]) -> Report:
    # exit status 3: the PTX is reported, some SASS not examined (a note says why)
    out, rc = _run_cli(["inspect", path, "--json"] + extra, ok=(0, 3))
    d = json.loads(out)
    text, _ = _run_cli(["inspect", path] + extra, ok=(0, 3))
    kernels = [ReportKernel(name=k["name"], ptx=[_build(PtxOp, o) for o in k["ptx"]],
                            sass=[_build(SassOp, o) for o in k["sass"]],
                            verdicts=[_build(Verdict, v) for v in k["verdicts"]])
               for k in d["kernels"]]
    return Report(images=[_build(ReportImage, i) for i in d["images"]], kernels=kernels,
                  notes=list(d["notes"]), complete=rc == 0, text=text)


def _main_cli() -> None:
    exe = cli_path()
    os.execv(exe, [exe] + sys.argv[1:])
