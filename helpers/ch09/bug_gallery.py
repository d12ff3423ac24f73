"""The gallery of bugs of notebook 09: eight small kernels in cuda_src/bugs/, each with one of the
mistakes every learner makes, and how each one is launched.

For each bug the notebook shows three things:

- what the simulator says, run here (``on_simulator``): the same launch on helpers.sim whatever
  backend the notebook uses, with the check that finds it switched on (``Bug.check``: the race
  check or the init check; the others are always on), and its verdict in a few words;
- what ``compute-sanitizer --tool Bug.tool`` says on a GPU, about a process that makes the same
  launch with PyCUDA (helpers.ch09.gpu_tools.sanitize);
- what a plain run on a GPU does, in a process of its own (an illegal address must not end the
  notebook's context): ``python -m helpers.ch09.bug_gallery NAME`` runs the launch on the backend
  chosen and prints what it sees, with a last line ``summary: ...``.

A launch is a *scenario*: a function of an ``Api`` (drv, gpuarray and the compiled kernel of
either backend) that launches the kernel as a learner would and returns what it observed,
(right?, facts). On the simulator the eight files are compiled as one module (one compilation,
and one instrumented build for the checks, instead of eight of each).
"""

from __future__ import annotations

import dataclasses
import functools
import sys
from collections.abc import Callable

import numpy as np

F32, I32 = np.float32, np.int32
VERDICTS = {  # the simulator's error's kind -> the verdict in a few words
    "race": "data race",
    "uninitialised read": "uninitialised read",
    "divergent barrier": "divergent barrier",
    "use after free": "use after free",
    "out of bounds": "out-of-bounds access",
    "wild pointer": "out-of-bounds access",
}


@dataclasses.dataclass(frozen=True)
class Api:
    """What a scenario launches with: drv and gpuarray of one backend, and the kernel."""
    drv: object
    gpuarray: object
    kernel: object

    def sync(self):
        self.drv.Context.synchronize()


@dataclasses.dataclass(frozen=True)
class Bug:
    name: str        # cuda_src/bugs/<name>.cu
    kernel: str
    title: str
    verdict: str     # what the simulator says, in a few words (VERDICTS)
    tool: str        # the compute-sanitizer tool that looks for it
    scenario: Callable
    check: str = ""  # the simulator setting that finds it, when it is not always on


