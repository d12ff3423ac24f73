"""The pipeline exercise (notebook 05), its device buffers: buffers larger than the budget of one
chunk each are named from the sizes given to mem_alloc (``pipeline_copies.over_budget``), where
the kernels touched only a chunk of each and the verdict passed; and a chunk size divided with /,
a float, named from the line that divided (``pipeline_copies.true_division``); and a launch told
more elements than its chunk's copy brought into d_in (``pipeline_copies.read_past_its_copy``)."""

import pytest

from test_pipeline import RIGHT, define, run_check

pytestmark = pytest.mark.gpu_timing  # as test_pipeline.py: the checker may time a GPU

# name: (source, pieces of the expected verdict)
WRONG = {
    # blind audit AH (was 'PASS: the results match NumPy in all 3 cases ..., each stream with its
    # own chunk-sized buffers, ...'): buffers of each stream's share of the data, h_in.nbytes //
    # len(streams) bytes, where one chunk belongs
    "buffers_of_each_stream_s_share": (
        RIGHT.replace("drv.mem_alloc(chunk * 4), drv.mem_alloc(chunk * 4)",
                      "drv.mem_alloc(h_in.nbytes // len(streams)), "
                      "drv.mem_alloc(h_in.nbytes // len(streams))"),
        ("the results are right, but your function allocated 6 device buffers of 133337 bytes "
         "(line 5 of your cell:", "the budget is one chunk a buffer, chunk * h_in.itemsize = "
         "57148 bytes", "allocate for each stream one input and one output buffer of one "
         "chunk (drv.mem_alloc(chunk * h_in.itemsize))")),
    # blind audit AL (was 'your function raised TypeError at line 9 of your cell (...): slice
    # indices must be integers or None ... Hint: the message says what went wrong on that line'):
    # the chunk size rounded up with / where // belongs, a float (on a GPU mem_alloc refuses it)
    "chunk_size_by_true_division": (
        RIGHT.replace("chunk = -(-n // n_chunks)", "chunk = (n + n_chunks - 1) / n_chunks"),
        ("chunk = (n + n_chunks - 1) / n_chunks (line 4 of your cell) divides with /, which in "
         "Python always gives a float", "Hint: divide with // where a whole number belongs: "
         "chunk = (n + n_chunks - 1) // n_chunks")),
    # blind audit AN (was 'PASS: the results match NumPy in all 3 cases ...'): launch told chunk,
    # the rounded-up length, where hi - lo belongs: the last, shorter chunk's kernel read elements
    # of d_in its copy in never filled (a stream's earlier chunk left them there)
    "launch_told_the_full_chunk": (
        RIGHT.replace("launch(d_in, d_out, hi - lo, s)", "launch(d_in, d_out, chunk, s)"),
        ("chunk 6's launch was given count = 14287, but its copy in brought hi - lo = 14281 "
         "elements into d_in: the kernel read 6 elements past them", "what an earlier chunk "
         "of streams[0] left there", "Hint: count is the chunk's own length, that of its "
         "copies: launch(d_in, d_out, hi - lo, s)")),
}


@pytest.mark.parametrize("name", sorted(WRONG))
def test_buffer_and_chunk_sizes_are_named(name, capsys):
    source, expected = WRONG[name]
    ok, out = run_check(define(source), capsys)
    assert not ok and out.startswith("NOT YET:"), out
    for piece in expected:
        assert piece in out, f"{name}: expected {piece!r} in:\n{out}"
