"""Checker for notebook 05's pipeline (section 6): ``my_pipeline(h_in, h_out, n_chunks, streams,
launch)`` streams h_in through the chapter's kernel into h_out, chunk c on
``streams[c % len(streams)]``. Only a GPU's timing tells the overlap (``check_overlap``: the
learner's function, run three times through the same detectors, must beat the same chunks run one
after another in one stream by half the kernel time); on the simulator the verdict says it was
not checked."""

from __future__ import annotations

import itertools

import numpy as np

from helpers.exercises import hidden as hidden_cases
from helpers.exercises.function import check_function, run_catching, stream_holder
from helpers.exercises.learner_code import told_uncalled
from helpers.exercises.hidden import awkward
from helpers.exercises.pipeline_copies import (over_budget, overwritten_before_read,
                                               read_past_its_copy, true_division)
from helpers.exercises.pipeline_models import (ATOL, RTOL, buffers_watched, copies_and_launches,
                                              count_one_short, how_copied, launch_fits,
                                              shared_buffers, sharing, union_bytes)
from helpers.exercises.pipeline_frees import frees_refused
from helpers.exercises.pipeline_streams import (hold_ms, launched_off_its_stream, noting_waits,
                                                one_chunk_a_stream, some_streams_waited,
                                                stream_by_round, stream_index, waited_inside)
from helpers.exercises.verdict import Verdict, check_cases, not_yet, passed
from helpers.workload import share

KERNEL_FILE, KERNEL_NAME = "streams.cu", "iterate_sin"
BLOCK, WORK_SMALL = 256, 8  # WORK_SMALL: kernel iterations for the correctness cases, cheap
# (n, n_chunks, number of streams). n is never a multiple of n_chunks, and n_chunks is larger
# than the number of streams, so that buffers are reused and the budget means something.
CASES = [(100_003, 7, 3), (10_007, 4, 2), (4_099, 5, 4)]

STREAM_HINT = ("put chunk c's copy-in, kernel and copy-out on the same stream, "
               "s = streams[c % len(streams)], and pass it to the copies and to launch")
BUDGET_HINT = ("before the loop, allocate for each stream one input and one output buffer of one "
               "chunk (drv.mem_alloc(chunk * h_in.itemsize)); chunk c uses the pair of stream "
               "c % len(streams)")
OVERLAP_HINT = ("use drv.memcpy_htod_async / drv.memcpy_dtoh_async with the chunk's stream (the "
                "plain memcpy_htod waits for every stream), and synchronize once, after the loop, "
                "not after each chunk")
SEPARATE_BUFFERS_HINT = ("give each stream its own input and output buffer; only chunks of the "
                         "same stream may reuse them, because a stream runs its work in order")
SIMULATOR_SUCCESS = (
    f"the results match NumPy in all {len(CASES)} cases (n not a multiple of n_chunks), "
    "one kernel launch a chunk, spread over the streams, each stream with its own "
    "chunk-sized buffers, and every chunk queued before your function waited, which is what "
    "lets copies and kernels overlap on a GPU. How much they overlap was NOT checked: the "
    "simulator runs the streams' work one operation at a time, so only a GPU's timing can "
    "tell; run this check on a machine with a GPU to see it")
# The overlap case: 128 MiB in, 128 MiB out, 8 chunks of 16 MiB over 4 streams.
BIG_N = share(2**25, minimum=2**23) + 12_345  # a class sharing the GPU: its share
BIG_CHUNKS, BIG_STREAMS = 8, 4


def load_kernel():
    """Compile ``cuda_src/streams.cu`` and return ``iterate_sin``."""
    from helpers.backend import compile_cu

    return compile_cu(KERNEL_FILE).get_function(KERNEL_NAME)


def draw(rng):
    """The grader's cases: two more, n not a multiple of n_chunks, more chunks than streams."""
    return [(awkward(rng, k, low, high), k, int(rng.integers(2, k))) for low, high in
            ((1_000, 20_000), (20_000, 120_000)) for k in [int(rng.integers(3, 9))]]


def check_pipeline(fn, hidden: int | None = None) -> Verdict:
    """Run ``fn(h_in, h_out, n_chunks, streams, launch)`` on a few sizes (and those drawn from
    the seed ``hidden``); print and return the Verdict."""
    cases = hidden_cases.cases(CASES, draw, hidden)
    return check_function(fn, "my_pipeline", lambda fn: _verdict(fn, cases))


