"""compile/lines.py: the learner's line of a plain build's instruction, read from its twin with
line tables, and only where the two builds' code is the same byte for byte."""

import pytest

from helpers.backend import BACKEND
from helpers.sim.compile import builder, lines, prebuilt
from helpers.sim.compile.source import INCLUDE_DIR, INCLUDE_IN_LINE_TABLES

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


@pytest.mark.parametrize("prelude", ["precompiled", "parsed"])
def test_each_twin_has_the_code_of_a_plain_build_that_read_the_prelude_its_way(monkeypatch, tmp_path,
                                                                             prelude):
    """A plain build reads the precompiled prelude, except the first with its flags, which parses
    it (prebuilt.prelude_folder); its twin must read it the same way: g++ 13's code differed
    between the two (on the H200, every fault's line was lost in a run of the whole suite)."""
    source = SOURCE.replace("2.0f", f"{len(prelude)}.5f")
    if prelude == "parsed":
        monkeypatch.setattr(prebuilt, "prelude_folder", lambda *args, **kwargs: None)
    else:
        builder.build(source.replace("twice", "twice_first"), cache=tmp_path)  # makes it wanted
    plain = builder.build(source, cache=tmp_path)
    monkeypatch.undo()
    twin = builder.build(source, cache=tmp_path, lines=lines.PARSED if prelude == "parsed"
                         else True)
    assert lines.has_line_tables(twin) and lines.same_code(plain, twin)
    # the prelude's headers named as in every copy of the course, precompiled in one or not
    debug = b"".join(lines._section(twin, s) for s in (b".debug_line", b".debug_str"))
    assert INCLUDE_IN_LINE_TABLES.encode() in debug and str(INCLUDE_DIR).encode() not in debug


def test_a_file_that_is_no_elf_library_has_no_sections(tmp_path):
    not_elf = tmp_path / "notes.txt"
    not_elf.write_text("no library")
    assert lines._section(not_elf, b".text") == b"" and not lines.has_line_tables(not_elf)


def test_builds_whose_code_differs_name_no_line(builds):
    plain, _, other = builds
    other_twin = builder.build(OTHER, lines=True)
    assert lines.place(plain, other_twin, 0) is None
