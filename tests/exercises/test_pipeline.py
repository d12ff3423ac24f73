"""The pipeline exercise (notebook 05): the reference solution passes, the notebook's stub and
known-wrong pipelines fail, each with the hint that names its mistake.

The learner's work is a Python function, so the variants are Python source, exec'ed the way a
notebook cell defines the function. Returning before the streams are done leaves stale results on
both backends (the simulator runs queued work only when the host waits for it, as a GPU may).
Copies that do not overlap change the timing, which only a GPU measures; on the simulator the
launches the checker hands over note where the host waited, so those variants fail on both.
"""

import json
import textwrap
from pathlib import Path

import numpy as np
import pytest

from helpers.backend import BACKEND
from helpers.exercises import catalog, pipeline
from helpers.exercises.pipeline import check_pipeline, diagnose
from helpers.exercises.solutions.pipeline import my_pipeline as solution

pytestmark = pytest.mark.gpu_timing  # on a GPU the checker measures the overlap (tests/conftest.py)

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOK = ROOT / "notebooks" / "05_pinned_memory_and_streams.ipynb"


def define(source: str):
    """Run source that defines my_pipeline, as a notebook cell would; return the function."""
    return catalog.define_function(textwrap.dedent(source), "my_pipeline")


def run_check(fn, capsys):
    verdict = check_pipeline(fn)
    out = capsys.readouterr().out
    assert out.endswith(f"{verdict}\n"), out
    return verdict.passed, out


def test_solution_passes(capsys):
    ok, out = run_check(solution, capsys)
    assert ok, out
    assert out.startswith("PASS:"), out
    if BACKEND == "simulator":
        assert "How much they overlap was NOT checked" in out
        assert "run this check on a machine with a GPU" in out
    else:
        assert "the work overlapped" in out


def test_notebook_stub_fails(capsys):
    cells = json.loads(NOTEBOOK.read_text(encoding="utf-8"))["cells"]
    stubs = ["".join(c["source"]) for c in cells
             if c["cell_type"] == "code" and "".join(c["source"]).startswith("def my_pipeline(")]
    assert len(stubs) == 1, "the notebook should define my_pipeline in exactly one cell"
    ok, out = run_check(define(stubs[0]), capsys)
    assert not ok
    assert out.startswith("NOT YET:"), out
    assert "h_out was never written" in out, out


def test_not_a_function(capsys):
    ok, out = run_check(42, capsys)
    assert not ok
    assert "without parentheses" in out


# Pieces of a correct pipeline, to build the wrong ones from.
HEAD = """
def my_pipeline(h_in, h_out, n_chunks, streams, launch):
    n = h_in.size
    chunk = -(-n // n_chunks)
    buffers = [(drv.mem_alloc(chunk * 4), drv.mem_alloc(chunk * 4)) for _ in streams]
"""
LOOP = """
    for c in range(n_chunks):
        lo, hi = c * chunk, min(n, (c + 1) * chunk)
        s = streams[c % len(streams)]
        d_in, d_out = buffers[c % len(streams)]
"""
COPY_IN = "        drv.memcpy_htod_async(d_in, h_in[lo:hi], s)\n"
KERNEL = "        launch(d_in, d_out, hi - lo, s)\n"
COPY_OUT = "        drv.memcpy_dtoh_async(h_out[lo:hi], d_out, s)\n"
SYNC = "    for s in streams:\n        s.synchronize()\n"
RIGHT = HEAD + LOOP + COPY_IN + KERNEL + COPY_OUT + SYNC

