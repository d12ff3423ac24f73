"""The sepia exercise at 16 pixels a thread (notebook 04): the solution passes and is FAST, the
stub and known-wrong kernels fail, each with the hint that names its mistake; and a kernel that
is right but moves its bytes one at a time passes but is not FAST: on a GPU by the bandwidth
target, on the simulator by its trace (bytes a thread's load or store carries). The wrong
kernels are variants of the shipped solution, all compiled as one module."""

import re
import warnings

import numpy as np
import pytest

from kernel_sources import compile_variants, simulator_only, stable_file, variant
from sepia_x16_variants import KERNEL, SLOW, WRONG

from helpers.backend import BACKEND, gpuarray
from helpers.exercises.sepia_x16 import (SAMPLE, check_sepia_x16, check_sepia_x16_kernel,
                                         large_image_problem)

pytestmark = pytest.mark.gpu_timing  # on a GPU the checker measures a bandwidth (tests/conftest.py)

AUDIT_3B = ("src_indexed_at_3t", "results_into_w", "w_by_component", "w_high_to_low",
            "stores_take_res_q")
SIGNED = ("channels_read_as_char", "channels_read_as_char_saturated")
MODELLED = ("loads_from_uint4_4t", "a_loaded_from_src_1", "word_b_x_twice", "pixel_loop_from_1",
            "blue_read_one_byte_on", "green_stored_at_3p")
SIMULATOR_ONLY = {
    **dict.fromkeys(("group_t_at_uint4_48t", "stored_at_uint4_16t"),
                    "an access far past rgb or out: a GPU may fault and leave the context "
                    "unusable"),
    "src_indexed_at_3t": "uint4 loads up to twice as far as the image: past its end on a GPU",
    "res_not_zeroed": "res[] uninitialised: what a GPU leaves in it is garbage",
    "pixels_read_4_bytes_apart": "pixels 12 to 15 read w[12] to w[15], past a local array: "
                                 "garbage on a GPU",
    "blue_read_one_byte_on": "byte 48 of a group is w[12], past the array: garbage on a GPU",
    "bytes_read_as_words": "w[12] and beyond, past a local array: what a GPU reads there is "
                           "garbage",
    "words_converted_from_float4": "floats out of an integer's range converted: a GPU saturates "
                                   "them, the simulator stops",
    **dict.fromkeys(("group_t_at_byte_3t", "stored_at_byte_3t"),
                    "uint4 loads or stores at addresses not 16-byte aligned: a GPU faults and "
                    "leaves the context unusable")}

HELPERS = re.compile(r"\b(byte_of|set_byte|sepia_channel|sepia_pixel)\b")


@pytest.fixture(scope="module")
def kernels():
    sources = {"solution": KERNEL, **{name: variant(KERNEL, *r) for name, r in SLOW.items()},
               **{name: variant(KERNEL, *r) for name, (r, _) in WRONG.items()}}
    # Five modules (audit 3's variants in a second, audit 3b's in a third, stored_at_byte_3t in a
    # fourth, blind audit K12's in a fifth: with any in the first, g++ gave group_t_at_byte_3t's
    # loads an aligned SSE instruction, which the CPU refuses as a misaligned address, as a GPU
    # does, where the checker models its results), each variant's device functions named apart.
    # res_not_zeroed reads res[] before writing it, which the simulator's compiler says
    group = lambda name: ((name in MODELLED) + 2 * (name in AUDIT_3B)  # noqa: E731
                          + 3 * (name == "stored_at_byte_3t") + 4 * (name in SIGNED))
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", "The simulator's C\\+\\+ compiler succeeded", UserWarning)
        return {name: kernel for module in range(5)
                for name, kernel in compile_variants("sepia_x16", {
                    name: HELPERS.sub(rf"\1__{name}", text) for name, text in sources.items()
                    if group(name) == module}).items()}


def test_the_stub_fails_as_one_pixel_a_thread(capsys):
    assert not check_sepia_x16()
    out = capsys.readouterr().out
    assert out.startswith("NOT YET: ") and "each thread converted one pixel" in out, out


def test_the_solution_is_fast(kernels, capsys):
    verdict = check_sepia_x16_kernel(kernels["solution"])
    assert verdict.level == "FAST", capsys.readouterr().out
    if BACKEND == "simulator":
        assert "loads carried 16.0 bytes a thread and your stores 16.0" in verdict.problem
    else:
        assert "of a device-to-device copy's" in verdict.problem


@pytest.mark.parametrize("name", simulator_only(sorted(WRONG), SIMULATOR_ONLY))
def test_wrong_kernel_fails_with_its_hint(name, kernels, capsys):
    assert check_sepia_x16_kernel(kernels[name]).passed is False
    out = capsys.readouterr().out
    assert out.startswith("NOT YET: ") and WRONG[name][1] in out, out


def test_a_tail_loop_started_late_is_told_where_to_start(kernels, capsys):
    """blind audit TXB-sepia_x16-1: the hint names the tail loop's start, not the groups'."""
    verdict = check_sepia_x16_kernel(kernels["tail_loop_from_16_groups_plus_1"])
    assert verdict.hint == ("start the tail's loop at its first pixel: for (int i = 16 * groups; "
                            "i < n; i++)"), verdict


@pytest.mark.skipif(BACKEND != "simulator", reason="a GPU saturates the floats' conversions")
def test_bytes_converted_from_float_values_are_told_to_load_uint4(kernels):
    """blind audit AU: the hint loads the bytes as uint4, not the crash's range or the image's."""
    verdict = check_sepia_x16_kernel(kernels["words_converted_from_float4"])
    assert "which is w[0], the group's bytes 0 to 3 read as a float" in verdict.problem, verdict
    assert verdict.hint.startswith("the image's bytes are not floats: load them as three uint4 "
                                   "and list their words as they are"), verdict