# ---- the launches ----------------------------------------------------------------------------------
def _blocks(n, size=256):
    return (-(-n // size), 1)


def _scale_and_neighbour(api, n):
    """y = 2 x with the scale kernels, and an array allocated just after y, to see whether the
    launch wrote into it."""
    x = api.gpuarray.to_gpu(np.arange(n, dtype=F32))
    y = api.gpuarray.empty(n, F32)
    neighbour = api.gpuarray.to_gpu(np.full(n, 7.0, F32))
    api.kernel(x, y, I32(n), block=(256, 1, 1), grid=_blocks(n))
    api.sync()
    right = np.array_equal(y.get(), 2 * np.arange(n, dtype=F32))
    changed = int((neighbour.get() != 7.0).sum())
    return right and not changed, [f"y = 2x for every element: {right}",
                                   f"the array allocated next to y changed in {changed} of "
                                   f"{n} elements"]


def missing_guard(api):
    return _scale_and_neighbour(api, 1100)  # 5 blocks of 256: 180 threads past the end


def off_by_one(api):
    return _scale_and_neighbour(api, 1000)  # thread 1000 goes one element past the end


def missing_barrier(api):
    n = 1024
    x = np.arange(n, dtype=F32)
    y = api.gpuarray.empty(n, F32)
    api.kernel(api.gpuarray.to_gpu(x), y, I32(n), block=(256, 1, 1), grid=_blocks(n))
    api.sync()
    wrong = int((y.get() != x.reshape(-1, 256)[:, ::-1].ravel()).sum())
    return not wrong, [f"elements in the wrong place: {wrong} of {n}"]


def barrier_in_branch(api):
    n = 1024
    x = np.ones(n, F32)
    sums = api.gpuarray.empty(n // 256, F32)
    api.kernel(api.gpuarray.to_gpu(x), sums, I32(n), block=(256, 1, 1), grid=_blocks(n))
    api.sync()
    got = sums.get()
    return bool((got == 256).all()), [f"block sums: {got.tolist()} (each should be 256.0)"]


def racy_increment(api):
    n = 1 << 16
    x = np.random.default_rng(9).random(n, dtype=F32)
    count = api.gpuarray.zeros(1, I32)
    api.kernel(api.gpuarray.to_gpu(x), count, F32(0.5), I32(n), block=(256, 1, 1),
               grid=_blocks(n))
    api.sync()
    got, want = int(count.get()[0]), int((x > 0.5).sum())
    return got == want, [f"counted {got:,} elements above 0.5; NumPy counts {want:,}"]


def uninitialised_read(api):
    rows, cols = 512, 64
    m = np.random.default_rng(5).random((rows, cols), dtype=F32)
    # What an earlier array leaves behind: freed device memory goes back to CUDA's allocator,
    # which may hand it out again, as it was.
    old = api.gpuarray.to_gpu(np.full(rows, 1000.0, F32))
    old.gpudata.free()
    sums = api.gpuarray.empty(rows, F32)
    api.kernel(api.gpuarray.to_gpu(m), sums, I32(rows), I32(cols), block=(128, 1, 1),
               grid=_blocks(rows, 128))
    api.sync()
    off = sums.get() - m.sum(axis=1)
    right = bool(np.abs(off).max() < 1e-3)
    return right, [f"row sums match NumPy: {right}",
                   f"each sum is off by {np.median(off):g} (the median; 0 is right)"]


def use_after_free(api):
    n = 1000
    scratch = api.drv.mem_alloc(4 * n)
    address = int(scratch)  # kept as a number, as notebook 05 keeps chunk addresses
    scratch.free()
    other = api.gpuarray.to_gpu(np.full(n, 7.0, F32))  # a new array, made after the free
    api.kernel(np.uintp(address), F32(1.0), I32(n), block=(256, 1, 1), grid=_blocks(n))
    api.sync()
    changed = int((other.get() != 7.0).sum())
    return not changed, [f"the freed address is the new array's: {address == int(other.gpudata)}",
                         f"the new array changed in {changed} of {n} elements"]


def wrong_argument_type(api):
    n = 1000
    x = np.random.default_rng(7).random(n)  # float64, NumPy's default
    y = api.gpuarray.empty(n, F32)
    api.kernel(api.gpuarray.to_gpu(x), y, F32(2.0), I32(n), block=(256, 1, 1), grid=_blocks(n))
    api.sync()
    got = y.get()
    wrong = int((~np.isclose(got, 2 * x, rtol=1e-6)).sum())
    return not wrong, [f"y = 2x for {n - wrong} of {n} elements",
                       f"y[:3] = {got[:3].tolist()}, 2x[:3] = {(2 * x[:3]).tolist()}"]


BUGS = {b.name: b for b in [
    Bug("missing_guard", "scale_no_guard", "a missing bounds guard", "out-of-bounds access",
        "memcheck", missing_guard),
    Bug("off_by_one", "scale_off_by_one", "a bounds guard off by one", "out-of-bounds access",
        "memcheck", off_by_one),
    Bug("missing_barrier", "reverse_blocks", "a missing barrier", "data race", "racecheck",
        missing_barrier, "racecheck"),
    Bug("barrier_in_branch", "block_sums", "a barrier inside a branch", "divergent barrier",
        "synccheck", barrier_in_branch),
    Bug("racy_increment", "count_above", "a racy increment", "data race", "racecheck",
        racy_increment, "racecheck"),
    Bug("uninitialised_read", "row_sums", "an uninitialised read", "uninitialised read",
        "initcheck", uninitialised_read, "initcheck"),
    Bug("use_after_free", "fill", "a use after free", "use after free", "memcheck",
        use_after_free),
    Bug("wrong_argument_type", "scale", "a wrong argument type", "wrong argument type",
        "memcheck", wrong_argument_type),
]}


# ---- running them ----------------------------------------------------------------------------------
@dataclasses.dataclass(frozen=True)
class Result:
    """What one run of a bug showed: a verdict in a few words and the full text."""
    verdict: str
    text: str


def verdict_of(error: Exception) -> str:
    """The simulator's error, in a few words (VERDICTS, by its kind); a TypeError is a wrong
    argument."""
    if isinstance(error, TypeError):
        return "wrong argument type"
    kind = getattr(error, "kind", None)
    return VERDICTS.get(kind, f"error: {kind or type(error).__name__}")


@functools.lru_cache(maxsize=1)
def _simulator_module():
    from helpers.backend import read_cu
    from helpers.sim.compiler import SourceModule

    return SourceModule("\n".join(read_cu(f"bugs/{name}.cu") for name in BUGS))


def on_simulator(name: str) -> Result:
    """Run bug ``name`` on the simulator, with its check on; its verdict and what it said."""
    from helpers.sim import driver, gpuarray
    from helpers.sim.settings import settings

    bug = BUGS[name]
    api = Api(driver, gpuarray, _simulator_module().get_function(bug.kernel))
    with settings.changed(**({bug.check: True} if bug.check else {})):
        try:
            right, facts = bug.scenario(api)
        except (driver.Error, TypeError) as err:
            return Result(verdict_of(err), f"{type(err).__name__}: {err}")
    return Result("no error, " + ("right result" if right else "wrong result"), "\n".join(facts))


def _short(error: Exception) -> str:
    """An error's first clause: "an illegal memory access was encountered"."""
    text = str(error).splitlines()[0]
    text = text.split("failed: ", 1)[-1]
    return text.split(" in kernel ")[0].split(": ")[0]


def plain_run(name: str) -> Result:
    """Run bug ``name`` on the backend helpers.backend chose, without any check; what it saw.
    On a GPU, run it in a process of its own: ``python -m helpers.ch09.bug_gallery NAME``."""
    from helpers.backend import compile_cu, drv, gpuarray

    bug = BUGS[name]
    kernel = compile_cu(f"bugs/{name}.cu", options=["-lineinfo"]).get_function(bug.kernel)
    try:
        right, facts = bug.scenario(Api(drv, gpuarray, kernel))
    except (drv.Error, TypeError) as err:
        return Result(f"error: {_short(err)}", f"{type(err).__name__}: {err}")
    summary = "silent: the result is right" if right else "silent: the result is wrong"
    return Result(summary, "\n".join(facts))


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) != 1 or argv[0] not in BUGS:
        print(f"usage: python -m helpers.ch09.bug_gallery NAME, NAME one of: {', '.join(BUGS)}",
              file=sys.stderr)
        return 2
    result = plain_run(argv[0])
    print(result.text)
    print(f"summary: {result.verdict}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
