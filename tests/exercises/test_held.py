"""A kernel that adds to its output instead of storing into it (``out[i] += v``) or reads the
output before writing it, in any exercise (``helpers.exercises.held``, through the runner): its
output keeps its poison where it added (NaN, a float's -3e38, an int's 0xDEADBEEF plus a little)
or, launched with several poisons (bytes), comes back different each time, which read as "never
written" or as wrong values; the runner launches it again with the output holding 0, 1000, then
2000 (0, 100, 200 for bytes), and names the mistake."""

import dataclasses

import numpy as np
import pytest

from kernel_sources import solution, stable_file, variant

from helpers.exercises import held
from helpers.exercises.common import Output, Result
from helpers.exercises import (backproject_range, block_mean, box_blur, column_means,
                               escape_steps, gradient, gray_coalesced, julia, mandelbrot_rows,
                               matmul_bt, matmul_wide, multiply_vectors, reverse_blocks,
                               scale_vector, sepia, sepia_x16, wmma_gemm, wmma_partial_k)

ADDS = "the kernel adds to {} instead of storing ({}[...] += ...)"
READS = "the kernel reads {} before writing it"
LOADED = "the accumulator was loaded from C's old contents"
MEAN = "    means[col] = sum / rows;\n"
SEPIA = ("out[3 * i]     =", "out[3 * i]     +="), ("out[3 * i + 1] =", "out[3 * i + 1] +="), \
    ("out[3 * i + 2] =", "out[3 * i + 2] +=")
FILL = "wmma::fill_fragment(c, 0.0f);"
LOAD_C = "wmma::load_matrix_sync(c, C + tile_row * 16 * N + tile_col * 16, N, wmma::mem_row_major);"


def _counted_in_iters(indent):
    """A loop that counts each step into iters itself (mandelbrot_rows, julia)."""
    return ((f"{indent}    n++;", f"{indent}    n++;\n{indent}    iters[y * width + x]++;"),
            (f"{indent}iters[y * width + x] = n;\n", ""))


# name: (checker, solution file, replacements in it, the output's name, what the verdict says)
VARIANTS = {
    "multiply_vectors": (multiply_vectors, "multiply_vectors.cu",
                         [("out[i] = a[i] * b[i];", "out[i] += a[i] * b[i];")], "out", ADDS),
    "matmul_bt": (matmul_bt, "matmul_bt.cu",
                  [("C[row * N + col] = sum;", "C[row * N + col] += sum;")], "C", ADDS),
    "gradient": (gradient, "gradient.cu", [("out[i] = (s[j + 1]", "out[i] += (s[j + 1]")],
                 "out", ADDS),
    "box_blur": (box_blur, "box_blur.cu",
                 [("out[y * width + x] = sum", "out[y * width + x] += sum")], "out", ADDS),
    "reverse_blocks": (reverse_blocks, "reverse_blocks.cu",
                       [("out[start + j] = s", "out[start + j] += s")], "out", ADDS),
    "multiply_vectors_halved": (multiply_vectors, "multiply_vectors.cu",
                                [("out[i] = a[i] * b[i];",
                                  "out[i] = 0.5f * out[i] + a[i] * b[i];")], "out", READS),
    # outputs launched with NaN and then -7 (the exercise's own second poison): "values wrong
    # everywhere", "means[0] = nan", "C holds NaN: the products read elements of Bs ..."
    "scale_vector": (scale_vector, "scale_vector.cu",
                     [("y[i] = alpha * x[i];", "y[i] += alpha * x[i];")], "y", ADDS),
    "column_means": (column_means, "column_means.cu",
                     [("means[col] = sum / rows;", "means[col] += sum / rows;")], "means", ADDS),
    "column_means_summed_into_means": (
        column_means, "column_means.cu",
        [("sum += m[r * cols + col];", "means[col] += m[r * cols + col] / rows;"), (MEAN, "")],
        "means", ADDS),
    "matmul_wide": (matmul_wide, "matmul_wide.cu",
                    [("C[row * N + col] = sum;", "C[row * N + col] += sum;")], "C", ADDS),
    # a float output poisoned with -3e38, which a coordinate added to leaves as it was
    "backproject_range": (backproject_range, "backproject_range.cu",
                          [("xyz[i] = (u", "xyz[i] += (u"), ("xyz[n + i] = (v", "xyz[n + i] += (v"),
                           ("xyz[2 * n + i] = z;", "xyz[2 * n + i] += z;")], "xyz", ADDS),
    # int outputs: 0xDEADBEEF plus the count ("100% of the counts differ from NumPy's")
    "escape_steps": (escape_steps, "escape_steps.cu", [("steps[i] = k;", "steps[i] += k;")],
                     "steps", ADDS),
    "escape_steps_counted_in_steps": (
        escape_steps, "escape_steps.cu",
        [("    steps[i] = k;\n", ""), ("k++;", "k++;\n        steps[i]++;")], "steps", ADDS),
    "mandelbrot_rows": (mandelbrot_rows, "mandelbrot_rows.cu",
                        [("iters[y * width + x] = n;", "iters[y * width + x] += n;")], "iters",
                        ADDS),
    "mandelbrot_rows_counted_in_iters": (mandelbrot_rows, "mandelbrot_rows.cu",
                                         _counted_in_iters("        "), "iters", ADDS),
    "julia": (julia, "julia.cu", [("iters[y * width + x] = n;", "iters[y * width + x] += n;")],
              "iters", ADDS),
    "julia_counted_in_iters": (julia, "julia.cu", _counted_in_iters("    "), "iters", ADDS),
    # byte outputs, launched with two poisons: "two runs ... wrote different values", "315 of
    # 315 grey values are wrong"
    "gray_coalesced": (gray_coalesced, "gray_coalesced.cu",
                       [("gray[i] = bt601", "gray[i] += bt601")], "gray", ADDS),
    "sepia": (sepia, "sepia.cu", SEPIA, "out", ADDS),
    "sepia_x16": (sepia_x16, "sepia_x16.cu",
                  [(f"    {old} sepia", f"    {new} sepia") for old, new in SEPIA], "out", ADDS),
    # a WMMA accumulator loaded from C where it is set to 0: "C was never written", or the
    # advice to store with = that store_matrix_sync cannot take
    "wmma_gemm": (wmma_gemm, "wmma_gemm.cu", [(FILL, LOAD_C)], "C", LOADED),
    "wmma_partial_k": (wmma_partial_k, "wmma_partial_k.cu", [(FILL, LOAD_C)], "C", LOADED),
}