# name: (source, a piece of the expected verdict, or a tuple of them)
WRONG = {
    "chunk_rounded_down": (
        RIGHT.replace("chunk = -(-n // n_chunks)", "chunk = n // n_chunks")
             .replace("min(n, (c + 1) * chunk)", "(c + 1) * chunk"), "round the chunk size up"),
    # blind audit TLC-pipeline-1 (was "the last 1 elements of h_out were never written ... Hint:
    # n = 100003 is not a multiple of n_chunks = 7: round the chunk size up, ...", which it was):
    # the chunk's end clamped to n - 1, not n
    "end_clamped_to_n_minus_1": (
        RIGHT.replace("min(n, (c + 1) * chunk)", "min(n - 1, (c + 1) * chunk)"),
        ("the last chunk ends at hi = n - 1 = 100002, so element 100002 of h_out was never "
         "written: hi was clamped with min(n - 1, ...)", "hi = min(n, lo + chunk)")),
    "last_chunk_skipped": (
        RIGHT.replace("range(n_chunks)", "range(n_chunks - 1)"),
        "elements of h_out were never written"),
    # blind audit AC (was '57142 elements of h_out were never written ... Hint: every chunk must
    # come back: the ranges [lo, hi) must cover 0..n ...'): the loop runs over the streams
    "loop_over_the_streams": (RIGHT.replace("c in range(n_chunks)", "c, s in enumerate(streams)"), (
        "only chunks 0, 1 and 2 were processed, one per stream (3 streams)", "not n_chunks = 7",
        "chunks 3 to 6 (h_out[42861:100003]) were never written",
        "Hint: loop over every chunk, not over the streams", "s = streams[c % len(streams)]")),
    "no_copy_back": (HEAD + LOOP + COPY_IN + KERNEL + SYNC, "h_out was never written"),
    "kernel_skipped": (
        HEAD + LOOP + COPY_IN + COPY_OUT.replace("d_out, s)", "d_in, s)") + SYNC,
        "they hold the input unchanged"),
    "copied_back_from_input": (
        HEAD + LOOP + COPY_IN + KERNEL + COPY_OUT.replace("d_out, s)", "d_in, s)") + SYNC,
        "they hold the input unchanged"),
    "output_copied_into_input": (
        HEAD + LOOP + COPY_IN + KERNEL
        + "        drv.memcpy_dtoh_async(h_in[lo:hi], d_out, s)\n" + SYNC,
        "your function changed h_in"),
    # blind audit TJC-pipeline-1 (was "your function raised IndexError at line 17 of your cell
    # (stream = streams[c % n_chunks]): list index out of range ... Hint: the message says what
    # went wrong on that line"): the chunk count where the number of streams belongs
    "streams_taken_modulo_the_chunks": (
        RIGHT.replace("s = streams[c % len(streams)]", "s = streams[c % n_chunks]"),
        ("c % n_chunks counts up to n_chunks - 1 = 6, past the last of the 3 streams: the chunk "
         "count where the number of streams belongs", "streams[c % len(streams)]")),
    # blind audit TTC-pipeline-1 (was "your function raised IndexError at line 18 of your cell
    # (d_in, d_out = buffers[c % n_chunks]): list index out of range ... Hint: the message says
    # what went wrong on that line"): the buffer pair picked modulo the chunk count
    "buffers_taken_modulo_the_chunks": (
        RIGHT.replace("buffers[c % len(streams)]", "buffers[c % n_chunks]"),
        ("c % n_chunks counts up to n_chunks - 1 = 6, past the last of the 3 pairs in buffers, "
         "one per stream: the chunk count where the number of streams belongs",
         "Hint: pick the pair of the chunk's stream: d_in, d_out = buffers[c % len(streams)]")),
    # blind audit TKC-pipeline-1 (was "the results are right here, but chunks on different
    # streams used the same device input buffer ... Hint: give each stream its own input and
    # output buffer ..."): the allocation was right, the pair was picked by c // len(streams)
    "buffers_picked_by_the_round": (
        RIGHT.replace("buffers[c % len(streams)]", "buffers[c // len(streams)]"),
        ("chunks 0, 1 and 2, on streams 0, 1 and 2, all used buffers[0]",
         "buffers[c // len(streams)]", "Hint: d_in, d_out = buffers[c % len(streams)]")),
    # blind audit TOC-pipeline-1 (was "the results are right here, but chunks on different
    # streams used the same device input buffer ... Hint: give each stream its own input and
    # output buffer ...", which it had): the pair picked by c % 2 with 3 streams
    "buffers_picked_modulo_2": (
        RIGHT.replace("buffers[c % len(streams)]", "buffers[c % 2]"),
        ("chunk 2, on stream 2, used buffers[0], the pair of stream 0: buffers[c % 2] (line 10 "
         "of your cell: d_in, d_out = buffers[c % 2]) picks among 2 pairs while the chunks go "
         "round 3 streams",
         "Hint: d_in, d_out = buffers[c % len(streams)]")),
    # blind audit TMC-pipeline-1 (was "the results are right here, but chunks on different
    # streams used the same device input buffer ... Hint: give each stream its own input and
    # output buffer ...", which the learner believed done): one pair repeated by list multiplication
    "one_pair_repeated_by_list_multiplication": (
        RIGHT.replace("drv.mem_alloc(chunk * 4)) for _ in streams]",
                      "drv.mem_alloc(chunk * 4))] * len(streams)"),
        ("every stream used the same pair of buffers: [(...)] * len(streams) (line 5 of your "
         "cell) repeats the one pair that was allocated, so buffers holds 3 references to it",
         "Hint: allocate a pair for each stream: buffers = [(drv.mem_alloc(chunk * 4), "
         "drv.mem_alloc(chunk * 4)) for _ in streams]")),
    # blind audit TQC-pipeline-1 (was "7 elements differ from NumPy, the first at index 14286
    # (chunk 0) ... Hint: check which buffer and which stream each copy and launch uses ...",
    # a checklist): launch told hi - lo - 1 elements, as if hi were the chunk's last index
    "launch_count_one_short": (
        RIGHT.replace(KERNEL, "        launch(d_in, d_out, hi - lo - 1, s)\n"),
        ("every launch was told one element fewer than its chunk holds",
         "chunk 0 (elements 0 to 14286) has 14287 elements, and launch got 14286",
         "the last element of every chunk", "index 14286",
         "Hint: hi is one past the chunk's last element", "launch(d_in, d_out, hi - lo, s)")),
    "one_stream": (RIGHT.replace("s = streams[c % len(streams)]", "s = streams[0]"),
                   "every kernel went to the same stream"),
    "kernel_in_default_stream": (RIGHT.replace("launch(d_in, d_out, hi - lo, s)",
                                               "launch(d_in, d_out, hi - lo, None)"),
                                 "without a stream"),
    "stream_not_passed": (RIGHT.replace("launch(d_in, d_out, hi - lo, s)",
                                        "launch(d_in, d_out, hi - lo)"), "without a stream"),
    # blind audit TSC-pipeline-1 (was "57148 elements differ from NumPy, the first at index 14287
    # (chunk 1) ... Hint: check which buffer and which stream each copy and launch uses ..."):
    # every chunk's kernel launched on streams[0], its copies on its own stream; named from the
    # streams of the calls, so the same on a GPU whatever the timing gives
    "kernel_on_streams_0": (RIGHT.replace("launch(d_in, d_out, hi - lo, s)",
                                          "launch(d_in, d_out, hi - lo, streams[0])"),
                            ("chunk 1's kernel was launched on streams[0], its copy in and copy "
                             "out on streams[1] (so for 4 of 7 chunks)",
                             "launch on the chunk's own stream, the one its copies use")),
    "one_buffer_pair_for_all_streams": (
        RIGHT.replace("for _ in streams]", "for _ in streams[:1]]")
             .replace("buffers[c % len(streams)]", "buffers[0]"),
        "used the same device input buffer"),
    "whole_arrays_on_the_device": (
        RIGHT.replace("buffers = [(drv.mem_alloc(chunk * 4), drv.mem_alloc(chunk * 4)) "
                      "for _ in streams]",
                      "d_all_in, d_all_out = drv.mem_alloc(h_in.nbytes), drv.mem_alloc(h_in.nbytes)")
             .replace("d_in, d_out = buffers[c % len(streams)]",
                      "d_in, d_out = int(d_all_in) + 4 * lo, int(d_all_out) + 4 * lo"),
        "the budget is one chunk per stream"),
    "a_buffer_per_chunk": (
        RIGHT.replace("for _ in streams]", "for _ in range(n_chunks)]")
             .replace("buffers[c % len(streams)]", "buffers[c]"),
        "the budget is one chunk per stream"),
    "raises": (HEAD + "    raise NotImplementedError('TODO')\n", "replace the TODO"),
    "launch_without_its_count": (RIGHT.replace("launch(d_in, d_out, hi - lo, s)",
                                               "launch(d_in, d_out, stream=s)"),
                                 "launch takes (d_in, d_out, count, stream)"),
    # a TypeError of another call is not blamed on launch: the line that raised is named
    "copy_without_its_source": (RIGHT.replace("drv.memcpy_htod_async(d_in, h_in[lo:hi], s)",
                                              "drv.memcpy_htod_async(d_in, s)"),
                                "raised TypeError at line 11 of your cell "
                                "(drv.memcpy_htod_async(d_in, s))"),
    "launch_given_host_arrays": (RIGHT.replace("launch(d_in, d_out, hi - lo, s)",
                                               "launch(h_in[lo:hi], h_out[lo:hi], hi - lo, s)"),
                                 "launch takes (d_in, d_out, count, stream)"),
    # right results and no wait in the loop: what the copies were given names these
    "copy_in_on_the_default_stream": (
        RIGHT.replace(COPY_IN, "        drv.memcpy_htod_async(d_in, h_in[lo:hi])\n"),
        "a copy went to the default stream"),
    "results_copied_into_an_array_of_its_own": (
        RIGHT.replace(LOOP, "    out = np.empty_like(h_out)\n" + LOOP)
             .replace(COPY_OUT, "        drv.memcpy_dtoh_async(out[lo:hi], d_out, s)\n")
             .replace(SYNC, SYNC + "    h_out[:] = out\n"),
        "a copy went to an array of your own, not h_out[lo:hi]"),
    "input_copied_from_an_array_of_its_own": (
        RIGHT.replace(LOOP, "    staged = h_in.copy()\n" + LOOP)
             .replace(COPY_IN, "        drv.memcpy_htod_async(d_in, staged[lo:hi], s)\n"),
        "a copy came from an array of your own, not h_in[lo:hi]"),
    "returns_before_the_copies_end": (
        "KEEP = []\n" + RIGHT.replace(SYNC, "    KEEP.append(buffers)\n"),  # freeing would wait
        "had not arrived yet"),
    # blind audit TVC-pipeline-1 (was "when your function returned, 100003 elements of h_out had
    # not arrived yet ... Hint: ... for s in streams: s.synchronize()", the loop it had): no KEEP,
    # as written: on a GPU the buffers freed at the return wait for the copies (the next test)
    "final_wait_without_parentheses": (
        RIGHT.replace(SYNC, "    for s in streams:\n        s.synchronize\n"),
        ("s.synchronize at line 15 of your cell names the method without calling it (no "
         "parentheses), so the host never waited there", "call it: s.synchronize()")),
    # blind audit TEC-pipeline-1 (was "when your function returned, 57148 elements of h_out had
    # not arrived yet (they were still being copied) ... Hint: wait for the work before
    # returning: for s in streams: s.synchronize()"): the loop's leftover stream alone waited for
    "only_the_loop_s_last_stream_waited_for": (
        "KEEP = []\n" + RIGHT.replace(SYNC, "    s.synchronize()\n    KEEP.append(buffers)\n"),
        "only streams[0], the last chunk's (chunk 6), had been waited for"),
    # blind audit TC-pipeline-1 (was "your function raised LogicError: cuMemcpyHtoDAsync failed:
    # invalid argument: 57148 bytes at 0x... do not fit inside one allocation (at offset 0 of a
    # 14287-byte allocation) ... Hint: a copy or a kernel touched memory outside a buffer ..."):
    # the copy is refused before it is made, so that a GPU does not write past the buffer
    "buffers_of_chunk_bytes": (
        RIGHT.replace("drv.mem_alloc(chunk * 4), drv.mem_alloc(chunk * 4)",
                      "drv.mem_alloc(chunk), drv.mem_alloc(chunk)"),
        "does not fit its device buffer of 14287 bytes: drv.mem_alloc was given the chunk's "
        "14287 elements, where it takes bytes"),
    # blind audit TXC-pipeline-1 (was "your function raised LogicError at line 19 ...: 57148
    # bytes at 0x... do not fit inside one allocation ...; is the array larger than the device
    # buffer? ... Hint: ... a chunk's copy must fit its device buffer, and count must be the
    # chunk's own length (hi - lo)", which they were): the staging exercise's offset carried
    # over, int(d_in) + lo * 4, into a buffer that holds the chunk alone; refused before it is
    # made, on a GPU too
    "copied_in_at_the_chunk_s_place_in_h": (
        RIGHT.replace(COPY_IN, COPY_IN.replace("(d_in,", "(int(d_in) + lo * 4,")),
        ("chunk 1's copy in went to int(d_in) + lo * 4, byte 57148 (lo = 14287) of its device "
         "buffer, past its end (57148 bytes)", "d_in holds chunk 1 alone",
         "copy the chunk to the start of d_in: drv.memcpy_htod_async(d_in, h_in[lo:hi], s)")),
    "copied_back_from_the_chunk_s_place_in_h": (
        RIGHT.replace(COPY_OUT, COPY_OUT.replace("d_out, s)", "int(d_out) + lo * 4, s)")),
        ("chunk 1's copy back came from int(d_out) + lo * 4, byte 57148 (lo = 14287) of its "
         "device buffer", "copy the chunk from the start of d_out: "
         "drv.memcpy_dtoh_async(h_out[lo:hi], d_out, s)")),
    # blind audit TC-pipeline-2 (was "100003 elements differ from NumPy ... Hint: check which
    # buffer and which stream each copy and launch uses: ..."): launch(d_out, d_in, ...)
    "launch_buffers_swapped": (
        RIGHT.replace(KERNEL, "        launch(d_out, d_in, hi - lo, s)\n"),
        "launch was given its buffers the wrong way round, (d_out, d_in): each kernel read the "
        "buffer its results are copied back from"),
    # blind audit TNC-pipeline-1 (was "100003 elements differ from NumPy ... Hint: check which
    # buffer and which stream each copy and launch uses: ..."): the copy in went to d_out
    "copy_in_to_d_out": (
        RIGHT.replace(COPY_IN, COPY_IN.replace("(d_in,", "(d_out,")),
        ("every chunk's copy in went to the buffer its launch writes, d_out (the launch's "
         "second buffer), not d_in", "Hint: copy each chunk into the buffer the kernel reads: "
         "drv.memcpy_htod_async(d_in, h_in[lo:hi], s)")),
    # blind audit TDC-pipeline-1 (was "your function raised OutOfBoundsError at line 23 of your
    # cell (stream.synchronize()): ... is a guard like `if (i < n)` missing? ... Hint: a copy or a
    # kernel touched memory outside a buffer: ..."): the launch refused before it is made
    "launch_given_the_whole_n": (
        RIGHT.replace(KERNEL, "        launch(d_in, d_out, n, s)\n"),
        "chunk 0's launch was given count = 100003 (n, the whole array's length), where its "
        "buffers hold 14287 elements (the chunk's)"),
    # blind audit TFC-pipeline-1 (was "99992 elements differ from NumPy, the first at index 0
    # (chunk 0): ... Hint: check which buffer and which stream each copy and launch uses: ..."):
    # each chunk's kernel queued before its copy in
    "launch_before_the_copy_in": (
        HEAD + LOOP + KERNEL + COPY_IN + COPY_OUT + SYNC,
        ("every chunk's kernel was queued before its copy in: launch(d_in, d_out, hi - lo, s) "
         "came before drv.memcpy_htod_async(d_in, h_in[lo:hi], s)",
         "Hint: on each chunk's stream queue the copy in, the launch and the copy out, in that "
         "order")),
    "copy_out_before_the_launch": (
        HEAD + LOOP + COPY_IN + COPY_OUT + KERNEL + SYNC,
        ("every chunk's kernel was queued after its copy out",
         "Hint: on each chunk's stream queue the copy in, the launch and the copy out, in that "
         "order")),
}