def _verdict(fn, cases) -> Verdict:
    from helpers.backend import BACKEND

    try:
        kernel = load_kernel()
    except Exception as err:  # noqa: BLE001 - the course's kernel itself: report, don't raise
        return not_yet(f"cannot compile cuda_src/{KERNEL_FILE}: {err}",
                       f"restore cuda_src/{KERNEL_FILE} (the exercise does not change it)")
    on_gpu = BACKEND != "simulator"
    verdict = check_cases(cases, lambda case: mistakes(fn, case, kernel, on_gpu), where,
                          hidden_cases.success(SIMULATOR_SUCCESS, CASES, cases))
    if not (verdict and on_gpu):
        return verdict
    overlap = check_overlap(fn, kernel)   # a pass names the grader's cases, as on the simulator
    return passed(hidden_cases.success(overlap.problem, CASES, cases)) if overlap else overlap


def reference(x: np.ndarray, work: int) -> np.ndarray:
    """NumPy version of ``iterate_sin``: y = x, then ``work`` times y = sin(y) + x, in float32."""
    x = y = np.asarray(x, dtype=np.float32)
    for _ in range(work):
        y = np.sin(y) + x
    return y


def where(case) -> str:
    return "n = {}, n_chunks = {}, {} streams".format(*case)


class LaunchArgumentError(TypeError):
    """``launch`` got arguments it does not take (too few, or a host array for a buffer)."""


