"""Text tables of a memory trace (helpers/sim/microscope/tables.py): a kernel's figures and the
same per source line, as Nsight Compute's Memory Workload Analysis lays them out. Counters made
by hand: no compile."""

from helpers.sim.microscope import tables
from helpers.sim.microscope.trace import Counts, KernelStats


def _stats(name="copy", launches=2):
    s = KernelStats(name, launches)
    s.global_ld = Counts(requests=4, lanes=128, bytes=256, sectors=16)  # half of what it moved
    s.shared_st = Counts(requests=2, lanes=64, bytes=256, wavefronts=33, ideal_wavefronts=2)
    s.atomics = Counts(requests=2, lanes=40)
    return s


def _row(text, label):
    """The cells of the row that starts with label."""
    line = next(line for line in text.splitlines() if line.startswith(label))
    return line[len(label):].split()


def test_a_kernels_table_has_its_requests_sectors_conflicts_and_atomics():
    text = tables.kernel_table(_stats())
    assert text.splitlines()[0] == "kernel copy (2 launches)"
    assert _row(text, "global loads") == ["4", "16", "4.00", "256", "512", "50%"]
    assert _row(text, "shared stores") == ["2", "33", "31", "15.50"]
    assert "global stores" not in text and "shared loads" not in text  # no requests: no row
    assert "global atomics: 2 requests, 40 operations" in text
    assert "lane efficiency 90.6%" in text  # (128 + 64 + 40) lanes of 8 requests x 32


def test_a_kernel_without_memory_requests_says_so():
    text = tables.kernel_table(KernelStats("idle", 1))
    assert text.splitlines() == ["kernel idle", "no loads or stores of global or shared memory",
                                 "lane efficiency 100.0%: on average 32.0 of a warp's 32 lanes "
                                 "take part in each memory request"]


def test_lines_come_in_line_order_with_their_cost_per_request():
    later, earlier = _stats("kernel.cu:12", 0), KernelStats("kernel.cu:3", 0)
    earlier.global_st = Counts(requests=1, lanes=16, bytes=64, sectors=2)
    text = tables.line_table("copy", {("kernel.cu", 12): later, ("kernel.cu", 3): earlier})
    rows = [line.split() for line in text.splitlines()[2:]]
    assert rows == [["kernel.cu:3", "global", "store", "1", "2.00", "sectors", "50%"],
                    ["kernel.cu:12", "global", "load", "4", "4.00", "sectors", "100%"],
                    ["kernel.cu:12", "shared", "store", "2", "15.50", "conflicts", "100%"]]
    assert tables.line_table("idle", {}) == \
        "kernel idle: no loads or stores of global or shared memory"