@pytest.mark.parametrize("name", sorted(WRONG))
def test_wrong_pipelines_fail_with_their_hint(name, capsys):
    source, expected = WRONG[name]
    ok, out = run_check(define(source), capsys)
    assert not ok, f"{name} passed:\n{out}"
    assert out.startswith("NOT YET:"), out
    for piece in expected if isinstance(expected, tuple) else (expected,):
        assert piece in out, f"{name}: expected {piece!r} in:\n{out}"


def test_a_wait_without_parentheses_is_named_where_the_run_shows_nothing(monkeypatch, capsys):
    """As on a GPU, where freeing the buffers waits for the copies: named alone, from the code."""
    monkeypatch.setattr(pipeline, "diagnose", lambda *args: iter(()))
    ok, out = run_check(define(WRONG["final_wait_without_parentheses"][0]), capsys)
    assert not ok and out.startswith("NOT YET: s.synchronize at line 15 of your cell names the "
                                     "method") and "Hint: call it: s.synchronize()" in out, out


def test_wrong_values_from_shared_buffers_name_the_sharing():
    """On a GPU, streams that share a buffer overwrite each other's data: the values come out
    wrong, and the verdict names the sharing, not only the wrong values."""
    h_in = np.arange(8, dtype=np.float32)
    got = h_in.copy()
    got[4:] = -1
    streams = [object(), object()]
    calls = [(1000, 2000, 4, streams[0]), (1000, 2000, 4, streams[1])]  # one buffer pair for both
    problem, hint = next(diagnose(h_in, h_in.copy(), got, got, h_in, 2, streams, calls))
    assert "elements differ from NumPy" in problem
    assert "used the same device input buffer" in problem and "its own input" in hint


