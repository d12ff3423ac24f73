"""The scale_vector checker (helpers.exercises.scale_vector) of notebook 01: the solution passes,
the stub fails, and each known mistake fails with the hint written for it. The solution and all
its wrong variants are compiled as one module (and, on PyCUDA, once more on the simulator, whose
race check the checker uses); the variants are in scale_vector_variants.py."""

import pytest

from kernel_sources import (assert_mistake_named, compile_variant_pairs, simulator_only, stable_file,
                            variant)
from scale_vector_variants import ENDLESS, GRID_STRIDE, KERNEL, SIMULATOR_ONLY, WILD, WRONG

from helpers.backend import BACKEND
from helpers.exercises import scale_vector as checker


@pytest.fixture(scope="module")
def kernels():
    sources = {"solution": KERNEL, "grid_stride": GRID_STRIDE, **{w[0]: w[1] for w in WRONG}}
    if BACKEND == "simulator":
        sources["wild"] = WILD
        sources["endless"] = ENDLESS
    return compile_variant_pairs("scale_vector", sources)


def run_checker(kernel, capsys):
    """Run the checker on a compiled kernel (and the simulator's): (verdict, printed text)."""
    verdict = checker.check_scale_vector_kernel(*kernel)
    return verdict, capsys.readouterr().out


def test_inline_solution_passes(kernels, capsys):
    verdict, out = run_checker(kernels["solution"], capsys)
    assert verdict.passed is True, out
    assert out.startswith("PASS:") and out.strip() == str(verdict), out


def test_grid_stride_solution_passes(kernels, capsys):
    """A grid-stride loop is right too (more than the exercise asks)."""
    verdict, out = run_checker(kernels["grid_stride"], capsys)
    assert verdict.passed is True, out


def test_stub_fails_saying_only_block_0(capsys):
    verdict = checker.check_scale_vector()      # default path: the stub learners start from
    out = capsys.readouterr().out
    assert not verdict and out.startswith("NOT YET:"), out
    assert "only the first block's elements" in out, out


@pytest.mark.parametrize("name, source, expected", simulator_only(WRONG, SIMULATOR_ONLY))
def test_known_mistake_fails_with_its_hint(name, source, expected, kernels, capsys):
    verdict, out = run_checker(kernels[name], capsys)
    assert_mistake_named(verdict, out, name, expected)
    assert out.count("NOT YET:") == 1, out


@pytest.mark.skipif(BACKEND != "simulator",
                    reason="on a GPU an illegal address leaves the context unusable for the "
                           "rest of the test run")
def test_wild_write_is_reported_not_raised(kernels, capsys):
    """A write through a wild pointer must not escape as an exception."""
    verdict, out = run_checker(kernels["wild"], capsys)
    assert verdict.passed is False, out
    assert out.startswith("NOT YET:"), out


@pytest.mark.skipif(BACKEND != "simulator", reason="a GPU kernel cannot be stopped from Python")
def test_an_endless_loop_is_a_verdict_on_the_simulator(kernels, capsys, monkeypatch):
    from helpers.exercises import common

    monkeypatch.setattr(common, "LAUNCH_TIME_LIMIT", 0.5)
    verdict, out = run_checker(kernels["endless"], capsys)
    assert not verdict, out
    assert "after 0.5 s, its time limit" in verdict.problem, out
    assert "an endless loop?" in verdict.problem, out


# blind audit TAAB-scale_vector-1: while where the guard's if belongs, so every thread with an
# element stores it again and again (was 'the kernel did not finish: the simulator stopped kernel
# 'scale_vector' after 10 s ... Hint: a loop whose condition never becomes false: check that each
# loop's variable moves ...', the while not named). A GPU kernel that never ends cannot be stopped
# from Python: simulator only.
@pytest.mark.skipif(BACKEND != "simulator", reason="a GPU kernel cannot be stopped from Python")
def test_a_while_for_the_guard_s_if_is_named(capsys, monkeypatch):
    from helpers.exercises import common

    monkeypatch.setattr(common, "LAUNCH_TIME_LIMIT", 0.5)
    endless = compile_variant_pairs("scale_vector", {"while_for_if": variant(
        KERNEL, ("if (i < n) {", "while (i < n) {"))})["while_for_if"]
    verdict = checker.check_scale_vector_kernel(*endless)
    assert verdict.problem.startswith("the kernel never ended: while (i < n) repeats its body for "
                                      "as long as i < n"), verdict
    assert "nothing in it changes i" in verdict.problem, verdict
    assert "y[0] = alpha * x[0] = " in verdict.problem, verdict
    assert verdict.hint.startswith("the bounds guard is a test, done once: if (i < n)"), verdict


def test_wrong_kernel_name_is_reported_not_raised(capsys):
    other = stable_file("scale.cu", KERNEL.replace("scale_vector(", "scale("))
    assert not checker.check_scale_vector(other)
    out = capsys.readouterr().out
    assert "NOT YET:" in out and "no kernel called scale_vector" in out, out


