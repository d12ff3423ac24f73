"""run/operators.py: reading a shift's operator from the learner's line, and the line from the
source as the compiler numbers it (the errors themselves: tests/kernels/test_gpu_operators.py)."""

from helpers.sim.run.operators import _source_line, operator_at


def test_the_operator_is_read_at_the_checks_column_or_from_a_line_with_only_one():
    line = "    out[i] = (v[i] << k) | (w >> 3);"
    assert operator_at(line, line.index("<<") + 1) == "<<"
    assert operator_at(line, line.index(">>") + 1) == ">>"
    assert operator_at("    x = a >> k;", 0) == ">>"
    assert operator_at("    kernel<<<1, 2>>>(x); y = a << k;", 0) == "<<"
    assert operator_at("    x = (a << k) >> j;", 0) is None
    assert operator_at(None, 5) is None


def test_the_line_follows_the_sources_line_directives():
    source = '#line 10 "cuda_src/k.cu"\nint a;\nint b = 1 << k;\n'
    assert _source_line(source, "cuda_src/k.cu", 11) == "int b = 1 << k;"
    assert _source_line("int a;\nint b;\n", "kernel.cu", 2) == "int b;"
    assert _source_line(source, "header.h", 11) is None
