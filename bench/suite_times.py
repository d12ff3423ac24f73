"""Benchmark: the test suite's and each notebook's wall time, cold and warm, against their targets.

    python bench/suite_times.py [--tests PATH ...] [--ignore PATH ...] [--notebooks NB ...]
                                [--no-notebooks] [--jobs N] [--repeat N] [--record]

Targets, on a 2-core machine: the unit tests (``tests/``, without the notebooks and without
PyCUDA's own test suite, which has a target of its own) at most 45 s with a warm compile cache and
at most 90 s cold; each notebook at most 40 s on the simulator.

- cold: ``CUDA_COURSE_CACHE_DIR`` is a new, empty folder, so every kernel is compiled again, as
  on a fresh clone; warm: the same folder once more, now filled by the cold run. The modules a
  run compiled into that folder are counted: a warm run that compiles any has a test whose
  source changes from run to run (a temporary path in a ``#line``, say), a cache miss each time.
- the unit tests run as ``make test`` runs them (pytest-xdist, one worker a core, a test file to
  a worker); each notebook alone through nbval, on the simulator, cold in a cache of its own.
- ``--repeat N`` runs the unit tests cold and warm N times, each pair in a new cache, and adds
  the median of each kind: on a shared machine one cold run's wall time moved by 10 s from one
  run to the next.
- wall time is what a developer waits; CPU time (user + sys of pytest and everything it started
  and waited for) depends less on other work on the machine (on a shared 2-core VM it still
  moved by a fifth between runs). On a shared machine the wall time grows with the load
  (printed before and after); CPU time / cores is what the wall time
  comes down to on an idle machine when the work spreads over every core.

Exit status 1 when a run fails; a missed target is reported, not an error. ``--record`` writes
the table into ``bench/RESULTS.md``.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))   # the repository: bench, helpers

from bench import ROOT, results  # noqa: E402
from bench.measure import load_average  # noqa: E402

TARGET_UNIT_WARM_S, TARGET_UNIT_COLD_S, TARGET_NOTEBOOK_S = 45, 90, 40
# PyCUDA's own test suite run on the simulator: a target of its own, not counted as unit tests.
NOT_UNIT_TESTS = ["tests/sim/test_pycuda_suite.py"]
PARALLEL = ["--dist", "loadscope"]     # with -n JOBS, as the Makefile's test target runs pytest


@dataclass
class Timed:
    """One pytest run: what ran, how long, and what it compiled."""
    what: str
    cache: str               # "cold" or "warm"
    wall_s: float
    cpu_s: float
    modules: int             # modules compiled into the compile cache during the run
    ok: bool
    target_s: float
    tail: str = ""           # the end of pytest's output, shown when the run failed


def modules_in(cache):
    return sum(1 for _ in Path(cache).rglob("*.so"))


def children_cpu_s():
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run_pytest(what, args, cache, label, target_s):
    """Run pytest on args with the compile cache in ``cache``; a Timed."""
    env = dict(os.environ, CUDA_COURSE_CACHE_DIR=str(cache), CUDA_COURSE_BACKEND="simulator")
    before_modules, before_cpu = modules_in(cache), children_cpu_s()
    t0 = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "pytest", "-q", *args], cwd=ROOT, env=env,
                          capture_output=True, text=True)
    wall = time.perf_counter() - t0
    timed = Timed(what, label, wall, children_cpu_s() - before_cpu,
                  modules_in(cache) - before_modules, proc.returncode == 0, target_s,
                  (proc.stdout + proc.stderr)[-3000:])
    print(f"  {what}, {label}: {wall:.1f} s" + ("" if timed.ok else " FAILED"), file=sys.stderr,
          flush=True)
    return timed


def unit_tests(paths, ignore, jobs, repeat=1):
    """The unit tests, cold then warm in one new cache, ``repeat`` times (a new cache each);
    with more than one, the median of each kind follows."""
    parallel = [] if jobs == "0" else ["-n", jobs, *PARALLEL]   # 0: no pytest-xdist needed
    args = [*parallel, *paths, *(f"--ignore={p}" for p in ignore)]
    what = "unit tests (" + " ".join(paths) + ")"
    runs = []
    for i in range(repeat):
        nth = f" {i + 1}/{repeat}" if repeat > 1 else ""
        with tempfile.TemporaryDirectory(prefix="suite-times-") as cache:
            runs += [run_pytest(what, args, cache, "cold" + nth, TARGET_UNIT_COLD_S),
                     run_pytest(what, args, cache, "warm" + nth, TARGET_UNIT_WARM_S)]
    return runs + (medians(runs) if repeat > 1 else [])


def medians(runs):
    """One Timed for each kind of run ("cold", "warm"): the median of its repeats, which a
    machine shared with other work moves less than any one run."""
    out = []
    for kind in ("cold", "warm"):
        same = [r for r in runs if r.cache.split()[0] == kind]
        out.append(Timed(same[0].what, f"{kind}, median of {len(same)}",
                         statistics.median(r.wall_s for r in same),
                         statistics.median(r.cpu_s for r in same),
                         round(statistics.median(r.modules for r in same)),
                         all(r.ok for r in same), same[0].target_s))
    return out


def notebooks(paths):
    """Each notebook alone, cold (in a cache of its own) then warm."""
    runs = []
    for nb in paths:
        with tempfile.TemporaryDirectory(prefix="suite-times-") as cache:
            for label in ("cold", "warm"):
                runs.append(run_pytest(Path(nb).name, [str(nb)], cache, label, TARGET_NOTEBOOK_S))
    return runs


def table(runs, cores):
    lines = [[r.what, r.cache, f"{r.wall_s:.1f} s", f"{r.cpu_s:.1f} s",
              f"{r.cpu_s / cores:.1f} s", str(r.modules), f"{r.target_s} s",
              ("MET" if r.wall_s <= r.target_s else "MISSED") if r.ok else "FAILED"]
             for r in runs]
    head = ["run", "cache", "wall", "CPU", f"CPU / {cores} cores", "modules compiled",
            "target (wall)", "verdict"]
    return results.markdown_table(head, lines)


def parse(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--tests", nargs="+", default=["tests"], help="unit test paths (tests)")
    p.add_argument("--ignore", action="append", default=None,
                   help="a path under the tests to leave out (repeatable; default: "
                        + ", ".join(NOT_UNIT_TESTS) + ")")
    p.add_argument("--notebooks", nargs="+", default=None,
                   help="notebooks to time (default: every notebooks/*.ipynb)")
    p.add_argument("--no-notebooks", action="store_true", help="time the unit tests only")
    p.add_argument("--repeat", type=int, default=1,
                   help="run the unit tests cold and warm this many times, each in a new cache, "
                        "and give the medians (default 1)")
    p.add_argument("--jobs", default="auto",
                   help="pytest-xdist workers for the unit tests (auto: as make test; 0: one "
                        "process, without pytest-xdist)")
    p.add_argument("--record", action="store_true",
                   help="also write the table into bench/RESULTS.md")
    return p.parse_args(argv)


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    a = parse(argv)
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    start = load_average()
    print(f"{cores} cores; load average at start: {start}", flush=True)
    runs = unit_tests(a.tests, NOT_UNIT_TESTS if a.ignore is None else a.ignore, a.jobs,
                      a.repeat)
    if not a.no_notebooks:
        runs += notebooks(a.notebooks or sorted((ROOT / "notebooks").glob("*.ipynb")))
    end = load_average()
    text = table(runs, cores)
    print(f"{text}\n\nload average at end: {end}", flush=True)
    for r in runs:
        if not r.ok:
            print(f"\n{r.what} ({r.cache}) FAILED:\n{r.tail}")
    if a.record:
        shown = [x for x in argv if x != "--record"]
        command = " ".join(["python", "bench/suite_times.py", *shown])
        summary = (f"{cores} cores; load average {start} at the start, {end} at the end.\n\n"
                   + text)
        print(f"wrote {results.record_printed('suite_times', command, summary, fenced=False)}")
    return 0 if all(r.ok for r in runs) else 1


if __name__ == "__main__":
    sys.exit(main())
