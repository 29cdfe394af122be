"""The Python API of mmagen without a GPU and without torch: forms, emit,
gemm_kernel, plan and inspect checked against the package's own mmagen
program (mmagen.cli_path(), the C front end over the same library), the
dataclasses' fields against the CLI's JSON keys at every level, gemm()'s
argument checks on fake __cuda_array_interface__ operands, the import and
the console script without a GPU, and mypy --strict over the package.

Independent references: the CLI's output (a separate program and code
path: its own option parsing, JSON writer and text formatter), ptxas,
the PTX text itself (kernel names, opcode counts) and canned SASS."""
from __future__ import annotations

import ctypes
import dataclasses
import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence

import pytest

import mmagen
from mmagen import DeviceError, MmagenError

CLI = mmagen.cli_path()
ROOT = Path(__file__).resolve().parents[2]
PTXAS = "/usr/local/cuda/bin/ptxas"
NO_PTXAS = f"{PTXAS} is absent (the CUDA toolkit is not installed)"
PLAN_TARGETS = ["sm_80", "sm_90a", "sm_100a", "sm_120a"]


# ---- helpers ----

def run_cli(*args: str, env: Optional[Dict[str, str]] = None) -> subprocess.CompletedProcess:
    return subprocess.run([CLI, *args], capture_output=True, text=True, env=env)


def cli_out(*args: str) -> str:
    r = run_cli(*args)
    assert r.returncode == 0, f"mmagen {' '.join(args)}: {r.returncode} {r.stderr}"
    return r.stdout


def cli_error(*args: str) -> str:
    """The one line the CLI prints for a refused request, 'mmagen: ' off."""
    r = run_cli(*args)
    assert r.returncode != 0, f"mmagen {' '.join(args)} was accepted"
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("mmagen: "), r.stderr
    return lines[0][len("mmagen: "):]


def one_line(exc: Any, fn: Any, *args: Any, **kw: Any) -> str:
    """fn(...) raises exc with a one-line, non-empty message: that message."""
    with pytest.raises(exc) as ei:
        fn(*args, **kw)
    assert type(ei.value) is exc or exc in (ValueError, RuntimeError), type(ei.value)
    msg = str(ei.value)
    assert msg.strip() and "\n" not in msg, repr(msg)
    return msg


def field_names(cls: Any) -> List[str]:
    return [f.name for f in dataclasses.fields(cls)]


# ---- 1. forms() ----

FORM_CASES = [
    ("sm_90a", {"family": "wgmma"}, ["--family", "wgmma"]),
    ("sm_80", {"family": "mma", "a": "bf16"}, ["--family", "mma", "--a", "bf16"]),
    ("sm_100a", {"family": "tcgen05", "kind": "f8f6f4"},
     ["--family", "tcgen05", "--kind", "f8f6f4"]),
    ("sm_90a", {"family": "ldmatrix"}, ["--family", "ldmatrix"]),
    ("sm_100a", {"family": "stmatrix", "trans": "yes"}, ["--family", "stmatrix", "--trans", "yes"]),
    ("sm_120a", {"block_scale": "yes"}, ["--block-scale", "yes"]),
    ("sm_120a", {"scale_vec": "4X"}, ["--scale-vec", "4X"]),
    ("sm_100a", {"cta_group": "2", "kind": "kind::f16"},
     ["--cta-group", "2", "--kind", "kind::f16"]),
    ("sm_89", {"a": "e4m3", "sparse": "sp"}, ["--a", "e4m3", "--sparse", "sp"]),
    ("sm_75", {}, []),
    ("sm_121f", {}, []),
]


def cli_forms(arch: str, args: Sequence[str]) -> List[Dict[str, str]]:
    rows = json.loads(cli_out("list", "--arch", arch, *args, "--json"))
    assert isinstance(rows, list)
    return rows


# The CLI's rows carry one key that is not a Form field: "a_source", which
# docs/cli.md lists after the selector fields; it always equals "asrc" (the
# selector facet), so Form leaves it out.  Any other new key fails here.
CLI_ONLY_FORM_KEYS = {"a_source"}


@pytest.mark.parametrize("arch,filters,args", FORM_CASES,
                         ids=[f"{a}-{'-'.join(map(str, f.values())) or 'all'}"
                              for a, f, _ in FORM_CASES])
def test_forms_equal_cli_list_json(arch: str, filters: Dict[str, str], args: List[str]) -> None:
    rows = cli_forms(arch, args)
    got = mmagen.forms(arch, **filters)
    assert rows, "the CLI lists no form: a case that tests nothing"
    assert all(isinstance(f, mmagen.Form) for f in got)
    assert [f.opcode for f in got] == [r["opcode"] for r in rows]
    assert [dataclasses.asdict(f) for f in got] == [
        {k: v for k, v in r.items() if k not in CLI_ONLY_FORM_KEYS} for r in rows]


def test_form_fields_are_the_cli_json_keys() -> None:
    fields = field_names(mmagen.Form)
    for arch, _, args in FORM_CASES[:4]:
        for r in cli_forms(arch, args):
            assert [k for k in r if k not in CLI_ONLY_FORM_KEYS] == fields, set(r) ^ set(fields)
            assert CLI_ONLY_FORM_KEYS <= set(r)
            assert r["a_source"] == r["asrc"]


def test_form_facets_are_the_selector_fields() -> None:
    f = mmagen.forms("sm_90a", family="wgmma")[0]
    facets = f.facets()
    assert "opcode" not in facets and "min_arch" not in facets and "min_ptx" not in facets
    assert all(v != "-" for v in facets.values())
    skipped = {k for k, v in dataclasses.asdict(f).items() if v == "-"}
    selectors = set(field_names(mmagen.Form)) - {"opcode", "min_arch", "min_ptx"}
    assert set(facets) == selectors - skipped


