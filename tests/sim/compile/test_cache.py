"""The cache of compiled modules (compile/cache.py, compile/builder.py): shared safely between
processes, never compiling a module twice, and PyCUDA's cache_dir and keep."""

import errno
import os
import subprocess
import sys
import textwrap
import uuid
from pathlib import Path

import pytest

from helpers.sim import driver as drv
from helpers.sim.compile import builder
from helpers.sim.compiler import SourceModule
from helpers.sim.settings import settings

from caches import PREBUILT, seeded


@pytest.mark.slow
def test_cache_is_shared_by_two_processes_compiling_at_once(tmp_path):
    """Both compile the same new module into a cache that holds what the run's has prebuilt
    (each process building the runners too cost 2.4 of the test's 5 CPU-seconds)."""
    source = f"__global__ void k(int *x) {{ x[0] = {uuid.uuid4().int % 100000}; }}"
    script = textwrap.dedent(f"""
        from helpers.sim.compiler import SourceModule
        print(SourceModule({source!r}).path)
    """)
    env = {**os.environ, "CUDA_COURSE_CACHE_DIR": str(seeded(tmp_path)),
           "PYTHONPATH": str(Path(__file__).resolve().parents[3])}
    procs = [subprocess.Popen([sys.executable, "-c", script], env=env, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True) for _ in range(2)]
    results = [p.communicate(timeout=120) for p in procs]
    assert all(p.returncode == 0 for p in procs), results
    paths = {out.strip() for out, _ in results}
    assert len(paths) == 1
    files = [p for p in tmp_path.rglob("*") if p.is_file()]
    libraries = [p for p in files if not p.parent.name.startswith(PREBUILT)]
    assert [p.name for p in libraries] == [Path(paths.pop()).name]  # no partial files left
    assert not [p for p in files if p.name.startswith(".")]  # nor beside what is prebuilt


def test_a_cached_module_is_not_compiled_again(tmp_path, monkeypatch):
    """...until the compiler flags change: a module built with other flags is another module."""
    class Compiled(Exception):
        pass

    def compile_(*args):
        raise Compiled

    source = f"__global__ void k(int *x) {{ x[0] = {uuid.uuid4().int % 100000}; }}"
    with settings.changed(cache_dir=str(seeded(tmp_path))):
        first = SourceModule(source).path
        monkeypatch.setattr(builder, "_run", compile_)
        assert SourceModule(source).path == first
        monkeypatch.setattr(builder, "CXX_FLAGS", [*builder.CXX_FLAGS, "-DANOTHER_FLAG"])
        with pytest.raises(Compiled):
            SourceModule(source)


def test_cache_dir_and_keep_mean_what_they_mean_in_pycuda(tmp_path, capsys):
    source = f"__global__ void k(int *x) {{ x[0] = {uuid.uuid4().int % 100000}; }}"
    mod = SourceModule(source, cache_dir=str(tmp_path / "mine"))
    assert mod.path.parent == tmp_path / "mine"
    kept = SourceModule(source, cache_dir=False, keep=True)
    out = capsys.readouterr().out
    assert kept.path.parent != tmp_path / "mine" and "*** compiler output in" in out
    folder = Path(out.split("*** compiler output in", 1)[1].split()[0])
    assert (folder / "module.cpp").is_file()


def test_a_full_disk_is_named_as_such_not_blamed_on_the_source(tmp_path):
    """GCC's 'No space left on device', or the cache's own write failing with ENOSPC, is a full
    disk: the message says so and what to do, instead of a compile error of the grid runner."""
    from helpers.sim.compile import cache, messages

    said = "cc1plus: fatal error: error writing to /tmp/ccQ1.s: No space left on device\n"
    err = messages.compile_error("kernel.cu", said)
    assert "the disk is full" in str(err) and "CUDA_COURSE_CACHE_DIR" in str(err)

    def full(partial):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), partial)

    with pytest.raises(drv.CompileError, match="the disk is full.*the source is not at fault"):
        cache.install(full, tmp_path / "k.so")
    assert list(tmp_path.iterdir()) == []  # no partial file left behind