def make_launch(kernel, work: int, calls: list | None = None, waited: list | None = None,
                fits=None):
    """``launch(d_in, d_out, count, stream=None)`` of ``kernel``, noting in ``calls`` each call's
    (input address, output address, count, stream) and in ``waited`` (on the simulator, where
    queued work runs only when the host waits) whether the previous call's kernel had run: the
    host waited inside the loop, which on a GPU keeps the chunks from overlapping. ``fits``, where
    given, sees each call (and its number) first, and may refuse it."""
    marks = []  # an event after each launch

    def launch(*args, **kwargs):
        from helpers.backend import drv

        try:
            call = _launch_arguments(*args, **kwargs)
        except TypeError as err:
            raise LaunchArgumentError(f"launch(d_in, d_out, count, stream=None): {err}") from err
        if fits is not None:
            fits(call, len(calls or ()))
        if calls is not None:
            calls.append(call)
        if waited is not None:
            from helpers.sim.machine.streams import reached

            waited.append(bool(marks) and reached(marks[-1]))
        kernel(np.uintp(call[0]), np.uintp(call[1]), np.int32(call[2]), np.int32(work),
               block=(BLOCK, 1, 1), grid=(-(-call[2] // BLOCK), 1), stream=call[3])
        if waited is not None:
            marks.append(drv.Event().record(call[3]))

    return launch


def _launch_arguments(d_in, d_out, count, stream=None):
    """launch's call: the device addresses of ``d_in`` and ``d_out`` (DeviceAllocations,
    GPUArrays or views of one, or ints), ``count`` and ``stream``."""
    return (*(int(getattr(buf, "gpudata", buf)) for buf in (d_in, d_out)), int(count), stream)


def pagelocked(n: int, seed: int):
    """Page-locked ``(h_in, h_out)`` of n float32 elements, h_in random from ``seed``."""
    from helpers.backend import drv

    h_in, h_out = drv.pagelocked_empty(n, np.float32), drv.pagelocked_empty(n, np.float32)
    h_in[:] = np.random.default_rng(seed).random(n, dtype=np.float32)
    return h_in, h_out


def mistakes(fn, case, kernel, on_gpu, work=WORK_SMALL, buffers=None, want=None, times=None):
    """Run ``fn`` once on ``case``'s streams and ``buffers`` (new ones of its size by default),
    h_out filled with NaN; yield every mistake the run shows, in order (``want``: by default
    NumPy's); append to ``times`` the milliseconds from the call to its return. In an untimed run
    on a GPU each stream is held (``function.stream_holder``) as the learner's function first
    queues work there: unheld, the small cases' work ends while Python still queues it, and a
    function that returned before its copies ended passed (the H200, 2026-12-05). Held before the
    call, the holds ended before any of its work began, since its ``mem_alloc`` waits for them
    (CUDA's implicit synchronization), and one that waited for its loop's last stream alone
    passed (the H100, 2026-12-06); now each is held as pipeline_streams.hold_ms says."""
    from helpers.backend import drv

    h_in, h_out = buffers or pagelocked(case[0], seed=case[0])
    want = reference(h_in, work) if want is None else want
    calls, waited, h_in_before, made, order = [], None if on_gpu else [], h_in.copy(), [], []
    streams, waits = noting_waits(drv, case[2], calls)
    h_out.fill(np.nan)
    drv.Context.synchronize()
    start, end = drv.Event().record(), drv.Event()

    hold, held = stream_holder(drv) if times is None else None, set()

    def first_use(stream):  # held at the learner's first work on it (none in a timed run)
        if hold is not None and stream is not None and id(stream) not in held:
            held.add(id(stream))
            hold(stream, hold_ms(stream, streams, case[1]))

    def fits(call, c):  # refused where it does not fit its buffers; noted: the copies before it
        first_use(call[3])
        launch_fits(call, c, made, *case[:2])
        order.append(len(copies))

    def call():
        fn(h_in, h_out, case[1], streams, make_launch(kernel, work, calls, waited, fits))
        end.record()
        at_return = h_out.copy()  # before any synchronization by the checker
        drv.Context.synchronize()
        return at_return

    with buffers_watched(drv, case[0], case[1], made, first_use) as copies, frees_refused(
            drv, streams, calls, copies, fn):
        raised, at_return = run_catching(call, "replace the TODO in my_pipeline with your code", (
            (LaunchArgumentError, "launch takes (d_in, d_out, count, stream): device buffers (or "
                                  "addresses), the number of elements as an int, and a stream"),
            (IndexError, stream_index(streams, case[1])), (TypeError, true_division(fn)),
            ((drv.LogicError, drv.LaunchError), "a copy or a kernel touched memory outside a "
             "buffer: a chunk's copy must fit its device buffer, and count must be the chunk's "
             "own length (hi - lo)")))
    if raised:
        yield raised
        return
    yield from told_uncalled(fn, itertools.chain(diagnose(
        h_in, h_in_before, at_return, h_out, want, case[1], streams, calls, waited, copies, waits,
        order, stream_by_round(calls, streams, made, fn) or sharing(calls, streams, made, fn)),
        over_budget(made, case, h_in.itemsize, fn, BUDGET_HINT)), alone=True)
    if times is not None:
        times.append(start.time_till(end))


def diagnose(h_in, h_in_before, at_return, got, expected, n_chunks, streams, calls, waited=None,
             copies=(), waits=(), order=(), picked=None):
    """Every mistake a run shows, wrong results first (``waited``: None on a GPU; ``copies``:
    the asynchronous copies queued, as function.copies_noted notes them; ``waits``: the streams
    the function waited for, as pipeline_streams.noting_waits notes them; ``order``: for each
    launch, how many copies were queued before it; ``picked``: pipeline_models.sharing's words)."""
    if not np.array_equal(h_in, h_in_before):
        yield ("your function changed h_in",
               "copy from h_in, never into it: memcpy_dtoh_async writes into its first argument, "
               "which must be h_out[lo:hi]")
    shared = shared_buffers(calls) and (picked or (
        f"chunks on different streams used the same device {shared_buffers(calls)} buffer",
        SEPARATE_BUFFERS_HINT))
    yield from launched_off_its_stream(calls, copies, order, streams)
    yield from copies_and_launches(calls, copies, order, h_in, got, expected)
    yield from overwritten_before_read(calls, copies, order, streams, h_in)
    yield from count_one_short(calls, h_in.size, n_chunks, got, expected)
    yield from filter(None, [one_chunk_a_stream(calls, streams, got, n_chunks)])
    yield from _wrong_results(h_in, got, expected, n_chunks, shared)
    yield from read_past_its_copy(calls, copies, order, streams)
    yield from _how_computed(calls, streams, h_in, n_chunks, shared, waited)
    yield from how_copied(copies, h_in, got)
    yield from waited_inside(waited, OVERLAP_HINT)
    if not np.array_equal(at_return, got, equal_nan=True):
        late = int((np.isnan(at_return) | (at_return != got)).sum())
        yield (f"when your function returned, {late} elements of h_out had not arrived yet "
               f"(they were still being copied)"
               f"{some_streams_waited(waits, len(calls), len(streams), n_chunks)}",
               "wait for every stream before returning: for s in streams: s.synchronize()")


def _chunk_of(i: int, n: int, n_chunks: int) -> int:
    return min(i // -(-n // n_chunks), n_chunks - 1)


def _wrong_results(h_in, got, expected, n_chunks, shared):
    n = h_in.size
    unwritten = np.isnan(got)
    if unwritten.all():
        yield ("h_out was never written: it still holds the NaN the checker put there",
               "copy each chunk's results back into h_out[lo:hi] with "
               "drv.memcpy_dtoh_async(h_out[lo:hi], d_out, stream), then wait for the streams")
    if unwritten.any():
        first, count = int(np.flatnonzero(unwritten)[0]), int(unwritten.sum())
        if np.array_equal(unwritten, np.arange(n) >= (n // n_chunks) * n_chunks):
            yield (f"the last {count} elements of h_out were never written",
                   f"n = {n} is not a multiple of n_chunks = {n_chunks}: round the chunk size "
                   "up, chunk = -(-n // n_chunks), and let the last chunk take what is left, "
                   "hi = min(n, lo + chunk)")
        yield (f"{count} elements of h_out were never written, the first at index {first} "
               f"(chunk {_chunk_of(first, n, n_chunks)})",
               "every chunk must come back: the ranges [lo, hi) must cover 0..n, each copied "
               "back with memcpy_dtoh_async(h_out[lo:hi], ...) of its own length")
    bad = ~np.isclose(got, expected, rtol=RTOL, atol=ATOL)
    if bad.any():
        first = int(np.flatnonzero(bad)[0])
        differ = (f"{int(bad.sum())} elements differ from NumPy, the first at index {first} "
                  f"(chunk {_chunk_of(first, n, n_chunks)}): got {got[first]!r}, "
                  f"expected {expected[first]!r}")
        if np.array_equal(got[bad], h_in[bad]):
            yield (differ + "; they hold the input unchanged",
                   "between the two copies, run the kernel on the chunk, launch(d_in, d_out, "
                   "hi - lo, s), and copy back from the output buffer d_out")
        if shared:  # on a GPU, the likeliest cause of values that are wrong now and then
            yield (f"{differ}; {shared[0]}, and on a GPU those streams run at the same time "
                   "and overwrite each other's data", shared[1])
        yield (differ,
               "check which buffer and which stream each copy and launch uses: chunk c's copy "
               "in, launch and copy out all go to its stream, in that order; its input goes "
               "into that stream's d_in, launch reads d_in and writes d_out with count = hi - "
               "lo, and h_out[lo:hi] comes from d_out")


def _how_computed(calls, streams, h_in, n_chunks, shared, waited):
    """The values are right: were they computed one launch a chunk, over the streams, within the
    budget of device memory?"""
    right = "the results are right, but "
    chunk = -(-h_in.size // n_chunks)
    chunks = -(-h_in.size // chunk)  # n_chunks, or fewer where n is small
    if len(calls) != chunks:
        yield (right + f"launch was called {len(calls)} times for {chunks} chunks",
               "cut the work into exactly n_chunks chunks and launch the kernel once a chunk")
    used = {id(s) for *_, s in calls}
    if any(s is None for *_, s in calls):
        yield (right + "launch was called without a stream (stream=None), so the kernels ran in "
               "the default stream, which waits for every other stream", STREAM_HINT)
    if not used <= {id(s) for s in streams}:
        yield right + "launch was given a stream that is not one of `streams`", STREAM_HINT
    if len(streams) > 1 and len(used) == 1:
        yield right + "every kernel went to the same stream, so nothing can overlap", STREAM_HINT
    if shared:
        yield (f"the results are right here, but {shared[0]}. On a GPU those streams run at "
               "the same time and overwrite each other's data"
               + ("" if waited is None else " (the simulator runs them one after another, so "
                  "the results look right on it)"), shared[1])
    # A little slack: a last chunk that takes the remainder may be up to n_chunks elements longer.
    budget = (len(streams) * chunk + n_chunks) * h_in.itemsize
    for name, k in (("input", 0), ("output", 1)):
        touched = union_bytes([(c[k], c[2] * h_in.itemsize) for c in calls])
        if touched > budget:
            yield (right + f"the kernels used {touched} bytes of device {name} memory; the "
                   f"budget is one chunk per stream, {len(streams)} x {chunk * h_in.itemsize} "
                   "bytes", BUDGET_HINT)


def check_overlap(fn, kernel) -> Verdict:
    """The verdict on ``fn``'s overlap, on a GPU, after its results were found right: measured
    against the same chunks run one after another in one stream, whose output (right, unless the
    checker or the kernel is wrong) is the result ``fn`` must give."""
    from helpers.backend import drv
    from helpers.timing import time_kernel

    case, (h_in, h_out) = (BIG_N, BIG_CHUNKS, BIG_STREAMS), pagelocked(BIG_N, seed=5)
    work = _work_like_copy(kernel, h_in[:-(-BIG_N // BIG_CHUNKS)])
    launch, stream, runs = make_launch(kernel, work), drv.Stream(), []
    # time_kernel's events are in the default stream, which waits for every other stream.
    serial = time_kernel(lambda: runs.append(one_stream_pipeline(
        h_in, h_out, BIG_CHUNKS, stream, launch)), repeat=3, warmup=1).min_ms
    h2d, kern, d2h = (sum(e[k].time_till(e[k + 1]) for e in runs[-1]) for k in range(3))
    sample = slice(0, h_in.size, 257)
    if not np.allclose(h_out[sample], reference(h_in[sample], work), rtol=RTOL, atol=ATOL):
        return not_yet("the checker's own one-stream pipeline disagrees with NumPy on this GPU",
                       "this is a bug in the checker or the kernel, not in your function: "
                       "report it")
    want, times = h_out.copy(), []
    verdict = check_cases([case] * 3, lambda c: mistakes(fn, c, kernel, True, work, (h_in, h_out),
                                                         want, times), where, "")
    if not verdict:
        return verdict
    figures = (f"your pipeline took {min(times):.2f} ms; the same {BIG_CHUNKS} chunks one after "
               f"another in one stream take {serial:.2f} ms (copies in {h2d:.2f} ms, kernels "
               f"{kern:.2f} ms, copies out {d2h:.2f} ms)")
    if min(times) > serial - 0.5 * kern:
        return not_yet("the results are right, but the copies and kernels did not overlap: "
                       f"{figures} ({where(case)})", OVERLAP_HINT)
    return passed(f"the results match NumPy and the work overlapped: {figures}")


def one_stream_pipeline(h_in, h_out, n_chunks, stream, launch) -> list:
    """Run the same chunks one after another in one stream (the checker's baseline); return the
    events of every chunk: before its copy in, after it, after its kernel, after its copy out."""
    from helpers.backend import drv

    n, chunk = h_in.size, -(-h_in.size // n_chunks)
    d_in, d_out = drv.mem_alloc(chunk * h_in.itemsize), drv.mem_alloc(chunk * h_out.itemsize)
    events = []
    for lo in range(0, n, chunk):
        hi = min(n, lo + chunk)
        marks = [drv.Event().record(stream)]
        drv.memcpy_htod_async(d_in, h_in[lo:hi], stream)
        marks.append(drv.Event().record(stream))
        launch(d_in, d_out, hi - lo, stream)
        marks.append(drv.Event().record(stream))
        drv.memcpy_dtoh_async(h_out[lo:hi], d_out, stream)
        events.append([*marks, drv.Event().record(stream)])
    stream.synchronize()
    return events


def _work_like_copy(kernel, h_chunk, probe=(16, 64)) -> int:
    """The ``work`` at which the kernel on ``h_chunk.size`` elements takes about as long as
    copying ``h_chunk`` (page-locked) to the device: two values of work are timed and a straight
    line fitted through them (a launch has a fixed cost too)."""
    from helpers.backend import drv
    from helpers.timing import time_kernel

    d_in, d_out = drv.mem_alloc(h_chunk.nbytes), drv.mem_alloc(h_chunk.nbytes)
    copy_ms = time_kernel(lambda: drv.memcpy_htod(d_in, h_chunk), repeat=5).median_ms
    times = []
    for w in probe:
        launch = make_launch(kernel, w)
        times.append(time_kernel(lambda: launch(d_in, d_out, h_chunk.size), repeat=5).median_ms)
    slope = max((times[1] - times[0]) / (probe[1] - probe[0]), 1e-9)
    return int(min(4000, max(1, round(probe[0] + (copy_ms - times[0]) / slope))))
