"""How pytest runs the course: the notebooks as the student release ships them, in one run;
Python's bytecode kept; nbval loaded here (below, with why).

With nbval on (pyproject.toml turns it on), the notebooks execute in a copy of the course made by
``tools/student_release.py``: the course's files (those git tracks and those it does not track
yet and does not ignore, or in a copy without git those that .gitignore does not ignore), without
any ``solutions/`` folder, ``tests/`` or ``.ci/``, with every exercise stub as shipped, and the
copy's own ``helpers`` package first on the kernel's path. So the one run that checks the notebooks also proves that they work without
the answers, with what learners are handed. Test ids and reports keep the checkout's paths
(``notebooks/NN_....ipynb::Cell N``); the kernel's working folder is the copy's ``notebooks/``.
On the simulator the kernel is a GPU of compute capability 7.5 (LOWEST_COMPUTE_CAPABILITY).

The copy is made once per pytest run, by the process that starts it (before pytest-xdist starts
its workers, which find it through ``CUDA_COURSE_RELEASE_UNDER_TEST``), and deleted at the end.
A notebook the release does not hold (one that git ignores) runs where it is.

Python's compiled bytecode is kept (``__pycache__``, which git ignores) even where the
environment says not to (``PYTHONDONTWRITEBYTECODE``, set on some CI images): a run imports the
course's modules in a dozen processes (pytest-xdist's workers, the Jupyter kernels, the tools the
tests start), and compiling them again in each cost 7 of the 85 CPU-seconds of a warm run.
"""

import ctypes
import functools
import importlib.util
import os
import shutil
import sys
import tempfile
from pathlib import Path

import py
import pytest

ROOT = Path(__file__).resolve().parent
NOTEBOOKS = ROOT / "notebooks"
RELEASE_UNDER_TEST = "CUDA_COURSE_RELEASE_UNDER_TEST"
COMPUTE_CAPABILITY = "CUDA_SIM_COMPUTE_CAPABILITY"
LOWEST_COMPUTE_CAPABILITY = "7.5"
"""The notebooks run on the simulator as a T4 (Colab's free GPU), the lowest GPU learners have:
a cell that needs more must say so and skip (helpers/capability.py). The NBVAL_CHECK_OUTPUT
cells print the same at every capability, so the outputs stored from the H200 (9.0) still
hold; tools/cc_matrix.py runs the notebooks at the other capabilities."""

sys.dont_write_bytecode = False  # for this process's imports from now on (the tests, helpers)
os.environ.pop("PYTHONDONTWRITEBYTECODE", None)  # for the workers and everything they start


def _keep_freed_memory():
    """Memory NumPy frees is kept for its next arrays. glibc's malloc gives an array of 128 KiB or
    more a mapping of its own and unmaps it when freed, so the checkers' next array of that size
    has new pages, which the kernel zeroes as each is first touched: 32% of the CPU time of
    tests/exercises/test_scale_vector.py (perf, in clear_page). With no such mappings and no heap
    given back, the same pages serve again: a warm run of the unit tests on two workers spends 5
    to 9 fewer CPU-seconds in the system (bench/RESULTS.md). The environment is for the processes
    the run starts (pytest-xdist's workers, the Jupyter kernels, the tools the tests start);
    mallopt for this one. Other C libraries do without."""
    os.environ.setdefault("MALLOC_MMAP_MAX_", "0")
    os.environ.setdefault("MALLOC_TRIM_THRESHOLD_", str(2**31 - 1))
    mallopt = getattr(ctypes.CDLL(None), "mallopt", None)
    if mallopt and sys.platform.startswith("linux"):
        mallopt(M_MMAP_MAX, 0)
        mallopt(M_TRIM_THRESHOLD, 2**31 - 1)


M_TRIM_THRESHOLD, M_MMAP_MAX = -1, -4  # glibc's <malloc.h>
_keep_freed_memory()


def _pycuda_cache_of_this_worker():
    """Each pytest-xdist worker its own PyCUDA compile cache. PyCUDA writes a cubin into its cache
    as nvcc's output comes, not under another name first, so a worker that asks for the same
    source meanwhile may load half a file: on an H100, a cold run with 16 workers failed a test
    with "cuModuleLoadDataEx failed: device kernel image is invalid" (and passed alone). A
    folder a worker (gw0, gw1, ...) stays the same from run to run, so a warm run still hits."""
    worker = os.environ.get("PYTEST_XDIST_WORKER")
    if worker and "PYCUDA_CACHE_DIR" not in os.environ:
        home = os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache")
        folder = os.path.join(home, "pycuda", f"compiler-cache-v1-{worker}")
        os.makedirs(folder, exist_ok=True)
        os.environ["PYCUDA_CACHE_DIR"] = folder


_pycuda_cache_of_this_worker()

# nbval is loaded here, not by pytest's plugin autoloading (pyproject.toml gives -p no:nbval), so
# that this line comes first: nbval imports nbformat, which imports jsonschema, which imports
# rfc3987_syntax when it is installed (JupyterLab's jupyter-events installs it) to check "iri"
# strings, and rfc3987_syntax builds its parsers on import: 1 of the 2 s every pytest process
# (the run's, each pytest-xdist worker's, those the tests start) took to start. No schema of
# nbformat's asks for that check.
sys.modules.setdefault("rfc3987_syntax", None)
pytest_plugins = ["nbval.plugin"]


