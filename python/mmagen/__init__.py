"""mmagen: PTX for every NVIDIA tensor-core MMA, and GEMM kernels generated
and launched at run time on PyTorch tensors.

    import mmagen, torch
    mmagen.forms("sm_90a", family="wgmma", a="bf16")[0]   # a Form
    mmagen.emit("sm_90a", "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32")
    mmagen.plan("w8a8-fp8", "sm_90a").verdict
    d = mmagen.gemm(a, b)          # a, b: CUDA tensors; D = a @ b

Nothing here needs a GPU but gemm() and device_info(); importing needs
neither a GPU nor torch.  Errors: MmagenError (a ValueError: the request,
with the rule and the nearest legal value) and DeviceError (a
RuntimeError: the driver, the device or a launch)."""
from ._native import DeviceError, MmagenError
from ._native import version as _version
from ._tables import (Form, Plan, PlanForm, PlanPath, PtxOp, Report, ReportImage,
                      ReportKernel, SassOp, Verdict, cli_path, emit, forms, gemm_kernel,
                      inspect, plan, targets)
from ._gemm import DeviceInfo, clear_cache, device_info, gemm

__version__: str = _version()

__all__ = [
    "DeviceError", "MmagenError", "Form", "Plan", "PlanForm", "PlanPath", "PtxOp", "Report",
    "ReportImage", "ReportKernel", "SassOp", "Verdict", "cli_path", "emit", "forms",
    "gemm_kernel", "inspect", "plan", "targets", "DeviceInfo", "clear_cache", "device_info", "gemm",
    "__version__",
]
