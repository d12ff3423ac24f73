"""The simulator's settings (sim/settings.py): read once, changed for a while, misspelt ones
refused."""

import os
import resource
import subprocess
import sys
from pathlib import Path

import pytest

from helpers.sim import settings as settings_module
from helpers.sim.settings import settings

ROOT = Path(__file__).resolve().parents[2]


def test_module_settings_can_be_changed_for_a_while_and_come_back():
    before = settings.workers
    with settings.changed(workers=1, racecheck=True):
        assert settings.workers == 1 and settings.racecheck
    assert settings.workers == before and not settings.racecheck
    with pytest.raises(AttributeError, match="no setting 'wokers'"):
        settings.update(wokers=2)
    with pytest.raises(ValueError, match="CUDA_SIM_WORKERS='two'"):
        type(settings).from_environ({"CUDA_SIM_WORKERS": "two"})


def test_the_device_memory_budget_fits_the_cgroup_the_process_runs_in(tmp_path):
    """In a container or a JupyterHub spawner the cgroup's limit, not the machine's RAM, is what
    the process may use: a budget above it lets an array through that the OOM killer answers."""
    root = tmp_path / "cgroup"
    (root / "hub" / "learner").mkdir(parents=True)
    (root / "memory.max").write_text("max\n")
    (root / "hub" / "memory.max").write_text(f"{3 << 30}\n")
    (root / "hub" / "learner" / "memory.max").write_text(f"{2 << 30}\n")
    v2 = tmp_path / "v2"
    v2.write_text("0::/hub/learner\n")
    assert settings_module._cgroup_limit(v2, root) == 2 << 30
    (root / "memory" / "docker" / "abc").mkdir(parents=True)
    (root / "memory" / "docker" / "abc" / "memory.limit_in_bytes").write_text(f"{1 << 30}\n")
    v1 = tmp_path / "v1"
    v1.write_text("7:cpu,cpuacct:/docker/abc\n5:memory:/docker/abc\n")
    assert settings_module._cgroup_limit(v1, root) == 1 << 30
    none = tmp_path / "none"
    none.write_text("0::/\n")
    assert settings_module._cgroup_limit(none, root) is None


def test_the_device_memory_budget_fits_the_address_space_limit():
    """ulimit -v (RLIMIT_AS) caps what the process may map: the budget is a quarter of it."""
    limit = 6 << 30
    code = "from helpers.sim.settings import settings; print(settings.device_memory)"
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60,
                         cwd=ROOT, env={**os.environ, "CUDA_SIM_MEMORY": ""},
                         preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_AS,
                                                               (limit, resource.RLIM_INFINITY)))
    assert run.returncode == 0, run.stderr
    assert int(run.stdout) == min(limit, settings_module.usable_memory()) // 4 >> 20 << 20