# The results are right, but the work did not overlap: a GPU's timing shows it, and on the
# simulator the recorded launches show where the host waited.
WAITING = {
    "synchronous_copies": (
        RIGHT.replace("drv.memcpy_htod_async(d_in, h_in[lo:hi], s)", "drv.memcpy_htod(d_in, h_in[lo:hi])")
             .replace("drv.memcpy_dtoh_async(h_out[lo:hi], d_out, s)",
                      "drv.memcpy_dtoh(h_out[lo:hi], d_out)"), "did not overlap"),
    "waits_after_every_chunk": (
        RIGHT.replace(COPY_OUT, COPY_OUT + "        s.synchronize()\n"), "did not overlap"),
    "blocking_copy_in_only": (
        RIGHT.replace("drv.memcpy_htod_async(d_in, h_in[lo:hi], s)", "drv.memcpy_htod(d_in, h_in[lo:hi])"),
        "did not overlap"),
    "context_synchronize_in_the_loop": (
        RIGHT.replace(COPY_OUT, COPY_OUT + "        drv.Context.synchronize()\n"),
        "did not overlap"),
}
ON_THE_SIMULATOR = "your function waited for chunk 0's kernel before it queued chunk 1's"


@pytest.mark.parametrize("name", sorted(WAITING))
def test_a_pipeline_that_waits_inside_its_loop_fails(name, capsys):
    source, expected = WAITING[name]
    ok, out = run_check(define(source), capsys)
    assert not ok, f"{name} passed:\n{out}"
    assert out.startswith("NOT YET:"), out
    expected = expected if BACKEND != "simulator" else ON_THE_SIMULATOR
    assert expected in out and "synchronize once, after the loop" in out, out


