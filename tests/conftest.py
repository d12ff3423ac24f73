"""On a GPU, the verdicts that depend on its speed (``gpu_timing``) wait for a run of their own.

Under pytest-xdist every worker launches kernels on the same GPU, so a bandwidth measured in one
worker is shared with the others' kernels: a right solution can miss its target, and copies that
should not overlap can seem to. There these tests are skipped, with the command that runs them
alone. On the simulator the checkers do not time anything, and they run everywhere.

The simulator's compile caches of a test's own (``empty_cache``, ``private_cache``) are fixtures
here, for the compiler's tests in more than one file.
"""

import os

import pytest
from caches import seeded
from kernel_sources import find_nvcc, nvcc_accepted

from helpers.sim.settings import settings


def pytest_collection_modifyitems(config, items):
    from helpers.backend import BACKEND

    if BACKEND != "pycuda" or not os.environ.get("PYTEST_XDIST_WORKER"):
        return
    alone = pytest.mark.skip(reason="timed on a GPU that the other pytest-xdist workers share: "
                                    "run `pytest -m gpu_timing -n 0`")
    for item in items:
        if "gpu_timing" in item.keywords:
            item.add_marker(alone)


@pytest.fixture
def empty_cache(tmp_path):
    folder = tmp_path / "cache"
    with settings.changed(cache_dir=str(folder)):
        yield folder


@pytest.fixture
def private_cache(tmp_path):
    """A cache of its own that holds what the run's cache has prebuilt (caches.seeded)."""
    folder = seeded(tmp_path / "cache")
    with settings.changed(cache_dir=str(folder)):
        yield folder


@pytest.fixture(scope="module")
def nvcc():
    """nvcc's path; skipped where there is none, but a failure under CI, which has the CUDA
    toolkit: there every kernel and every stub must be compiled by it."""
    path = find_nvcc()
    if path is None:
        if os.environ.get("CI"):
            pytest.fail("nvcc not found (PATH, /usr/local/cuda/bin) but CI is set: CI must "
                        "compile every kernel and stub with nvcc")
        pytest.skip("nvcc not found on PATH or in /usr/local/cuda/bin")
    return path


@pytest.fixture(scope="module")
def accepted(nvcc):
    """The folder of nvcc's kept verdicts (kernel_sources.nvcc_accepted)."""
    return nvcc_accepted(nvcc)