@pytest.mark.parametrize("name", sorted(VARIANTS))
def test_a_kernel_that_adds_to_its_output_is_named(name, capsys):
    checker, file, replacements, output, says = VARIANTS[name]
    path = stable_file(f"held_{name}.cu", variant(solution(file), *replacements))
    verdict = checker.EXERCISE.check_file(str(path))
    out = capsys.readouterr().out
    start = "NOT YET: " + says.format(output, output)
    assert verdict.passed is False and out.startswith(start), out
    held = "100" if checker in (gray_coalesced, sepia, sepia_x16) else "1000"
    assert f"when it held {held} (" in verdict.problem and "never written" not in out, out
    if says is ADDS:
        assert verdict.hint.startswith(f"store with =: {output}[...] = value"), out
    if says is LOADED:
        assert "wmma::fill_fragment(c, 0.0f)" in verdict.hint and "+=" not in out, out


def test_block_mean_that_adds_to_y_is_named_apart_from_the_planted_sum(capsys):
    """The init check's read of y is not planted bug 3's of means (whose hint is about means)."""
    source = variant(solution("block_mean.cu"), ("y[i] = x[i] - means", "y[i] += x[i] - means"))
    path = stable_file("held_block_mean.cu", source)
    verdict = block_mean.EXERCISE.check_file(str(path))
    out = capsys.readouterr().out
    assert out.startswith("NOT YET: the kernel reads y before writing it (y[i] += ..."), out
    assert "y[0] is read before anything wrote it" in verdict.problem, out
    assert verdict.hint.startswith("store with =: y[i] = x[i] - means[blockIdx.x]"), out


def test_an_output_that_moves_unevenly_with_what_it_held_races_and_is_not_named():
    """Tiles stored over each other (wmma_partial_k's store with a leading dimension of 16): the
    element two warps store varies from launch to launch, not in the fills' equal steps, which
    is no read of what C held."""
    low, high, higher = (np.array([1, v, 3], np.float32) for v in (2, 5, 7))
    result = Result(low, np.zeros(0, int), np.zeros(3, bool), runs=(low, high, higher))
    assert list(held.mistakes(result, "C", Output(3))) == []
    steady = dataclasses.replace(result, runs=(low, high, 2 * high - low))
    assert next(held.mistakes(steady, "C", Output(3)))[0].startswith(READS.format("C"))
