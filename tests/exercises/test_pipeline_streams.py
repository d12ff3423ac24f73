"""The pipeline exercise (notebook 05), its streams: a chunk's stream picked otherwise than its
buffers, or a copy queued on another stream than its chunk's kernel, is named from the streams
and the buffers of the calls (``pipeline_streams``), where the verdict blamed buffers that were
rightly one pair a stream, or listed every rule of the exercise."""

import pytest

from test_pipeline import COPY_IN, COPY_OUT, RIGHT, SYNC, define, run_check

pytestmark = pytest.mark.gpu_timing  # as test_pipeline.py: the checker may time a GPU

# name: (source, pieces of the expected verdict)
WRONG = {
    # blind audit AB (was 'the results are right here, but chunks on different streams used the
    # same device input buffer ... Hint: give each stream its own input and output buffer ...',
    # which it had): the stream picked by the round, c // len(streams), the buffers by c % ...
    "stream_picked_by_the_round": (
        RIGHT.replace("streams[c % len(streams)]", "streams[c // len(streams)]"),
        ("chunks 0, 1 and 2 all went to streams[0], and chunk 3 to streams[1] with buffers[0], "
         "the pair chunk 0 used on streams[0]", "c // len(streams) (line 9 of your cell: s = "
         "streams[c // len(streams)]) picks the stream by the round over the streams, while the "
         "buffers go by c % len(streams)", "Hint: s = streams[c % len(streams)], the same index "
         "as the buffers'")),
    # blind audit AO (was 'when your function returned, 71429 elements of h_out had not arrived
    # yet (they were still being copied) ... Hint: wait for the work before returning: ...'):
    # streams[-1] alone waited for, as if the last stream in the list finished last (KEEP: on a
    # GPU the buffers freed at the return would wait for the copies)
    "only_the_list_s_last_stream_waited_for": (
        "KEEP = []\n" + RIGHT.replace(SYNC, "    streams[-1].synchronize()\n"
                                            "    KEEP.append(buffers)\n"),
        ("elements of h_out had not arrived yet", "only streams[2] (streams[-1], the last in "
         "the list) had been waited for, not streams[0] and streams[1], which carried chunks 0, "
         "1, 3, 4 and 6: a stream's synchronize() waits for its own work alone", "Hint: wait for every stream before "
         "returning: for s in streams: s.synchronize()")),
    # blind audit AQ (was '57148 elements differ from NumPy, the first at index 14287 (chunk 1)
    # ... Hint: check which buffer and which stream each copy and launch uses: ...', a
    # checklist): every chunk's copy out queued on streams[0]; named from the streams of the
    # calls, so on a GPU too, where the copy may run after its kernel by luck
    "copy_out_on_streams_0": (
        RIGHT.replace(COPY_OUT, COPY_OUT.replace("d_out, s)", "d_out, streams[0])")),
        ("chunk 1's copy out was queued on streams[0], its copy in and kernel on streams[1] (so "
         "for 4 of 7 chunks): nothing orders the copy out after the chunk's kernel",
         "Hint: queue the copy out on the chunk's own stream, the one its copy in and kernel "
         "use")),
    "copy_in_on_streams_0": (
        RIGHT.replace(COPY_IN, COPY_IN.replace("h_in[lo:hi], s)", "h_in[lo:hi], streams[0])")),
        ("chunk 1's copy in was queued on streams[0], its kernel and copy out on streams[1]",
         "nothing orders the kernel after the chunk's copy in", "Hint: queue the copy in on "
         "the chunk's own stream, the one its kernel and copy out use")),
    # blind audit AQ (was 'the kernel failed: this allocation has been freed: ... Hint: a thread
    # read or wrote outside its array: ...'): the buffers freed after the loop, before the
    # streams were waited for; refused before the free is made, so named on a GPU too, where
    # cuMemFree may wait for the device by itself
    "buffers_freed_before_the_streams_were_waited_for": (
        RIGHT.replace(SYNC, "    for d_in, d_out in buffers:\n        d_in.free()\n"
                            "        d_out.free()\n" + SYNC),
        ("your function freed d_in at line 15 of your cell (d_in.free()) while the copies and "
         "kernels of chunks 0, 3 and 6, queued on streams[0], still used it: streams[0] had "
         "not been waited for", "Hint: wait for every stream before freeing its buffers")),
}


@pytest.mark.parametrize("name", sorted(WRONG))
def test_a_stream_picked_otherwise_than_its_buffers_is_named(name, capsys):
    source, expected = WRONG[name]
    ok, out = run_check(define(source), capsys)
    assert not ok and out.startswith("NOT YET:"), out
    for piece in expected:
        assert piece in out, f"{name}: expected {piece!r} in:\n{out}"