# Right, written otherwise: each stream waited for only before its buffers are used again.
RIGHT_OTHERWISE = {
    "waits_for_a_stream_before_reusing_its_buffers": RIGHT.replace(
        COPY_IN, "        if c >= len(streams):\n            s.synchronize()\n" + COPY_IN),
    "a_loop_over_precomputed_spans": (
        HEAD + "    spans = [(c * chunk, min(n, (c + 1) * chunk)) for c in range(n_chunks)]\n"
        + "    for c, (lo, hi) in enumerate(spans):\n"
        + "        s, (d_in, d_out) = streams[c % len(streams)], buffers[c % len(streams)]\n"
        + COPY_IN + KERNEL + COPY_OUT + SYNC),
    "frees_its_buffers_after_the_streams": (  # blind audit AQ: a free after the wait is right
        RIGHT + "    for d_in, d_out in buffers:\n        d_in.free()\n        d_out.free()\n"),
}


@pytest.mark.parametrize("name", sorted(RIGHT_OTHERWISE))
def test_a_right_pipeline_written_otherwise_passes(name, capsys):
    ok, out = run_check(define(RIGHT_OTHERWISE[name]), capsys)
    assert ok, f"{name}: {out}"


@pytest.mark.skipif(BACKEND != "simulator", reason="on a GPU test_solution_passes runs it")
def test_the_gpu_overlap_check_runs_its_course_on_the_simulator(monkeypatch, capsys):
    """The overlap check runs only on a GPU; here it runs once, small, so that its code is
    exercised on every machine. (The simulator cannot overlap, so either verdict may come.)"""
    from helpers.exercises import pipeline

    monkeypatch.setattr(pipeline, "BIG_N", 2**16 + 123)
    verdict = pipeline.check_overlap(solution, pipeline.load_kernel())
    assert ("did not overlap" in verdict.problem) or verdict.passed, verdict
    assert "your pipeline took" in verdict.problem