@pytest.mark.parametrize("name", sorted(SLOW))
def test_a_right_kernel_that_moves_bytes_one_at_a_time_passes_but_is_not_fast(name, kernels,
                                                                              capsys):
    verdict = check_sepia_x16_kernel(kernels[name])
    out = capsys.readouterr().out
    assert verdict.passed, out
    if BACKEND == "simulator":
        assert (verdict.level, "not yet FAST" in out) == ("PASS", True), out
        assert "where uint4 carries 16" in verdict.slow and "uint4" in verdict.hint, out
    elif name == "bytewise":  # byte stores alone may reach the target on a GPU: not asked
        assert verdict.level == "PASS" and "where FAST takes 50%" in verdict.slow, out


# Pixels whose exact sepia sum is a tie, x.5, that float weights round down (0.393f * 32 +
# 0.769f * 95 + 0.189f * 121 is 108.49999): on an H200 these made the solution fail the large
# image when it was compared exactly.
TIES = [(32, 95, 121), (70, 131, 126), (62, 101, 242), (150, 198, 192)]


def large_image(pixels):
    """A flat random image with the tie pixels at its start and its end."""
    rgb = np.random.default_rng(5).integers(0, 256, (pixels, 3), dtype=np.uint8)
    rgb[3:3 + len(TIES)] = rgb[-7 - len(TIES):-7] = TIES
    return rgb.ravel()


@pytest.mark.parametrize("pixels", [2 * SAMPLE + 16 * 1000 + 11, SAMPLE // 2 + 3])
def test_the_large_image_is_compared_with_the_rounding_slack_at_both_ends(kernels, pixels):
    """The large image's check (on a GPU, before the timing) with the small cases' rule: ties
    may round either way, every other value must be NumPy's; the first and the last SAMPLE
    pixels are compared, so a mistake at the end of the image is seen too."""
    rgb = large_image(pixels)
    rgb_gpu = gpuarray.to_gpu(rgb)
    problems = {name: large_image_problem(kernels[name], rgb, rgb_gpu,
                                          gpuarray.to_gpu(np.full(rgb.size, 0xEF, np.uint8)))
                for name in ("solution", "no_tail")}
    assert problems["solution"] is None
    problem = problems["no_tail"]
    if pixels % 16:
        assert problem and f"wrong values (the first at pixel {16 * (pixels // 16):,}" in problem


# A pixel loop past 16 (blind audit H24: was 'the kernel crashed ... an access the CPU refused
# without saying its address ...', then the return address overwritten): thread 0's set_byte(res,
# 48, ...) is the first write past res. Compiled on its own, as the learner's file is: where the
# overrun lands on the stack depends on the code around it. A GPU reads and writes there silently.
@pytest.mark.skipif(BACKEND != "simulator", reason="w[] and res[] indexed past their 12 words")
def test_a_pixel_loop_past_16_is_named_a_local_array_overrun(capsys):
    path = stable_file("sepia_x16_pixel_loop_over_48.cu", variant(
        KERNEL, ("for (int p = 0; p < 16; p++) {", "for (int p = 0; p < 48; p++) {")))
    assert check_sepia_x16(path).passed is False
    out = capsys.readouterr().out
    assert "thread (0, 0, 0) of block (0, 0, 0) wrote past the end of a local array at " \
        "sepia_x16_pixel_loop_over_48.cu:21, through a pointer into it" in out, out
    assert "Hint: w and res hold 12 words, the 48 bytes of one group's 16 pixels: the pixel loop " \
        "stops at 16, for (int p = 0; p < 16; p++)" in out, out


# The group's bytes addressed by the pixel's number in the image, 3 * (16t + p) (blind audit
# O12): for t > 0, w[] and res[] used past their end through byte_of's and set_byte's pointers,
# which GCC's object-size check follows once they are inlined (the first write past res stops the
# launch); without it the writes ran over the thread's threadIdx (was 'the kernel crashed ...
# thread (4294947041, 1230924490, 4289650682): a read of address 0x8eb6feb56c5fee8e ...').
@pytest.mark.skipif(BACKEND != "simulator", reason="w[] and res[] indexed past their 12 words")
def test_bytes_of_the_image_pixel_number_are_named_a_local_array_overrun(capsys):
    path = stable_file("sepia_x16_bytes_of_16t_plus_p.cu", variant(
        KERNEL, ("            float r = byte_of(w, 3 * p), g = byte_of(w, 3 * p + 1), "
                 "bl = byte_of(w, 3 * p + 2);\n",
                 "            int q = 16 * t + p;\n            float r = byte_of(w, 3 * q), "
                 "g = byte_of(w, 3 * q + 1), bl = byte_of(w, 3 * q + 2);\n"),
        *[(f"set_byte(res, 3 * p{c},", f"set_byte(res, 3 * q{c},") for c in ("", " + 1", " + 2")]))
    assert check_sepia_x16(path).passed is False
    out = capsys.readouterr().out
    assert "thread (1, 0, 0) of block (0, 0, 0) wrote past the end of a local array at " \
        "sepia_x16_bytes_of_16t_plus_p.cu:21, through a pointer into it" in out, out
    assert "Hint: thread 1 went past w's or res's 12 words where thread 0 did not" in out, out
    assert "p = 0 to 15 its place in the group, not its number in the image, 16t + p" in out, out