def _runs_notebooks(config):
    """True when nbval is on and the run's paths include notebooks/ (or a folder above it)."""
    if not (config.getoption("nbval", False) or config.getoption("nbval_lax", False)):
        return False
    for arg in config.args:
        path = Path(config.invocation_params.dir, arg.split("::")[0]).resolve()
        if path == NOTEBOOKS or NOTEBOOKS in path.parents or path in NOTEBOOKS.parents:
            return True
    return False


def _make_release():
    """A fresh student release of the work at hand (the files git tracks, and those it does not
    track yet and does not ignore) in a temporary folder."""
    spec = importlib.util.spec_from_file_location("student_release",
                                                  ROOT / "tools" / "student_release.py")
    student_release = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(student_release)
    folder = Path(tempfile.mkdtemp(prefix="cuda-course-release-"))
    student_release.release(folder / "course", working_tree=True)
    return folder


def release_copy(path):
    """The release's copy of a file of this checkout, or None (no release in use, or the
    release holds no copy of the file: one that git ignores, or one made after the release)."""
    release = os.environ.get(RELEASE_UNDER_TEST)
    if not release or ROOT not in Path(path).resolve().parents:
        return None
    copy = Path(release) / Path(path).resolve().relative_to(ROOT)
    return copy if copy.is_file() else None


def _scope(nodeid):
    """The unit pytest-xdist's --dist loadscope hands to one worker: a test file, or a class
    (its LoadScopeScheduling._split_scope)."""
    return nodeid.rsplit("::", 1)[0]


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(config, items):
    """In a pytest-xdist worker (whose collection the scheduler hands out in order), the scopes
    that hold a ``slow`` test go first, then the others, each group largest first.
    pytest-xdist's own order for --dist loadscope (largest first, by number of tests; turned off
    in pytest_configure) put PyCUDA's suite, one test of a minute and more, last: one worker ran
    it alone after the other had finished (a cold ``make test``: 98 of its 606 s). A slow test
    takes seconds however warm the cache (a subprocess, a whole benchmark); run early, the small
    files fill the end. Each scope's own order is kept."""
    if not hasattr(config, "workerinput"):
        return
    scopes = {}
    for item in items:
        scopes.setdefault(_scope(item.nodeid), []).append(item)
    order = sorted(scopes.values(), key=lambda group: (
        not any(item.get_closest_marker("slow") for item in group), -len(group)))
    items[:] = [item for group in order for item in group]


def pytest_configure(config):
    if hasattr(config.option, "loadscopereorder"):
        config.option.loadscopereorder = False  # the workers' order (above), not pytest-xdist's
    if os.environ.get(RELEASE_UNDER_TEST) or not _runs_notebooks(config):
        return  # a worker, or a pytest started by a test: the run's release is inherited
    folder = _make_release()
    os.environ[RELEASE_UNDER_TEST] = str(folder / "course")
    config.add_cleanup(lambda: shutil.rmtree(folder, ignore_errors=True))
    config.add_cleanup(lambda: os.environ.pop(RELEASE_UNDER_TEST, None))


def pytest_report_header(config):
    release = os.environ.get(RELEASE_UNDER_TEST)
    if release:
        return f"notebooks: run as the student release ships them, in {release}"


@functools.cache
def _from_release(nbval_file):
    """nbval's notebook collector, reading and running the release's copy of its notebook."""
    class FromRelease(nbval_file):
        @property
        def fspath(self):  # where nbval reads the notebook and starts its kernel
            return py.path.local(release_copy(self.path))
    return FromRelease


@pytest.hookimpl(wrapper=True)
def pytest_collect_file(file_path, parent):
    """Each notebook keeps its path here (its test id, what a command line names) and is read
    and run from the release's copy."""
    collected = yield
    if file_path.suffix != ".ipynb" or release_copy(file_path) is None:
        return collected
    return [_from_release(type(c)).from_parent(parent, path=file_path)
            if getattr(c, "path", None) == file_path else c for c in collected]


@pytest.hookimpl(wrapper=True)
def pytest_runtest_setup(item):
    """The Jupyter kernel of a release notebook starts with the release's helpers first on
    its path, and on the simulator as the lowest GPU learners have (LOWEST_COMPUTE_CAPABILITY,
    unless CUDA_SIM_COMPUTE_CAPABILITY says otherwise); other tests and their subprocesses keep
    this checkout's helpers and the simulator's default (9.0)."""
    release = os.environ.get(RELEASE_UNDER_TEST)
    if item.path.suffix != ".ipynb" or release_copy(item.path) is None:
        return (yield)
    before = {name: os.environ.get(name) for name in ("PYTHONPATH", COMPUTE_CAPABILITY)}
    os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, [release, before["PYTHONPATH"]]))
    os.environ[COMPUTE_CAPABILITY] = before[COMPUTE_CAPABILITY] or LOWEST_COMPUTE_CAPABILITY
    try:
        return (yield)
    finally:
        for name, value in before.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
