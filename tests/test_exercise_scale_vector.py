"""The scale_vector checker (helpers.exercises.scale_vector) of notebook 01: the solution passes,
the stub fails, and each known mistake fails with the hint written for it."""

import pytest

from kernel_sources import solution, variant

from helpers.backend import BACKEND, SourceModule
from helpers.exercises import scale_vector as checker


KERNEL = solution("scale_vector.cu")


# (name, source, words that the NOT YET line must contain)
WRONG = [
    ("no_bounds_guard",
     variant(KERNEL, ("    if (i < n) {\n        y[i] = alpha * x[i];\n    }", "    y[i] = alpha * x[i];")),
     ["elements past n were written", "add a bounds guard"]),
    ("guard_off_by_one",
     variant(KERNEL, ("i < n", "i <= n")),
     ["elements past n were written", "add a bounds guard"]),
    ("only_block_0",
     variant(KERNEL, ("blockIdx.x * blockDim.x + threadIdx.x", "threadIdx.x")),
     ["only the first block's elements", "blockIdx.x * blockDim.x"]),
    ("writes_nothing",
     variant(KERNEL, ("        y[i] = alpha * x[i];\n", "")),
     ["nothing was written"]),
    ("guard_too_strict",
     variant(KERNEL, ("i < n", "i < n - 1")),
     ["never written", "every i < n needs a thread"]),
    ("alpha_forgotten",
     variant(KERNEL, ("alpha * x[i]", "x[i]")),
     ["alpha is not applied", "y[i] = alpha * x[i]"]),
    ("alpha_added",
     variant(KERNEL, ("alpha * x[i]", "alpha + x[i]")),
     ["values wrong everywhere", "check alpha"]),
    ("index_wrong_stride",
     variant(KERNEL, ("blockIdx.x * blockDim.x + threadIdx.x", "blockIdx.x * 128 + threadIdx.x")),
     ["NOT YET"]),
]


def run_checker(source, capsys):
    """Compile a source string and run the checker on its kernel: (verdict, printed text)."""
    kernel = SourceModule(source).get_function("scale_vector")
    verdict = checker.check_scale_vector_kernel(kernel)
    return verdict, capsys.readouterr().out


def test_inline_solution_passes(capsys):
    verdict, out = run_checker(KERNEL, capsys)
    assert verdict is True, out
    assert out.startswith("PASS:"), out


def test_grid_stride_solution_passes(capsys):
    """A grid-stride loop is right too (more than the exercise asks)."""
    source = """
__global__ void scale_vector(const float *x, float *y, float alpha, int n)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        y[i] = alpha * x[i];
}
"""
    verdict, out = run_checker(source, capsys)
    assert verdict is True, out


def test_stub_fails_saying_only_block_0(capsys):
    assert checker.check_scale_vector() is False      # default path: the stub learners start from
    out = capsys.readouterr().out
    assert out.startswith("NOT YET:"), out
    assert "only the first block's elements" in out, out


@pytest.mark.parametrize("name, source, expected", WRONG, ids=[w[0] for w in WRONG])
def test_known_mistake_fails_with_its_hint(name, source, expected, capsys):
    verdict, out = run_checker(source, capsys)
    assert verdict is False, f"{name} passed the checker:\n{out}"
    assert out.startswith("NOT YET:"), out
    assert out.count("NOT YET:") == 1, out
    for words in expected:
        assert words in out, f"{name}: expected {words!r} in\n{out}"


@pytest.mark.skipif(BACKEND != "simulator",
                    reason="on a GPU an illegal address leaves the context unusable for the "
                           "rest of the test run")
def test_wild_write_is_reported_not_raised(capsys):
    """A write through a wild pointer must not escape as an exception. (The address is in the
    lowest pages, which are never mapped: a write far past an array could land in some other
    mapping instead.)"""
    source = variant(KERNEL, ("y[i] = alpha * x[i];",
                              "y[i] = alpha * x[i]; ((volatile float *)4096)[i] = 1.0f;"))
    verdict, out = run_checker(source, capsys)
    assert verdict is False, out
    assert out.startswith("NOT YET:"), out


def test_wrong_kernel_name_is_reported_not_raised(source_file, capsys):
    other = source_file("scale.cu", KERNEL.replace("scale_vector(", "scale("))
    assert checker.check_scale_vector(str(other)) is False
    out = capsys.readouterr().out
    assert "NOT YET:" in out and "no kernel called scale_vector" in out, out