@pytest.mark.skipif(BACKEND != "simulator", reason="nvcc may refuse so large an array itself")
def test_a_device_array_too_big_to_load_is_a_verdict_not_a_traceback(capsys):
    """The module's load fails (drv.MemoryError, naming the array): the checker says so and what
    to do, where it raised through to the learner (audit AV, a25)."""
    huge = stable_file("scale_vector_huge.cu", "__device__ char big[1ULL << 47];\n" + KERNEL)
    verdict = checker.check_scale_vector(huge)
    out = capsys.readouterr().out
    assert not verdict and out.startswith("NOT YET:"), out
    assert "__device__ array 'big' takes 140,737,488,355,328 bytes" in verdict.problem, verdict
    assert verdict.hint.startswith("make the __device__ arrays smaller"), verdict


def test_a_double_parameter_is_named_on_both_backends(capsys):
    """PyCUDA would pass the float32 alpha to a double parameter without a word."""
    path = stable_file("scale_vector_double.cu",
                       variant(KERNEL, ("float alpha", "double alpha")))
    verdict = checker.check_scale_vector(path)
    out = capsys.readouterr().out
    assert not verdict
    assert "parameter 3 of scale_vector, alpha, is declared 'double'" in verdict.problem, out
    assert "the checker passes 'float'" in verdict.problem, out
    assert "float alpha, int n" in verdict.hint, out
    assert out.strip().endswith(str(verdict)), out


def test_a_second_element_past_n_that_reads_no_further_than_x_s_room_is_named(kernels, capsys,
                                                                              monkeypatch):
    """Blocks of 32: x[i + blockDim.x] stays within the room after x, and no crash comes first."""
    monkeypatch.setattr(checker.EXERCISE, "cases", [(1000, 32, 0)])
    verdict, out = run_checker(kernels["second_element_unguarded"], capsys)
    assert verdict.problem.startswith("y[1000] to y[1031] were written, past y[n - 1]: each "
                                      "thread also stores a second element"), out
    assert verdict.hint.startswith("remove the second store"), out


def test_a_template_instantiated_with_int_is_named(capsys):
    """Blind audit AU: scaled<int>(alpha, x[i]), a __device__ template (its kernel extern "C"), cuts
    both alpha and x[i] to ints (was 'values wrong everywhere ... Hint: check alpha')."""
    path = stable_file("scale_vector_template_int.cu", """
template <typename T>
__device__ T scaled(T a, T v) { return a * v; }

extern "C" __global__ void scale_vector(const float *x, float *y, float alpha, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = scaled<int>(alpha, x[i]);
}
""")
    verdict = checker.check_scale_vector(path)
    out = capsys.readouterr().out
    assert verdict.problem.startswith("every element of y is -2 * x[i] with x[i]'s fraction "
                                      "dropped"), out
    assert "alpha and x[i] were both cut to whole numbers" in verdict.problem, out
    assert "y[i] = scaled<int>(alpha, x[i]); at line 9" in verdict.problem, out
    assert verdict.hint.startswith("keep alpha and x[i] floats: y[i] = alpha * x[i]"), out


# What the learner's .cu may not say (compile/learner_text.py, device_calls.py), audit AV: each
# is a verdict that names it, and nothing of it ran.
@pytest.mark.skipif(BACKEND != "simulator", reason="the simulator's words (nvcc refuses in its own)")
@pytest.mark.parametrize("before, said", [
    ("__attribute__((constructor)) static void at_load(void) { __builtin_trap(); }\n",
     "line 1 has the constructor attribute, which runs code when the module loads"),
    ("#define WHEN cons##tructor\n#define AT(w) __attribute__((w))\n#define RUN(w) AT(w)\n"
     "RUN(WHEN) static void at_load(void) { __builtin_trap(); }\n",
     "your file runs code when the module loads"),
    ('#include "/etc/hostname"\n', 'line 1: #include "/etc/hostname" reads a file outside'),
    ('#line 1 "/cuda-sim-include/sim_extra.h"\n', "names a file of the simulator's own"),
    ("__device__ void hold() { sim::hold_cancel(sim::worker); }\n", "line 1 uses sim::"),
    ("__device__ void clobber() { stdout = (FILE *)(void *)16; }\n", "line 1 uses stdout"),
    ('__device__ __attribute__((section(".text.av"))) void f() {}\n',
     "line 1 gives a section attribute"),
], ids=["constructor", "constructor_by_macros", "include", "line", "runtime", "stdout", "section"])
def test_what_runs_outside_a_kernel_is_a_verdict_that_names_it(before, said, capsys):
    path = stable_file("outside.cu", before + KERNEL)
    verdict = checker.check_scale_vector(path)
    assert not verdict and said in verdict.problem, verdict.problem
