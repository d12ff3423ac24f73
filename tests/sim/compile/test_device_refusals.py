"""The refusals of device_rules.py (compile/device_refusals.py): each names the learner's line,
its record's fields (what was called, read or used, and by whom) and what to do instead.
tests/sim/compile/test_device_rules.py has nvcc's verdicts on the same mistakes."""

import pytest

from helpers.sim.compile import diagnosed
from helpers.sim.compiler import SourceModule
from helpers.sim.errors import CompileError

KERNEL = "__global__ void k(float *o, int n) {{ {} }}\n"


def test_the_record_names_the_function_its_caller_and_the_learner_s_line():
    text = "// a helper\nfloat twice(float x) { return 2 * x; }\n\n" + KERNEL.format("\n  o[0] = twice(o[0]);\n")
    with pytest.raises(CompileError) as caught:
        SourceModule(text)
    (record,) = caught.value.diagnostics
    assert (record.kind, record.names, record.line) == (diagnosed.HOST_FUNCTION, ("twice", "k"), 5)
    assert "kernel.cu:5: error: k calls twice(), a host function" in str(caught.value)


@pytest.mark.parametrize("text, names, line, said", [
    ("struct P {\n  float x;\n  float get() const { return x; }\n};\n"
     + KERNEL.format("\n  P p{1};\n  o[0] = p.get();\n"), ("P::get", "k"), 7,
     "k calls get(), a member function of P declared without __device__"),
    ("struct P {\n  float x;\n  P(float a) : x(a) {}\n};\n"
     + KERNEL.format("\n  P p(1);\n  o[0] = p.x;\n"), ("P::P", "k"), 6,
     "k constructs a P, whose constructor is declared without __device__"),
    ("const float w[2] = {1, 2};\n" + KERNEL.format("\n  o[0] = w[1];\n"), ("w", "k"), 3,
     "a const number (const int N = 8;) may stay, a const array may not"),
    ("// k\n__global__ float k(float *o) {\n  o[0] = 1;\n  return o[0];\n}\n", ("k", "float"), 2,
     "the kernel k is declared to return float (nvcc: a __global__ function must have a void"),
    (KERNEL.format("\n  try { o[0] = 1; } catch (...) { }\n"), ("try", "k"), 2,
     "k uses try (nvcc: device code does not support exception handling)"),
    ("// root of 2\n__constant__ float root2 = sqrtf(2.0f);\n" + KERNEL.format("o[0] = root2;"),
     ("root2", "sqrtf"), 2, "the initializer of root2 calls sqrtf() (nvcc: dynamic initialization"),
])
def test_each_refusal_is_named_at_the_learner_s_line_with_its_record(text, names,
                                                                                  line, said):
    with pytest.raises(CompileError) as caught:
        SourceModule(text)
    (record,) = caught.value.diagnostics
    assert (record.names, record.line) == (names, line)
    assert said in str(caught.value)


def test_the_standard_library_s_record_names_what_the_learner_wrote_at_its_line():
    text = ('#include <cmath>\nextern "C" __global__ void k(float *o, float x) {\n  o[0] = x;\n'
            "  o[1] = std::sinf(x);\n}\n")
    with pytest.raises(CompileError) as caught:
        SourceModule(text, no_extern_c=True)
    (record,) = caught.value.diagnostics
    assert (record.kind, record.names, record.line) == (diagnosed.HOST_LIBRARY, ("std::sinf", "k"), 4)


def test_a_host_function_under_an_asm_label_is_named_at_its_call_in_the_learners_file():
    """a21 (audit AV): creat declared under another name, called after an if's condition: the
    record has the learner's file and the line of the call, never no file."""
    text = ('#line 1 "label.cu"\nextern "C" int av_creat(const char *, unsigned) __asm__("creat");\n'
            + KERNEL.format('\n  if (n == 0) av_creat("/tmp/canary_AV4_21", 0644);\n'))
    with pytest.raises(CompileError) as caught:
        SourceModule(text)
    (record,) = caught.value.diagnostics
    assert (record.kind, record.file, record.line) == (diagnosed.HOST_FUNCTION, "label.cu", 3)


def test_a_kernel_with_launch_bounds_called_like_a_function_is_named_at_the_call():
    text = ("__global__ void __launch_bounds__(64) twice(float *o) { o[0] *= 2; }\n"
            + KERNEL.format("\n  if (n) twice(o);\n"))
    with pytest.raises(CompileError) as caught:
        SourceModule(text)
    (record,) = caught.value.diagnostics
    assert (record.kind, record.line) == (diagnosed.KERNEL_CALLED, 3)
