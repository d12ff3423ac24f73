"""The OpenCL sepia exercise's ports with vector loads and stores (vload3, vstore3), whose offset
counts 3-byte vectors, not bytes: each fails with the verdict that names its offset. Runs on the
platform helpers.ch12.opencl picks, as test_sepia_opencl.py does."""

import pytest

from kernel_sources import variant

from helpers.ch12 import opencl
from helpers.exercises.sepia_opencl import check_sepia_opencl_kernel

SOLUTION = (opencl.cl_src() / "solutions" / "sepia.cl").read_text()
READS = "float r = rgb[3 * i], g = rgb[3 * i + 1], b = rgb[3 * i + 2];"
STORES = ("    out[3 * i]     = convert_uchar_sat(r2 + 0.5f);   // round, and clamp to 255\n"
          "    out[3 * i + 1] = convert_uchar_sat(g2 + 0.5f);\n"
          "    out[3 * i + 2] = convert_uchar_sat(b2 + 0.5f);")


def vector_reads(offset):
    return (READS, f"float3 p = convert_float3(vload3({offset}, rgb));\n"
                   "    float r = p.x, g = p.y, b = p.z;")


def vector_stores(offset):
    return (STORES, f"    vstore3(convert_uchar3_sat((float3)(r2, g2, b2) + 0.5f), {offset}, out);")


# name: (replacements in the solution, pieces of the expected verdict)
WRONG = {
    # blind audit AOB (was 'Oclgrind reported 1148 accesses outside a buffer ... Hint: x =
    # get_global_id(0) (the column) ...', an index and a guard that were right): a vector load
    # whose offset counts bytes, vload3(3 * i, rgb), where vload3 counts 3-byte vectors
    "vload3_offset_counts_bytes": ([vector_reads("3 * i")],
                                   ("vload3(3 * i, rgb) (line 18) reads pixel 3 * i, bytes 9 * i "
                                    "to 9 * i + 2", "vload3's offset counts 3-byte vectors, not "
                                    "bytes", "Hint: vload3(i, rgb) reads rgb[3 * i] to rgb[3 * i "
                                    "+ 2]")),
    # blind audit AUC (was "only every third pixel (0, 3, 6, ...) was written, ...: the index was
    # multiplied by 3 twice: i = 3 * (y * width + x) is already the pixel's first byte ...", an
    # index the learner did not write, vload3 and vstore3 unsaid): both vector offsets count bytes
    "vload3_and_vstore3_offsets_count_bytes": (
        [vector_reads("3 * i"), vector_stores("3 * i")],
        ("only every third pixel (0, 3, 6, ...) was written, each right",
         "vload3(3 * i, rgb) (line 18) and vstore3(..., 3 * i, out) (line 24) take pixel 3 * i, "
         "bytes 9 * i to 9 * i + 2: their offset counts 3-byte vectors, not bytes",
         "Hint: pass the pixel's index: vload3(i, rgb) reads rgb[3 * i] to rgb[3 * i + 2], and "
         "vstore3(v, i, out) writes out[3 * i] to out[3 * i + 2]")),
}


@pytest.fixture(scope="module")
def ctx():
    platform, _ = opencl.choose_platform()
    return opencl.context(platform)


@pytest.mark.parametrize("name", sorted(WRONG))
def test_wrong_vector_port_fails_with_its_hint(ctx, name, capsys):
    replacements, expected = WRONG[name]
    source = variant(SOLUTION, *replacements)
    built = opencl.cl.Kernel(opencl.cl.Program(ctx, source).build(), "sepia")
    assert check_sepia_opencl_kernel(built).passed is False
    out = capsys.readouterr().out
    assert out.startswith("NOT YET: "), out
    for piece in expected:
        assert piece in out, out


def test_right_vector_offsets_pass(ctx, capsys):
    source = variant(SOLUTION, vector_reads("i"), vector_stores("i"))
    built = opencl.cl.Kernel(opencl.cl.Program(ctx, source).build(), "sepia")
    assert check_sepia_opencl_kernel(built).passed is True, capsys.readouterr().out