def test_forms_aliases_and_spellings() -> None:
    same = [
        ("sm_80", {"family": "mma"}, {"family": "mma.sync"}),
        ("sm_100a", {"family": "tcgen05"}, {"family": "tcgen05.mma"}),
        ("sm_100a", {"kind": "kind::f16"}, {"kind": "f16"}),
        ("sm_120a", {"block_scale": True}, {"block_scale": "yes"}),
        ("sm_100a", {"cta_group": 2}, {"cta_group": "2"}),
        ("sm_90a", {"a": "bfloat16", "family": "wgmma"}, {"a": "bf16", "family": "wgmma"}),
        ("sm_90a", {"family": "wgmma", "shape": None}, {"family": "wgmma"}),
    ]
    for arch, x, y in same:
        fx = mmagen.forms(arch, **x)
        assert fx and fx == mmagen.forms(arch, **y), (arch, x, y)
    # and the alias the CLI takes gives the CLI's rows
    rows = cli_forms("sm_80", ["--family", "mma.sync"])
    assert [f.opcode for f in mmagen.forms("sm_80", family="mma")] == [r["opcode"] for r in rows]


def test_forms_filter_narrows() -> None:
    allf = mmagen.forms("sm_90a")
    w = mmagen.forms("sm_90a", family="wgmma")
    wb = mmagen.forms("sm_90a", family="wgmma", a="bf16")
    assert 0 < len(wb) < len(w) < len(allf)
    assert all(f.family == "wgmma" and f.a == "bf16" for f in wb)


def test_targets_equal_cli() -> None:
    names = [t["name"] for t in json.loads(cli_out("list", "--targets", "--json"))]
    assert mmagen.targets() == names
    assert "sm_90a" in names and "sm_100a" in names


def _sample(forms: List[mmagen.Form], offset: int, stride: int = 6) -> List[mmagen.Form]:
    """Every stride-th form (from a per-target offset) and the first and last
    of each family."""
    pick = {id(f): f for f in forms[offset % stride::stride]}
    by_family: Dict[str, List[mmagen.Form]] = {}
    for f in forms:
        by_family.setdefault(f.family, []).append(f)
    for fs in by_family.values():
        pick[id(fs[0])] = fs[0]
        pick[id(fs[-1])] = fs[-1]
    return list(pick.values())


def test_facets_select_the_form_alone_on_every_target() -> None:
    checked = 0
    for i, arch in enumerate(mmagen.targets()):
        forms = mmagen.forms(arch)
        assert forms, arch
        for f in _sample(forms, i):
            line = mmagen.emit(arch, format="text", **f.facets())
            assert line.split()[0] == f.opcode, (arch, f.facets(), line)
            assert mmagen.forms(arch, **f.facets()) == [f], (arch, f.facets())
            checked += 1
    assert checked > 1000


def test_done_when_first_wgmma_form_prints_its_opcode(capsys: Any) -> None:
    first = cli_forms("sm_90a", ["--family", "wgmma"])[0]["opcode"]
    print(mmagen.forms("sm_90a", family="wgmma")[0])
    out = capsys.readouterr().out
    assert out == first + "\n"
    assert out.startswith("wgmma.mma_async.sync.aligned.m64n")


def test_forms_errors() -> None:
    msg = one_line(MmagenError, mmagen.forms, "sm_99")
    assert "unknown target 'sm_99'" in msg and msg == cli_error("list", "--arch", "sm_99")
    msg = one_line(MmagenError, mmagen.forms, "sm_90a", family="foo")
    assert msg == cli_error("list", "--arch", "sm_90a", "--family", "foo")
    assert "unknown family" in msg
    msg = one_line(MmagenError, mmagen.forms, "sm_90a", foo="x")
    assert "unknown facet 'foo'" in msg
    msg = one_line(MmagenError, mmagen.forms, "sm_90a", sparse="maybe")
    assert "sparse" in msg and "none, sp, ordered" in msg
    assert isinstance(MmagenError("x"), ValueError)
    assert issubclass(DeviceError, RuntimeError)


# ---- 2. emit() ----

EMIT_CASES = [
    ("sm_80", "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32"),
    ("sm_89", "mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32"),
    ("sm_90a", "wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16"),
    ("sm_90a", "ldmatrix.sync.aligned.m8n8.x4.shared.b16"),
    ("sm_100a", "tcgen05.mma.cta_group::1.kind::f16"),
    ("sm_120a",
     "mma.sync.aligned.m16n8k32.row.col.kind::mxf8f6f4.block_scale.f32.e4m3.e4m3.f32.ue8m0"),
]


@pytest.mark.parametrize("arch,opcode", EMIT_CASES)
@pytest.mark.parametrize("fmt", ["ptx", "cuda", "text"])
def test_emit_by_opcode_equals_cli(arch: str, opcode: str, fmt: str) -> None:
    want = cli_out("emit", "instr", "--arch", arch, "--opcode", opcode, "--format", fmt)
    got = mmagen.emit(arch, opcode, format=fmt)
    assert got == want
    assert opcode in got


def test_emit_default_format_is_ptx() -> None:
    arch, op = EMIT_CASES[0]
    ptx = mmagen.emit(arch, op)
    assert ptx == cli_out("emit", "instr", "--arch", arch, "--opcode", op, "--format", "ptx")
    assert ".version" in ptx and f".target {arch}" in ptx


EMIT_FILTER_CASES = [
    ("sm_80", {"family": "mma", "shape": "m16n8k16", "a": "bf16", "d": "f32"},
     ["--family", "mma", "--shape", "m16n8k16", "--a", "bf16", "--d", "f32"]),
    ("sm_90a", {"family": "wgmma", "shape": "m64n256k32", "a": "e4m3", "b": "e5m2", "d": "f32",
                "asrc": "reg"},
     ["--family", "wgmma", "--shape", "m64n256k32", "--a", "e4m3", "--b", "e5m2", "--d", "f32",
      "--asrc", "reg"]),
    ("sm_100a", {"family": "tcgen05", "kind": "kind::mxf4nvf4", "scale_vec": "4X", "cta_group": 2},
     ["--family", "tcgen05", "--kind", "kind::mxf4nvf4", "--scale-vec", "4X", "--cta-group", "2"]),
]


@pytest.mark.parametrize("arch,filters,args", EMIT_FILTER_CASES)
def test_emit_by_filters_equals_cli(arch: str, filters: Dict[str, Any], args: List[str]) -> None:
    for fmt in ("ptx", "cuda", "text"):
        want = cli_out("emit", "instr", "--arch", arch, *args, "--format", fmt)
        assert mmagen.emit(arch, format=fmt, **filters) == want
    # the form the filters select, emitted by its opcode with the same facets
    text = mmagen.emit(arch, format="text", **filters)
    opcode = text.split()[0]
    assert opcode in cli_out("list", "--arch", arch, "--opcodes").split()


