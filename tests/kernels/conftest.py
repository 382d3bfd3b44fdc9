"""Shared fixtures of the kernel tests: ptxas, and whether a CUDA device can be used.

With CI=true a missing ptxas fails the tests that need it (the `test` extra pins
nvidia-cuda-nvcc, so CI must have it); elsewhere they skip. GPU tests skip cleanly when
cuda-python is missing or cuInit fails (no driver, no device), which is always so in CI.
"""
from __future__ import annotations

import os

import pytest


@pytest.fixture(scope="session")
def ptxas_tool():
    from compiler.backends.ptxas import find_ptxas
    tool = find_ptxas()
    if tool is None:
        msg = "ptxas not found (pip install nvidia-cuda-nvcc==13.0.*)"
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(msg + "; CI must check PTX")
        pytest.skip(msg)
    return tool

