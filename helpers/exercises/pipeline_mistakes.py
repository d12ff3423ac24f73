"""What the notebook 05 pipeline checker knows of the exercise, shared by its two halves (the
results and streams, pipeline.py; the overlap on a GPU, pipeline_overlap.py): the sizes, the
NumPy model, the recording ``launch``, and the mistakes a run's record shows."""

from __future__ import annotations

import numpy as np

from helpers.workload import share

KERNEL_FILE = "streams.cu"
KERNEL_NAME = "iterate_sin"
BLOCK = 256
WORK_SMALL = 8  # kernel iterations for the correctness cases: cheap for NumPy

# (n, n_chunks, number of streams). n is never a multiple of n_chunks, and n_chunks is larger
# than the number of streams, so that buffers are reused and the budget means something.
CASES = [(100_003, 7, 3), (10_007, 4, 2), (4_099, 5, 4)]

# The overlap case, on a GPU only: 128 MiB in, 128 MiB out, 8 chunks of 16 MiB over 4 streams.
BIG_N = share(2**25, minimum=2**23) + 12_345  # a class sharing the GPU: its share
BIG_CHUNKS = 8
BIG_STREAMS = 4

RTOL, ATOL = 1e-4, 1e-5

STREAM_HINT = ("put chunk c's copy-in, kernel and copy-out on the same stream, "
               "s = streams[c % len(streams)], and pass it to the copies and to launch")
BUDGET_HINT = ("before the loop, allocate for each stream one input and one output buffer of one "
               "chunk (drv.mem_alloc(chunk * h_in.itemsize)); chunk c uses the pair of stream "
               "c % len(streams)")
SEPARATE_BUFFERS_HINT = ("give each stream its own input and output buffer; only chunks of the "
                         "same stream may reuse them, because a stream runs its work in order")


def reference(x: np.ndarray, work: int) -> np.ndarray:
    """NumPy version of ``iterate_sin``: y = x, then ``work`` times y = sin(y) + x, in float32."""
    x = np.asarray(x, dtype=np.float32)
    y = x.copy()
    for _ in range(work):
        y = np.sin(y) + x
    return y


def device_address(buf) -> int:
    """The device address of a DeviceAllocation, a GPUArray (or a view of one), or an int."""
    gpudata = getattr(buf, "gpudata", None)
    return int(gpudata) if gpudata is not None else int(buf)


