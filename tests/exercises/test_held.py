"""A kernel that adds to its output instead of storing into it (``out[i] += v``) or reads the
output before writing it, in any exercise (``helpers.exercises.held``, through the runner): its
float output, poisoned with NaN, stays NaN where it added, which read as "never written"; the
runner launches it again with the output holding 0, then 1000, and names the mistake."""

import pytest

from kernel_sources import solution, stable_file, variant

from helpers.exercises import box_blur, gradient, matmul_bt, multiply_vectors, reverse_blocks

ADDS = "the kernel adds to {} instead of storing ({}[...] += ...)"
READS = "the kernel reads {} before writing it"

# name: (checker, solution file, replacement in it, the output's name, what the verdict says)
VARIANTS = {
    "multiply_vectors": (multiply_vectors, "multiply_vectors.cu",
                         ("out[i] = a[i] * b[i];", "out[i] += a[i] * b[i];"), "out", ADDS),
    "matmul_bt": (matmul_bt, "matmul_bt.cu",
                  ("C[row * N + col] = sum;", "C[row * N + col] += sum;"), "C", ADDS),
    "gradient": (gradient, "gradient.cu", ("out[i] = (s[j + 1]", "out[i] += (s[j + 1]"), "out",
                 ADDS),
    "box_blur": (box_blur, "box_blur.cu", ("out[y * width + x] = sum", "out[y * width + x] += sum"),
                 "out", ADDS),
    "reverse_blocks": (reverse_blocks, "reverse_blocks.cu",
                       ("out[start + j] = s", "out[start + j] += s"), "out", ADDS),
    "multiply_vectors_halved": (multiply_vectors, "multiply_vectors.cu",
                                ("out[i] = a[i] * b[i];", "out[i] = 0.5f * out[i] + a[i] * b[i];"),
                                "out", READS),
}


@pytest.mark.parametrize("name", sorted(VARIANTS))
def test_a_kernel_that_adds_to_its_output_is_named(name, capsys):
    checker, file, replacement, output, says = VARIANTS[name]
    path = stable_file(f"held_{name}.cu", variant(solution(file), replacement))
    verdict = checker.EXERCISE.check_file(str(path))
    out = capsys.readouterr().out
    assert verdict.passed is False and out.startswith("NOT YET: " + says.format(output, output)), out
    assert "when it held 1000" in verdict.problem and "never written" not in out, out
    if says is ADDS:
        assert verdict.hint.startswith(f"store with =: {output}[...] = value"), out