def test_emit_errors() -> None:
    # unknown target
    msg = one_line(MmagenError, mmagen.emit, "sm_99", EMIT_CASES[0][1])
    assert msg == cli_error("emit", "instr", "--arch", "sm_99", "--opcode", EMIT_CASES[0][1])
    assert "unknown target 'sm_99'" in msg
    # unknown family
    msg = one_line(MmagenError, mmagen.emit, "sm_90a", family="foo")
    assert msg == cli_error("emit", "instr", "--arch", "sm_90a", "--family", "foo")
    # ambiguous: the request names the fields that tell the forms apart
    msg = one_line(MmagenError, mmagen.emit, "sm_90a", family="wgmma")
    assert msg == cli_error("emit", "instr", "--arch", "sm_90a", "--family", "wgmma")
    assert msg.startswith("request matches ") and "shape" in msg
    # an illegal form, by opcode and by fields
    bad = "mma.sync.aligned.m8n8k4.row.col.f32.tf32.tf32.f32"
    msg = one_line(MmagenError, mmagen.emit, "sm_80", bad)
    assert msg == cli_error("emit", "instr", "--arch", "sm_80", "--opcode", bad)
    assert "not a legal opcode" in msg and "m16n8k4" in msg
    msg = one_line(MmagenError, mmagen.emit, "sm_80", family="mma", shape="m8n8k4", a="tf32")
    assert msg == cli_error("emit", "instr", "--arch", "sm_80", "--family", "mma", "--shape",
                            "m8n8k4", "--a", "tf32")
    assert "m8n8k4" in msg and "f16" in msg
    # an opcode on a target too old for it
    msg = one_line(MmagenError, mmagen.emit, "sm_80", EMIT_CASES[2][1])
    assert msg == cli_error("emit", "instr", "--arch", "sm_80", "--opcode", EMIT_CASES[2][1])
    # formats
    msg = one_line(MmagenError, mmagen.emit, "sm_80", EMIT_CASES[0][1], format="xml")
    assert "format 'xml'" in msg and "ptx, cuda, text" in msg
    msg = one_line(MmagenError, mmagen.emit, "sm_80", EMIT_CASES[0][1], format="json")
    assert "ptx, cuda or text" in msg
    # a bad facet value
    msg = one_line(MmagenError, mmagen.emit, "sm_80", family="mma", a="bf17")
    assert "bf17" in msg and "bf16" in msg


# ---- 3. gemm_kernel() ----

GEMM_CASES = [
    ("sm_90a", {"a": "bf16", "b": "bf16", "out": "bf16", "layout": "tn"},
     ["--a", "bf16", "--b", "bf16", "--out", "bf16", "--layout", "tn"]),
    ("sm_90a", {"a": "f16", "b": "f16", "out": "f16", "layout": "nt"},
     ["--a", "f16", "--b", "f16", "--out", "f16", "--layout", "nt"]),
    ("sm_90a", {"a": "e4m3", "b": "e4m3", "out": "bf16"},
     ["--a", "e4m3", "--b", "e4m3", "--out", "bf16"]),
    ("sm_90a", {"a": "s8", "b": "s8", "out": "s32"}, ["--a", "s8", "--b", "s8", "--out", "s32"]),
    ("sm_90a", {"a": "bf16", "b": "bf16", "out": "bf16", "problem": (16, 4096, 4096), "sms": 132},
     ["--a", "bf16", "--b", "bf16", "--out", "bf16", "--problem", "16x4096x4096", "--sms", "132"]),
    ("sm_90a", {"a": "bf16", "b": "bf16", "out": "bf16", "problem": (16, 4096, 4096)},
     ["--a", "bf16", "--b", "bf16", "--out", "bf16", "--problem", "16x4096x4096"]),
    ("sm_90a", {"a": "f16", "b": "f16", "out": "f32", "tile": (128, 128), "split_k": "auto"},
     ["--a", "f16", "--b", "f16", "--out", "f32", "--tile", "128x128", "--split-k", "auto"]),
    ("sm_90a", {"a": "bf16", "b": "bf16", "out": "bf16", "schedule": "pingpong"},
     ["--a", "bf16", "--b", "bf16", "--out", "bf16", "--schedule", "pingpong"]),
    ("sm_90a", {"a": "bf16", "b": "bf16", "out": "f32", "stages": 4, "cluster": 1, "acc": "f32"},
     ["--a", "bf16", "--b", "bf16", "--out", "f32", "--stages", "4", "--cluster", "1",
      "--acc", "f32"]),
    ("sm_90a", {"a": "f16", "b": "f16", "out": "f16", "path": "mma.sync", "layout": "nn"},
     ["--a", "f16", "--b", "f16", "--out", "f16", "--path", "mma.sync", "--layout", "nn"]),
    ("sm_80", {"a": "bf16", "b": "bf16", "out": "bf16", "layout": "tn"},
     ["--a", "bf16", "--b", "bf16", "--out", "bf16", "--layout", "tn"]),
    ("sm_80", {"a": "s8", "b": "s8", "out": "s32", "split_k": 4},
     ["--a", "s8", "--b", "s8", "--out", "s32", "--split-k", "4"]),
    ("sm_120a", {"a": "e4m3", "b": "e4m3", "out": "bf16"},
     ["--a", "e4m3", "--b", "e4m3", "--out", "bf16"]),
]


def _gemm_id(c: Any) -> str:
    arch, kw, _ = c
    rest = [f"{k}={v}" for k, v in kw.items() if k not in ("a", "b", "out", "layout")]
    return "-".join([arch, kw["a"], kw["out"], kw.get("layout", "tn")] + rest).replace(" ", "")


@pytest.mark.parametrize("case", GEMM_CASES, ids=[_gemm_id(c) for c in GEMM_CASES])
def test_gemm_kernel_equals_cli(case: Any) -> None:
    arch, kw, args = case
    for fmt in ("ptx", "json", "abi", "c"):
        want = cli_out("gemm", "--arch", arch, *args, "--format", fmt)
        got = mmagen.gemm_kernel(arch, format=fmt, **kw)
        assert got == want, (arch, kw, fmt)
    manifest = json.loads(mmagen.gemm_kernel(arch, format="json", **kw))
    assert isinstance(manifest, dict)
    ptx = mmagen.gemm_kernel(arch, **kw)
    assert f".target {arch}" in ptx and ".entry" in ptx


