"""compile/lines.py: the learner's line of a plain build's instruction, read from its twin with
line tables, and only where the two builds' code is the same byte for byte."""

import pytest

from helpers.backend import BACKEND
from helpers.sim.compile import builder, lines

pytestmark = pytest.mark.skipif(BACKEND != "simulator", reason="the simulator's builds")

SOURCE = """
__device__ float twice(float v) { return 2.0f * v; }
__global__ void scale(float *x, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = twice(x[i]);
}
"""
OTHER = SOURCE.replace("2.0f", "3.0f")


@pytest.fixture(scope="module")
def builds():
    """(plain, twin with line tables, another module's plain build)."""
    return (builder.build(SOURCE), builder.build(SOURCE, lines=True), builder.build(OTHER))


def test_only_the_twin_has_line_tables(builds):
    plain, twin, _ = builds
    assert not lines.has_line_tables(plain) and lines.has_line_tables(twin)


def test_the_twin_has_the_plain_builds_code_byte_for_byte(builds):
    plain, twin, other = builds
    text = lines._section(plain, b".text")
    assert text and text == lines._section(twin, b".text")
    assert text != lines._section(other, b".text")


def test_a_file_that_is_no_elf_library_has_no_sections(tmp_path):
    not_elf = tmp_path / "notes.txt"
    not_elf.write_text("no library")
    assert lines._section(not_elf, b".text") == b"" and not lines.has_line_tables(not_elf)


def test_builds_whose_code_differs_name_no_line(builds):
    plain, _, other = builds
    other_twin = builder.build(OTHER, lines=True)
    assert lines.place(plain, other_twin, 0) is None
