"""helpers.source (the part of a kernel file a section shows, and a line's number); the file is not
named test_source.py, which tests/sim/compile/ has: pytest needs each test file's name once."""

from helpers.backend import CUDA_SRC
from helpers.source import line_of, show_source


def test_show_source_prints_from_start_up_to_stop(capsys):
    show_source("block_reverse.cu", start="__global__ void reverse_block(",
                stop="// The same without the barrier")
    shown = capsys.readouterr().out.splitlines()
    assert shown[0].startswith("__global__ void reverse_block(") and shown[-1] == "}"
    show_source("block_reverse.cu")
    assert capsys.readouterr().out.rstrip() == (CUDA_SRC / "block_reverse.cu").read_text().rstrip()


def test_line_of_counts_from_one_and_from_the_line_after():
    lines = (CUDA_SRC / "transpose.cu").read_text().splitlines()
    read_back = "= tile[threadIdx.x][threadIdx.y + j]"
    found = [i + 1 for i, line in enumerate(lines) if read_back in line]
    assert line_of("transpose.cu", read_back) == found[0]
    assert line_of("transpose.cu", read_back, nth=1) == found[1]
    assert line_of("transpose.cu", read_back, after="// 3. Tiled with padding") == found[1]