def test_gemm_kernel_problem_changes_the_kernel() -> None:
    big = mmagen.gemm_kernel("sm_90a", "bf16", "bf16", "bf16")
    small = mmagen.gemm_kernel("sm_90a", "bf16", "bf16", "bf16", problem=(16, 4096, 4096), sms=132)
    assert big != small


def test_gemm_kernel_errors() -> None:
    k = {"a": "bf16", "b": "bf16", "out": "bf16"}
    msg = one_line(MmagenError, mmagen.gemm_kernel, "sm_90a", **k, layout="xy")
    assert "layout 'xy'" in msg and "tn, nn, nt, tt" in msg
    msg = one_line(MmagenError, mmagen.gemm_kernel, "sm_90a", **{**k, "a": "bf17"})
    assert "bf17" in msg and msg in cli_error("gemm", "--arch", "sm_90a", "--a", "bf17", "--b",
                                              "bf16", "--out", "bf16")
    for sk in (0, 257, True, "many", 2.0):
        msg = one_line(MmagenError, mmagen.gemm_kernel, "sm_90a", **k, split_k=sk)
        assert "split_k" in msg and "1 to 256" in msg
    # FP8 wgmma reads K-major operands only: the generator's own message
    msg = one_line(MmagenError, mmagen.gemm_kernel, "sm_90a", "e4m3", "e4m3", "bf16", layout="nt")
    assert msg == cli_error("gemm", "--arch", "sm_90a", "--a", "e4m3", "--b", "e4m3", "--out",
                            "bf16", "--layout", "nt")
    assert "K-major" in msg
    # a target gemm does not run on, and a type pair a target lacks
    msg = one_line(MmagenError, mmagen.gemm_kernel, "sm_100a", **k)
    assert msg == cli_error("gemm", "--arch", "sm_100a", "--a", "bf16", "--b", "bf16", "--out",
                            "bf16")
    msg = one_line(MmagenError, mmagen.gemm_kernel, "sm_80", "e4m3", "e4m3", "bf16")
    assert "sm_89" in msg
    msg = one_line(MmagenError, mmagen.gemm_kernel, "sm_99", **k)
    assert "unknown target" in msg
    # formats: text is an instruction's format, not a GEMM's
    assert "text" in one_line(MmagenError, mmagen.gemm_kernel, "sm_90a", **k, format="text")
    assert "xml" in one_line(MmagenError, mmagen.gemm_kernel, "sm_90a", **k, format="xml")
    # problem, sms, tile, stages, schedule, path
    for p in ((1, 2), (0, 16, 16), (True, 16, 16), (16, 16, 2**31), "16x4096x4096", (16.0, 16, 16)):
        msg = one_line(MmagenError, mmagen.gemm_kernel, "sm_90a", **k, problem=p)
        assert msg.startswith("problem ")
    for s in (-1, 1025, True, "132"):
        msg = one_line(MmagenError, mmagen.gemm_kernel, "sm_90a", **k, problem=(16, 16, 16), sms=s)
        assert msg.startswith("sms ")
    # as the CLI: sms without a problem says nothing
    assert "problem" in one_line(MmagenError, mmagen.gemm_kernel, "sm_90a", **k, sms=132)
    assert "give --problem" in cli_error("gemm", "--arch", "sm_90a", "--a", "bf16", "--b", "bf16",
                                         "--out", "bf16", "--sms", "132")
    for t in ((128,), (128, -1), (128, True), 128):
        msg = one_line(MmagenError, mmagen.gemm_kernel, "sm_90a", **k, tile=t)
        assert msg.startswith("tile ")
    msg = one_line(MmagenError, mmagen.gemm_kernel, "sm_90a", **k, tile=(7, 9))
    assert msg == cli_error("gemm", "--arch", "sm_90a", "--a", "bf16", "--b", "bf16", "--out",
                            "bf16", "--tile", "7x9")
    assert "stages" in one_line(MmagenError, mmagen.gemm_kernel, "sm_90a", **k, stages=-1)
    assert "schedule" in one_line(MmagenError, mmagen.gemm_kernel, "sm_90a", **k, schedule="x")
    assert "path" in one_line(MmagenError, mmagen.gemm_kernel, "sm_90a", **k, path="tcgen05")
    msg = one_line(MmagenError, mmagen.gemm_kernel, "sm_90a", **k, cluster=3)
    assert msg == cli_error("gemm", "--arch", "sm_90a", "--a", "bf16", "--b", "bf16", "--out",
                            "bf16", "--cluster", "3")


PTXAS_CASES = [
    ("sm_90a", {"a": "bf16", "b": "bf16", "out": "bf16"}),
    ("sm_90a", {"a": "f16", "b": "f16", "out": "f16", "layout": "nt"}),
    ("sm_90a", {"a": "e4m3", "b": "e4m3", "out": "bf16"}),
    ("sm_90a", {"a": "s8", "b": "s8", "out": "s32"}),
    ("sm_90a", {"a": "bf16", "b": "bf16", "out": "bf16", "problem": (16, 4096, 4096), "sms": 132}),
    ("sm_80", {"a": "bf16", "b": "bf16", "out": "bf16"}),
]


@pytest.mark.parametrize("arch,kw", PTXAS_CASES,
                         ids=[f"{a}-{k['a']}-{k.get('layout', 'tn')}"
                              + ("-problem" if "problem" in k else "") for a, k in PTXAS_CASES])
