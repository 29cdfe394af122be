"""Shared by tests/python: the GPU tests need torch with a CUDA device and
skip without (CI's machine has neither); the rest need neither."""
from __future__ import annotations

import pytest


def _gpu_reason() -> str:
    try:
        import torch
    except ImportError:
        return "torch is not installed"
    if not torch.cuda.is_available():
        return "torch sees no CUDA device"
    return ""


GPU_SKIP = _gpu_reason()
gpu = pytest.mark.skipif(bool(GPU_SKIP), reason=GPU_SKIP or "GPU present")
