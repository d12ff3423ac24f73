"""run/operators.py: reading a shift's operator from the learner's line (the line itself:
compile/source.py's line_text; the errors: tests/kernels/test_gpu_operators.py)."""

from helpers.sim.run.operators import operator_at


def test_the_operator_is_read_at_the_checks_column_or_from_a_line_with_only_one():
    line = "    out[i] = (v[i] << k) | (w >> 3);"
    assert operator_at(line, line.index("<<") + 1) == "<<"
    assert operator_at(line, line.index(">>") + 1) == ">>"
    assert operator_at("    x = a >> k;", 0) == ">>"
    assert operator_at("    kernel<<<1, 2>>>(x); y = a << k;", 0) == "<<"
    assert operator_at("    x = (a << k) >> j;", 0) is None
    assert operator_at(None, 5) is None