def test_gemm_kernel_ptx_assembles(arch: str, kw: Dict[str, Any], tmp_path: Path) -> None:
    if not os.access(PTXAS, os.X_OK):
        pytest.skip(NO_PTXAS)
    src = tmp_path / "k.ptx"
    src.write_text(mmagen.gemm_kernel(arch, **kw))
    r = subprocess.run([PTXAS, f"-arch={arch}", str(src), "-o", str(tmp_path / "k.cubin")],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert (tmp_path / "k.cubin").stat().st_size > 0


# ---- 4. plan() ----

@pytest.fixture(scope="module")
def configs() -> List[str]:
    """Every config, from the CLI's message for an unknown one (the
    installed program's own list)."""
    msg = cli_error("plan", "--quant", "no-such-config", "--arch", "sm_90a")
    m = re.search(r"\(every config: ([^)]*)\)", msg)
    assert m, msg
    found = [c.strip() for c in m.group(1).split(",")]
    assert len(found) >= 20 and "nvfp4" in found and "w8a8-fp8" in found
    return found


def test_plan_configs_are_docs_plan_md(configs: List[str]) -> None:
    doc = ROOT / "docs" / "plan.md"
    if not doc.is_file():
        pytest.skip(f"{doc} is absent (not a checkout)")
    sections = re.findall(r"^## ([\w.-]+): ", doc.read_text(), re.M)
    assert [c for c in sections if c != "Summary"] == configs


def _plan_keys(d: Dict[str, Any]) -> None:
    assert list(d) == field_names(mmagen.Plan)
    for p in d["paths"]:
        assert list(p) == field_names(mmagen.PlanPath)
        for f in p["forms"]:
            assert list(f) == field_names(mmagen.PlanForm)


@pytest.mark.parametrize("arch", PLAN_TARGETS)
def test_plan_equals_cli_json(arch: str, configs: List[str]) -> None:
    for config in configs:
        want = json.loads(cli_out("plan", "--quant", config, "--arch", arch, "--json"))
        _plan_keys(want)
        p = mmagen.plan(config, arch)
        assert isinstance(p, mmagen.Plan)
        assert all(isinstance(x, mmagen.PlanPath) for x in p.paths)
        assert all(isinstance(f, mmagen.PlanForm) for x in p.paths for f in x.forms)
        got = dataclasses.asdict(p)
        for k in want:  # field by field, so that a failure names it
            assert got[k] == want[k], (config, arch, k)
        assert got == want
        assert str(p) == want["verdict"]
        assert p.target == arch


def test_plan_shape() -> None:
    p = mmagen.plan("w8a8-fp8", "sm_90a")
    assert p.native and p.paths[0].available and p.paths[0].forms
    assert p.paths[0].gemm and "mmagen gemm" in p.paths[0].gemm
    assert p.paths[0].forms[0].opcode.startswith("wgmma.")
    # an alias of a config: the CLI's answer to the same spelling
    alias = mmagen.plan("fp8", "sm_90a")
    assert dataclasses.asdict(alias) == json.loads(
        cli_out("plan", "--quant", "fp8", "--arch", "sm_90a", "--json"))


def test_plan_errors() -> None:
    msg = one_line(MmagenError, mmagen.plan, "w3a3", "sm_90a")
    assert msg == cli_error("plan", "--quant", "w3a3", "--arch", "sm_90a")
    assert "unknown quantization config 'w3a3'" in msg
    msg = one_line(MmagenError, mmagen.plan, "nvfp4", "sm_99")
    assert msg == cli_error("plan", "--quant", "nvfp4", "--arch", "sm_99")


# ---- 5. inspect() ----

GEMM_PTX_KW: Dict[str, Any] = {"a": "bf16", "b": "bf16", "out": "bf16"}
TC_PREFIXES = ("wgmma.mma_async", "mma.sync", "mma.sp", "ldmatrix", "stmatrix", "tcgen05.mma")


@pytest.fixture(scope="module")
def gemm_ptx(tmp_path_factory: Any) -> Path:
    p = tmp_path_factory.mktemp("inspect") / "k.ptx"
    p.write_text(mmagen.gemm_kernel("sm_90a", **GEMM_PTX_KW))
    return p


@pytest.fixture(scope="module")
def gemm_cubin(gemm_ptx: Path) -> Path:
    if not os.access(PTXAS, os.X_OK):
        pytest.skip(NO_PTXAS)
    out = gemm_ptx.with_suffix(".cubin")
    subprocess.run([PTXAS, "-arch=sm_90a", str(gemm_ptx), "-o", str(out)], check=True)
    return out


def report_json(r: mmagen.Report) -> Dict[str, Any]:
    """A Report back as the CLI's JSON (SassOp.sass_class is "class")."""
    d = dataclasses.asdict(r)
    for k in d["kernels"]:
        k["sass"] = [{("class" if n == "sass_class" else n): v for n, v in s.items()}
                     for s in k["sass"]]
    return {k: d[k] for k in ("images", "kernels", "notes")}


def check_report_keys(d: Dict[str, Any]) -> None:
    assert set(field_names(mmagen.Report)) == set(d) | {"complete", "text"}
    assert list(d) == ["images", "kernels", "notes"]
    for i in d["images"]:
        assert list(i) == field_names(mmagen.ReportImage)
    for k in d["kernels"]:
        assert list(k) == field_names(mmagen.ReportKernel)
        for o in k["ptx"]:
            assert list(o) == field_names(mmagen.PtxOp)
        for s in k["sass"]:
            assert list(s) == [("class" if n == "sass_class" else n)
                               for n in field_names(mmagen.SassOp)]
        for v in k["verdicts"]:
            assert list(v) == field_names(mmagen.Verdict)


def compare_with_cli(path: Path, *extra: str) -> mmagen.Report:
    """inspect() on the path and on its bytes, each equal to the CLI."""
    rj = run_cli("inspect", str(path), "--json", *extra, env=dict(os.environ))
    rt = run_cli("inspect", str(path), *extra, env=dict(os.environ))
    assert rj.returncode in (0, 3) and rt.returncode == rj.returncode, rj.stderr
    want = json.loads(rj.stdout)
    check_report_keys(want)
    arch = extra[1] if extra else None
    reports = [mmagen.inspect(path, arch=arch), mmagen.inspect(path.read_bytes(), arch=arch)]
    for r in reports:
        assert isinstance(r, mmagen.Report)
        assert report_json(r) == want
        assert r.complete == (rj.returncode == 0)
        assert str(r) == rt.stdout == r.text
        for k in r.kernels:
            assert all(isinstance(o, mmagen.PtxOp) for o in k.ptx)
            assert all(isinstance(s, mmagen.SassOp) for s in k.sass)
            assert all(isinstance(v, mmagen.Verdict) for v in k.verdicts)
    return reports[0]


def ptx_opcode_counts(ptx: str) -> Dict[str, int]:
    """Tensor-core opcodes of PTX text, counted from the text itself."""
    counts: Dict[str, int] = {}
    for line in ptx.splitlines():
        toks = line.split()
        if toks and toks[0].startswith("@"):
            toks = toks[1:]
        if toks and toks[0].startswith(TC_PREFIXES):
            counts[toks[0]] = counts.get(toks[0], 0) + 1
    return counts


def test_inspect_ptx_equals_cli(gemm_ptx: Path) -> None:
    r = compare_with_cli(gemm_ptx)
    text = gemm_ptx.read_text()
    assert [k.name for k in r.kernels] == re.findall(r"\.entry\s+(\w+)", text)
    want = ptx_opcode_counts(text)
    assert want, "the PTX has no tensor-core instruction"
    got = {o.opcode: o.count for k in r.kernels for o in k.ptx}
    assert got == want
    assert [(i.kind, i.target) for i in r.images] == [("ptx", "sm_90a")]
    wg = [o for k in r.kernels for o in k.ptx if o.family == "wgmma"]
    assert wg and all(o.a == "bf16" and o.in_table for o in wg)


def test_inspect_ptx_with_arch_equals_cli(gemm_ptx: Path) -> None:
    compare_with_cli(gemm_ptx, "--arch", "sm_90a")


def test_inspect_cubin_equals_cli(gemm_cubin: Path) -> None:
    r = compare_with_cli(gemm_cubin)
    assert [i.kind for i in r.images] == ["cubin"] and r.images[0].sm == 90
    # a str path as well as a Path
    assert report_json(mmagen.inspect(str(gemm_cubin))) == report_json(r)
    # a cubin's kernels come from its SASS: none listed when no tool read it
    assert r.complete or (r.kernels == [] and r.notes)


def test_inspect_without_sass_tools_is_incomplete(gemm_cubin: Path, gemm_ptx: Path,
                                                  monkeypatch: Any) -> None:
    # set but empty: "not there" (cli_inspect.c); the PTX is still reported
    monkeypatch.setenv("NVDISASM", "")
    monkeypatch.setenv("CUOBJDUMP", "")
    r = compare_with_cli(gemm_ptx)
    assert not r.complete and r.notes and r.notes[0] in str(r)
    assert "nvdisasm" in r.notes[0]
    assert all(not k.sass for k in r.kernels)
    assert {o.opcode: o.count for k in r.kernels for o in k.ptx} == ptx_opcode_counts(
        gemm_ptx.read_text())


# SASS as nvdisasm -c prints it (trimmed from the real tool's output for this
# kernel on sm_90a), for a stand-in nvdisasm: the SASS half of the report
# (SassOp, "class", verdicts) without the tool installed.
CANNED_SASS = """\t.target\tsm_90a

\t.elftype\t@"ET_EXEC"


//--------------------- .text.mmagen_gemm         --------------------------
\t.section\t.text.mmagen_gemm,"ax",@progbits
\t.align\t128
        .global         mmagen_gemm
        .type           mmagen_gemm,@function
        .size           mmagen_gemm,(.L_x_60 - mmagen_gemm)
        .other          mmagen_gemm,@"STO_CUDA_ENTRY STV_DEFAULT"
mmagen_gemm:
.text.mmagen_gemm:
        /*0000*/                   LDC R1, c[0x0][0x28] ;
        /*0010*/                   I2F.U32.RP R0, 0x100 ;
        /*13f0*/                   HGMMA.64x256x16.F32.BF16 R24, gdesc[UR20], R24, UP0 ;
        /*1410*/                   HGMMA.64x256x16.F32.BF16 R24, gdesc[UR24], R24 ;
        /*1420*/                   HMMA.16816.F32.BF16 R4, R8, R12, R4 ;
        /*1430*/                   EXIT ;
"""


def test_inspect_sass_with_canned_nvdisasm(gemm_cubin: Path, gemm_ptx: Path, tmp_path: Path,
                                           monkeypatch: Any) -> None:
    sass = tmp_path / "sass.txt"
    sass.write_text(CANNED_SASS)
    tool = tmp_path / "nvdisasm"
    tool.write_text(f"#!/bin/sh\ncat '{sass}'\n")
    tool.chmod(0o755)
    monkeypatch.setenv("NVDISASM", str(tool))
    monkeypatch.setenv("CUOBJDUMP", "")
    for path in (gemm_ptx, gemm_cubin):
        r = compare_with_cli(path)
        assert r.complete and not r.notes
        (k,) = r.kernels
        assert k.name == re.findall(r"\.entry\s+(\w+)", gemm_ptx.read_text())[0]
        got = {(s.target, s.mnemonic, s.sass_class, s.shape, s.a, s.b, s.count) for s in k.sass}
        assert got == {("sm_90a", "I2F.U32.RP", "convert", "", "", "", 1),
                       ("sm_90a", "HGMMA.64x256x16.F32.BF16", "HGMMA", "64x256x16", "bf16", "bf16",
                        2),
                       ("sm_90a", "HMMA.16816.F32.BF16", "HMMA", "16816", "bf16", "bf16", 1)}
        assert [v.target for v in k.verdicts] == ["sm_90a"]
        # the PTX's wgmma is native as HGMMA; a cubin alone has no PTX to judge
        assert k.verdicts[0].verdict == ("native" if path == gemm_ptx else "unknown")


def _real_nvdisasm() -> Optional[str]:
    return os.environ.get("NVDISASM") or shutil.which("nvdisasm") or (
        "/usr/local/cuda/bin/nvdisasm" if os.access("/usr/local/cuda/bin/nvdisasm", os.X_OK)
        else None)


def test_inspect_sass_with_real_nvdisasm(gemm_cubin: Path, gemm_ptx: Path) -> None:
    if not _real_nvdisasm():
        pytest.skip("no nvdisasm ($NVDISASM, PATH, /usr/local/cuda/bin): "
                    "the canned-SASS test covers this path")
    for path in (gemm_ptx, gemm_cubin):
        r = compare_with_cli(path)
        assert r.complete
        hg = [s for k in r.kernels for s in k.sass if s.sass_class == "HGMMA"]
        assert hg and all(s.a == "bf16" for s in hg)


def test_inspect_errors(tmp_path: Path) -> None:
    junk = tmp_path / "junk.txt"
    junk.write_text("hello world\n")
    msg = one_line(MmagenError, mmagen.inspect, junk)
    assert msg == cli_error("inspect", str(junk))
    assert "not PTX, an ELF file or a fatbinary" in msg
    for data in (b"hello world\n", b"", b"\x7fELF\x02\x01\x01garbage"):
        msg = one_line(MmagenError, mmagen.inspect, data)
        assert "mmagen-inspect-" not in msg and msg.startswith("the bytes given: "), msg
    msg = one_line(MmagenError, mmagen.inspect, tmp_path / "missing.ptx")
    assert "missing.ptx" in msg and "not a file" in msg
    msg = one_line(MmagenError, mmagen.inspect, tmp_path)
    assert "not a file" in msg


# ---- 6. gemm() argument checks, no GPU ----

class FakeArray:
    """A device array as __cuda_array_interface__ (v3) describes one; its
    address is never read unless a launch happens."""

    def __init__(self, shape: Sequence[int], typestr: str = "<f2", order: Any = "C",
                 ptr: Optional[int] = 0x7F0000000000) -> None:
        size = {"<f2": 2, "<f4": 4, "|i1": 1, "|u1": 1, "<i4": 4}.get(typestr, 2)
        strides: Optional[Sequence[int]]
        if len(shape) != 2:
            strides = None
        elif order == "C":
            strides = (shape[1] * size, size)
        elif order == "F":
            strides = (size, shape[0] * size)
        else:
            strides = order  # bytes, as given
        self.__cuda_array_interface__ = {"shape": tuple(shape), "typestr": typestr,
                                         "data": (ptr, False), "strides": strides, "version": 3}


def F(*shape: int, t: str = "<f2", order: Any = "C") -> FakeArray:
    return FakeArray(shape, t, order)


def _driver() -> bool:
    try:
        ctypes.CDLL("libcuda.so.1")
        return True
    except OSError:
        return False


HAS_DRIVER = _driver()

# Each is refused in Python before the driver or the device is touched
# (operand(), the shape and stride checks, out/c, alpha/beta, device).
GEMM_ARG_ERRORS = [
    ("3-D a", lambda: mmagen.gemm(F(2, 64, 32), F(32, 16, order="F"), out=F(64, 16)),
     "a has 3 dimensions"),
    ("1-D b", lambda: mmagen.gemm(F(64, 32), F(32), out=F(64, 16)), "b has 1 dimensions"),
    ("bad typestr", lambda: mmagen.gemm(F(64, 32, t="<f8"), F(32, 16, order="F"), out=F(64, 16)),
     "typestr '<f8' is not a GEMM element type"),
    ("K mismatch", lambda: mmagen.gemm(F(64, 32), F(31, 16, order="F"), out=F(64, 16)),
     "b needs 32 rows"),
    ("zero M", lambda: mmagen.gemm(F(0, 32), F(32, 16, order="F"), out=F(0, 16)),
     "each must be at least 1"),
    ("a neither major", lambda: mmagen.gemm(F(64, 32, order=(128, 4)), F(32, 16, order="F"),
                                            out=F(64, 16)),
     "a's strides (64, 2) are neither row- nor column-major"),
    ("b neither major", lambda: mmagen.gemm(F(64, 32), F(32, 16, order=(64, 64)), out=F(64, 16)),
     "b's strides (32, 32) are neither row- nor column-major"),
    ("strides not whole elements", lambda: mmagen.gemm(F(64, 32, order=(65, 1)),
                                                       F(32, 16, order="F"), out=F(64, 16)),
     "not whole elements of 2 bytes"),
    ("s8 with B row-major", lambda: mmagen.gemm(F(64, 32, t="|i1"), F(32, 16, t="|i1"),
                                                out=F(64, 16, t="<i4")),
     "b.t().contiguous().t()"),
    ("s8 with A column-major", lambda: mmagen.gemm(F(64, 32, t="|i1", order="F"),
                                                   F(32, 16, t="|i1", order="F"),
                                                   out=F(64, 16, t="<i4")),
     "a.contiguous()"),
    ("tf32 with B row-major", lambda: mmagen.gemm(F(64, 32, t="<f4"), F(32, 16, t="<f4"),
                                                  out=F(64, 16, t="<f4")),
     "b.t().contiguous().t()"),
    ("no out for non-torch", lambda: mmagen.gemm(F(64, 32), F(32, 16, order="F")),
     "out= is needed"),
    ("out wrong shape", lambda: mmagen.gemm(F(64, 32), F(32, 16, order="F"), out=F(64, 17)),
     "out is 64 x 17: give M x N = 64 x 16"),
    ("out wrong type", lambda: mmagen.gemm(F(64, 32), F(32, 16, order="F"), "f16",
                                           out=F(64, 16, t="<f4")),
     "out holds f32"),
    ("out column-major", lambda: mmagen.gemm(F(64, 32), F(32, 16, order="F"),
                                             out=F(64, 16, order="F")),
     "out's strides (1, 64) are not row-major"),
    ("c wrong shape", lambda: mmagen.gemm(F(64, 32), F(32, 16, order="F"), out=F(64, 16),
                                          c=F(64, 15)),
     "c is 64 x 15"),
    ("c wrong type", lambda: mmagen.gemm(F(64, 32), F(32, 16, order="F"), out=F(64, 16),
                                         c=F(64, 16, t="<f4")),
     "c holds f32"),
    ("beta without c", lambda: mmagen.gemm(F(64, 32), F(32, 16, order="F"), out=F(64, 16),
                                           beta=0.5),
     "beta = 0.5 needs c"),
    ("negative device", lambda: mmagen.gemm(F(64, 32), F(32, 16, order="F"), out=F(64, 16),
                                            device=-1),
     "device -1 is not a CUDA device index"),
    ("bool device", lambda: mmagen.gemm(F(64, 32), F(32, 16, order="F"), out=F(64, 16),
                                        device=True),
     "device True is not a CUDA device index"),
    ("alpha as a string", lambda: mmagen.gemm(F(64, 32), F(32, 16, order="F"), out=F(64, 16),
                                              alpha="2"),
     "alpha = '2': give a Python number"),
    ("scale_a as a string", lambda: mmagen.gemm(F(64, 32), F(32, 16, order="F"), out=F(64, 16),
                                                scale_a="x"),
     "scale_a = 'x'"),
    ("beta as a bool", lambda: mmagen.gemm(F(64, 32), F(32, 16, order="F"), out=F(64, 16),
                                           c=F(64, 16), beta=True),
     "beta = True"),
    ("not an array", lambda: mmagen.gemm([[1.0]], F(32, 16, order="F"), out=F(64, 16)),
     "a is a list"),
    ("no data pointer", lambda: mmagen.gemm(FakeArray((64, 32), ptr=None), F(32, 16, order="F"),
                                            out=F(64, 16)),
     "has no data pointer"),
    ("bad stream", lambda: mmagen.gemm(F(64, 32), F(32, 16, order="F"), out=F(64, 16),
                                       stream="x"),
     "stream 'x'"),
]


@pytest.mark.parametrize("call,expect", [(c, e) for _, c, e in GEMM_ARG_ERRORS],
                         ids=[n for n, _, _ in GEMM_ARG_ERRORS])
def test_gemm_argument_errors_without_gpu(call: Any, expect: str) -> None:
    msg = one_line(MmagenError, call)
    assert expect in msg, msg


def test_device_info_argument_errors() -> None:
    for d in (-1, True, "0", 1.0):
        assert "not a CUDA device index" in one_line(MmagenError, mmagen.device_info, d)


VALID_FAKE_CALLS = [
    ("f16 tn", lambda: mmagen.gemm(F(64, 32), F(32, 16, order="F"), out=F(64, 16))),
    ("f16 nt, out f32", lambda: mmagen.gemm(F(64, 32, order="F"), F(32, 16),
                                            out=F(64, 16, t="<f4"))),
    ("s8 -> s32", lambda: mmagen.gemm(F(64, 32, t="|i1"), F(32, 16, t="|i1", order="F"),
                                      out=F(64, 16, t="<i4"))),
    ("tf32 with c", lambda: mmagen.gemm(F(64, 32, t="<f4"), F(32, 16, t="<f4", order="F"),
                                        out=F(64, 16, t="<f4"), c=F(64, 16, t="<f4"),
                                        alpha=2, beta=0.5)),
    ("M = 1 column vector b", lambda: mmagen.gemm(F(1, 32, t="|i1"), F(32, 1, t="|i1"),
                                                  out=F(1, 1, t="<i4"))),
    ("device 1", lambda: mmagen.gemm(F(64, 32), F(32, 16, order="F"), out=F(64, 16), device=1)),
]


@pytest.mark.skipif(HAS_DRIVER, reason="a CUDA driver is present: the fake operands' addresses "
                    "would be launched on")
@pytest.mark.parametrize("call", [c for _, c in VALID_FAKE_CALLS],
                         ids=[n for n, _ in VALID_FAKE_CALLS])
def test_gemm_valid_call_reaches_the_driver(call: Any) -> None:
    """Every check passed: the next step opens the driver, which is not here."""
    msg = one_line(DeviceError, call)
    assert "CUDA driver" in msg or "libcuda" in msg, msg


@pytest.mark.skipif(HAS_DRIVER, reason="a CUDA driver is present")
def test_device_info_without_driver() -> None:
    assert "libcuda" in one_line(DeviceError, mmagen.device_info, 0)


@pytest.mark.parametrize("call", [
    lambda: mmagen.gemm(F(64, 32, t="|i1"), F(32, 16, order="F"), out=F(64, 16)),
    lambda: mmagen.gemm(F(64, 32), F(32, 16, order="F"), out=F(64, 16), arch="sm_99"),
], ids=["s8 x f16", "unknown arch"])
def test_gemm_request_refused_before_the_driver(call: Any) -> None:
    one_line(MmagenError, call)


# ---- 7. importing and the command without a GPU ----

def test_import_without_gpu_in_a_subprocess(tmp_path: Path) -> None:
    first = cli_forms("sm_90a", ["--family", "wgmma"])[0]["opcode"]
    code = ("import sys, mmagen; print(mmagen.forms('sm_90a', family='wgmma')[0]); "
            "print('torch' in sys.modules)")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                       cwd=tmp_path, env=env)
    assert r.returncode == 0, r.stderr
    assert r.stdout == f"{first}\nFalse\n"  # importing mmagen does not import torch