def make_launch(kernel, work: int, block: int = BLOCK):
    """``launch(d_in, d_out, count, stream=None)``: queue ``kernel`` on ``count`` elements."""

    def launch(d_in, d_out, count, stream=None):
        count = int(count)
        kernel(np.uintp(device_address(d_in)), np.uintp(device_address(d_out)),
               np.int32(count), np.int32(work),
               block=(block, 1, 1), grid=((count + block - 1) // block, 1), stream=stream)

    return launch


class RecordingLaunch:
    """A ``launch`` that runs the kernel and notes (input address, output address, count,
    stream) of every call, so that the checker can see which streams and buffers were used."""

    def __init__(self, kernel, work: int):
        self._launch = make_launch(kernel, work)
        self.calls: list[tuple[int, int, int, object]] = []

    def __call__(self, *args, **kwargs):
        try:
            d_in, d_out, count, stream = _launch_arguments(*args, **kwargs)
            call = (device_address(d_in), device_address(d_out), int(count), stream)
        except TypeError as err:
            raise LaunchArgumentError(f"launch(d_in, d_out, count, stream=None): {err}") from err
        self.calls.append(call)
        self._launch(d_in, d_out, count, stream)


class LaunchArgumentError(TypeError):
    """``launch`` was called with arguments it does not take (too few, or a host array for a
    device buffer)."""


def _launch_arguments(d_in, d_out, count, stream=None):
    return d_in, d_out, count, stream


def exception_problem(err):
    from helpers.backend import drv

    text = f"your function raised {type(err).__name__}: {err}"
    if isinstance(err, NotImplementedError):
        return text, "replace the TODO in my_pipeline with your code"
    if isinstance(err, LaunchArgumentError):
        return text, ("launch takes (d_in, d_out, count, stream): device buffers (or addresses), "
                      "the number of elements as an int, and a stream")
    if isinstance(err, (drv.LogicError, drv.LaunchError)):
        return text, ("a copy or a kernel touched memory outside a buffer: a chunk's copy must fit "
                      "its device buffer, and count must be the chunk's own length (hi - lo)")
    return text, "read the message: it names the line of your function that failed"


def _chunk_of(i: int, n: int, n_chunks: int) -> int:
    return min(i // -(-n // n_chunks), n_chunks - 1)


def diagnose(h_in, h_in_before, at_return, got, expected, n_chunks, streams, calls, on_gpu):
    """Every mistake a run shows, in order: wrong results first, then how they were computed."""
    if not np.array_equal(h_in, h_in_before):
        yield ("your function changed h_in",
               "copy from h_in, never into it: memcpy_dtoh_async writes into its first argument, "
               "which must be h_out[lo:hi]")
    yield from _wrong_results(h_in, got, expected, n_chunks, _shared_buffers(calls))
    yield from _wrong_streams(calls, streams, -(-h_in.size // -(-h_in.size // n_chunks)), on_gpu)
    yield from _over_budget(calls, len(streams), h_in.size, n_chunks, h_in.itemsize)
    if not np.array_equal(at_return, got, equal_nan=True):
        late = int((np.isnan(at_return) | (at_return != got)).sum())
        yield (f"when your function returned, {late} elements of h_out had not arrived yet "
               "(they were still being copied)",
               "wait for the work before returning: for s in streams: s.synchronize()")


def _wrong_results(h_in, got, expected, n_chunks, shared):
    n = h_in.size
    unwritten = np.isnan(got)
    if unwritten.all():
        yield ("h_out was never written: it still holds the NaN the checker put there",
               "copy each chunk's results back into h_out[lo:hi] with "
               "drv.memcpy_dtoh_async(h_out[lo:hi], d_out, stream), then wait for the streams")
    if unwritten.any():
        first, count = int(np.flatnonzero(unwritten)[0]), int(unwritten.sum())
        tail = np.arange(n) >= (n // n_chunks) * n_chunks
        if np.array_equal(unwritten, tail):
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
        where = (f"{int(bad.sum())} elements differ from NumPy, the first at index {first} "
                 f"(chunk {_chunk_of(first, n, n_chunks)}): got {got[first]!r}, "
                 f"expected {expected[first]!r}")
        if np.array_equal(got[bad], h_in[bad]):
            yield (where + "; they hold the input unchanged",
                   "between the two copies, run the kernel on the chunk, launch(d_in, d_out, "
                   "hi - lo, s), and copy back from the output buffer d_out")
        if shared:  # on a GPU, the likeliest cause of values that are wrong now and then
            yield (f"{where}; chunks on different streams used the same device {shared} "
                   "buffer, and on a GPU those streams run at the same time and overwrite each "
                   "other's data", SEPARATE_BUFFERS_HINT)
        yield (where,
               "check which buffer each copy and launch uses: chunk c's input goes into its "
               "stream's d_in, launch reads d_in and writes d_out with count = hi - lo, and "
               "h_out[lo:hi] comes from d_out")


def _wrong_streams(calls, streams, chunks, on_gpu):
    """The values are right: were they computed one launch a chunk, over the streams?"""
    if len(calls) != chunks:
        yield (f"the results are right, but launch was called {len(calls)} times for "
               f"{chunks} chunks",
               "cut the work into exactly n_chunks chunks and launch the kernel once a chunk")
    stream_ids = {id(s) for s in streams}
    if any(s is None for *_, s in calls):
        yield ("the results are right, but launch was called without a stream (stream=None), "
               "so the kernels ran in the default stream, which waits for every other stream",
               STREAM_HINT)
    if any(id(s) not in stream_ids for *_, s in calls):
        yield ("the results are right, but launch was given a stream that is not one of "
               "`streams`", STREAM_HINT)
    if len(streams) > 1 and len({id(s) for *_, s in calls}) == 1:
        yield ("the results are right, but every kernel went to the same stream, so nothing "
               "can overlap", STREAM_HINT)
    shared = _shared_buffers(calls)
    if shared:
        yield (f"the results are right here, but chunks on different streams used the same "
               f"device {shared} buffer. On a GPU those streams run at the same time and "
               f"overwrite each other's data"
               + ("" if on_gpu else " (the simulator runs them one after another, so the "
                  "results look right on it)"),
               SEPARATE_BUFFERS_HINT)


def _over_budget(calls, n_streams, n, n_chunks, itemsize):
    chunk_bytes = -(-n // n_chunks) * itemsize
    # A little slack: a last chunk that takes the remainder may be up to n_chunks elements longer.
    budget = n_streams * chunk_bytes + n_chunks * itemsize
    for name, k in (("input", 0), ("output", 1)):
        touched = _union_bytes([(c[k], c[2] * itemsize) for c in calls])
        if touched > budget:
            yield (f"the results are right, but the kernels used {touched} bytes of device "
                   f"{name} memory; the budget is one chunk per stream, {n_streams} x "
                   f"{chunk_bytes} bytes", BUDGET_HINT)


def _shared_buffers(calls) -> str | None:
    """'input' or 'output' if two calls on different streams touch overlapping device memory."""
    for k, name in ((0, "input"), (1, "output")):
        spans = sorted((c[k], c[k] + c[2] * 4, id(c[3])) for c in calls)
        for i, (_, a1, sa) in enumerate(spans):
            for b0, _, sb in spans[i + 1:]:
                if b0 >= a1:
                    break
                if sa != sb:
                    return name
    return None


def _union_bytes(spans) -> int:
    """Total bytes covered by (address, nbytes) spans, overlaps counted once."""
    total, end = 0, None
    for start, nbytes in sorted(spans):
        stop = start + nbytes
        if end is None or start >= end:
            total += nbytes
            end = stop
        elif stop > end:
            total += stop - end
            end = stop
    return total
