"""A cell that needs more of the GPU than this one has says so and skips (helpers/capability.py);
on a GPU that has it, it shows nothing. Run on whichever backend is chosen: the limits asked are
this device's own, and those just above them."""

import pytest

from helpers import capability
from helpers.backend import drv


@pytest.fixture
def shown(monkeypatch):
    """What the helpers display in a Jupyter cell (IPython's display, stood in for)."""
    said = []
    monkeypatch.setattr("IPython.get_ipython", lambda: object())
    monkeypatch.setattr("IPython.display.display", lambda data, raw: said.append(data))
    return said


def _device():
    dev = drv.Context.get_device()
    return dev.compute_capability(), dev.get_attribute(
        drv.device_attribute.MAX_SHARED_MEMORY_PER_BLOCK_OPTIN)


def test_what_this_gpu_has_shows_nothing(shown):
    cc, optin = _device()
    assert capability.has_compute_capability(cc, "a feature") and \
        capability.has_compute_capability((cc[0] - 1, 0), "an older one")
    assert capability.has_shared_memory(optin, "as much shared memory as it allows")
    assert shown == []


def test_what_needs_a_newer_gpu_is_skipped_with_its_facts(shown):
    (major, minor), optin = _device()
    assert not capability.has_compute_capability((major + 1, 0), "clusters")
    assert not capability.has_shared_memory(optin + 1024, "a bigger block")
    assert [s[capability.NEEDS_NEWER_GPU] for s in shown] == [
        {"what": "clusters", "needs": f"compute capability {major + 1}.0",
         "has": f"compute capability {major}.{minor}"},
        {"what": "a bigger block", "needs": f"{optin // 1024 + 1} KiB of shared memory a block",
         "has": f"{optin // 1024} KiB"}]
    assert shown[0]["text/plain"].startswith("Skipped on this GPU: clusters needs compute")


def test_outside_jupyter_the_skip_is_printed(capsys):
    (major, _), _ = _device()
    assert not capability.has_compute_capability((major + 1, 0), "clusters")
    assert capsys.readouterr().out.startswith("Skipped on this GPU: clusters needs")