def test_python_dash_m_and_console_script(tmp_path: Path) -> None:
    want = cli_out("list", "--targets")
    r = subprocess.run([sys.executable, "-m", "mmagen", "list", "--targets"], capture_output=True,
                       text=True, cwd=tmp_path)
    assert r.returncode == 0 and r.stdout == want, r.stderr
    script = Path(sys.executable).parent / "mmagen"
    if not script.exists():
        pytest.skip(f"no console script next to {sys.executable} (not a pip-installed venv)")
    r = subprocess.run([str(script), "list", "--targets"], capture_output=True, text=True)
    assert r.returncode == 0 and r.stdout == want, r.stderr
    r = subprocess.run([str(script), "--version"], capture_output=True, text=True)
    assert r.returncode == 0 and r.stdout.split() == ["mmagen", mmagen.__version__]
    r = subprocess.run([str(script), "no-such-command"], capture_output=True, text=True)
    assert r.returncode == 2 and "unknown command" in r.stderr


def test_public_names() -> None:
    for name in mmagen.__all__:
        assert hasattr(mmagen, name), name
    assert Path(CLI).name == "mmagen" and os.access(CLI, os.X_OK)
    assert re.fullmatch(r"\d+\.\d+\.\d+", mmagen.__version__)


# ---- 8. mypy --strict over the package ----

def test_mypy_strict(tmp_path: Path) -> None:
    if importlib.util.find_spec("mypy") is None:
        pytest.skip("mypy is not installed (pip install mypy, or the package's [test] extra)")
    # the installed package's sources and stubs, away from site-packages
    # (mypy refuses to check a directory that holds other top-level modules)
    src = Path(mmagen.__file__).parent
    dst = tmp_path / "mmagen"
    dst.mkdir()
    names = [p.name for p in src.iterdir() if p.suffix in (".py", ".pyi") or p.name == "py.typed"]
    assert {"__init__.py", "_native.pyi", "py.typed"} <= set(names)
    for n in names:
        shutil.copy(src / n, dst / n)
    r = subprocess.run([sys.executable, "-m", "mypy", "--strict", "--cache-dir",
                        str(tmp_path / ".mypy_cache"), "-p", "mmagen"],
                       capture_output=True, text=True, cwd=tmp_path)
    assert r.returncode == 0, r.stdout + r.stderr
    assert r.stdout.startswith("Success"), r.stdout
