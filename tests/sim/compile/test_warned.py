"""What g++ warned about the learner's code, as records (helpers/sim/compile/warned.py): read
from its output (made up here where the point is how it is read), kept in the library and read
back, on the module and on each kernel; and said at the learner's line
(messages.learner_warnings) where g++ places the read in the prelude's header."""

import re
import warnings

import pytest

from helpers.sim.compile import messages, toolchain, warned
from helpers.sim.compile.source import INCLUDE_DIR
from helpers.sim.compiler import SourceModule

WARP_H = f"{INCLUDE_DIR}/sim_warp.h"
BALLOT_LINE = next(n for n, text in enumerate(open(WARP_H), 1) if "#define __ballot_sync(" in text)
# what g++ 12 says of a vote set under an if (a read inside the prelude's __ballot_sync macro)
IN_THE_MACRO = (
    f"In file included from {INCLUDE_DIR}/cuda_sim.h:182:\n"
    f"{WARP_H}: In function ‘void vote(const float*, unsigned int*, int)’:\n"
    f"{WARP_H}:{BALLOT_LINE}:39: warning: ‘above’ may be used uninitialized [-Wmaybe-uninitialized]\n"
    f"   {BALLOT_LINE} | #define __ballot_sync(m, p) __sim_vote(__SIM_SITE, (m), (p), __sim_ballot)\n"
    "      |                                       ^\n"
    "vote.cu:4:10: note: ‘above’ was declared here\n")
# a read in a __device__ function inlined into the kernel, and the same in the function itself
INLINED = (
    "In function ‘float twice(float)’,\n"
    "    inlined from ‘void k(const float*, float*)’ at dev.cu:7:12:\n"
    "dev.cu:1:46: warning: ‘v’ may be used uninitialized [-Wmaybe-uninitialized]\n"
    "dev.cu: In function ‘void k(const float*, float*)’:\n"
    "dev.cu:5:11: note: ‘v’ was declared here\n"
    "dev.cu: In function ‘float twice(float)’:\n"
    "dev.cu:1:46: warning: ‘v’ may be used uninitialized [-Wmaybe-uninitialized]\n"
    "dev.cu:5:11: note: ‘v’ was declared here\n")

VOTE = ('#line 1 "vote.cu"\n'
        "__global__ void vote(const float *x, unsigned int *counts, int n) {\n"
        "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
        "    bool above;\n"
        "    if (i < n) above = x[i] > 0.5f;\n"
        "    unsigned int votes = __ballot_sync(0xffffffff, above);\n"
        "    if (threadIdx.x == 0) counts[0] = __popc(votes);\n"
        "}\n")
RIGHT = ("__global__ void right(const float *x, unsigned int *counts, int n) {\n"
         "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
         "    bool above = i < n && x[i] > 0.5f;\n"
         "    unsigned int votes = __ballot_sync(0xffffffff, above);\n"
         "    if (threadIdx.x == 0) counts[0] = __popc(votes);\n"
         "}\n")


def test_a_read_inside_a_macro_of_the_prelude_is_the_learners_at_the_declaration():
    assert warned.uninitialised(IN_THE_MACRO) == (warned.CompilerWarning(
        "uninitialised", "above", "vote.cu", 4, 4, "__ballot_sync", False, ("vote",)),)


def test_a_warning_about_the_prelude_alone_has_no_record():
    prelude_only = (f"{WARP_H}:12:3: warning: ‘t’ may be used uninitialized [-Wmaybe-uninitialized]\n"
                    f"{WARP_H}:10:9: note: ‘t’ was declared here\n")
    assert warned.uninitialised(prelude_only) == ()


def test_a_read_in_an_inlined_function_is_one_record_that_names_both_functions():
    assert warned.uninitialised(INLINED) == (warned.CompilerWarning(
        "uninitialised", "v", "dev.cu", 1, 5, None, False, ("twice", "k")),)


def test_a_read_in_a_library_header_is_placed_at_the_declaration_too():
    in_std = ("In function ‘const _Tp& std::min(const _Tp&, const _Tp&) [with _Tp = float]’,\n"
              "    inlined from ‘void k(const float*, float*, int)’ at low.cu:5:20:\n"
              "/usr/include/c++/12/bits/stl_algobase.h:238:7: warning: ‘a’ may be used "
              "uninitialized [-Wmaybe-uninitialized]\n"
              "low.cu: In function ‘void k(const float*, float*, int)’:\n"
              "low.cu:3:11: note: ‘a’ was declared here\n")
    assert warned.uninitialised(in_std) == (warned.CompilerWarning(
        "uninitialised", "a", "low.cu", 3, 3, None, False, ("min", "k")),)


def test_the_read_in_the_macro_is_said_at_the_learners_line_with_the_variables_name():
    said = messages.learner_warnings(IN_THE_MACRO)
    assert said.startswith(messages.UNINITIALISED)
    assert said.splitlines()[1] == (
        "vote.cu:4: warning: ‘above’ may be used uninitialized: __ballot_sync reads it, and on "
        "some path nothing was stored in it since its declaration here [-Wmaybe-uninitialized]")
    assert WARP_H not in said


# what g++ 13 says of it: the read placed in the function the macro calls, which names no macro
IN_THE_FUNCTION = (
    f"In file included from {INCLUDE_DIR}/cuda_sim.h:182:\n"
    f"In function ‘unsigned int __sim_vote(const char*, unsigned int, int, int)’,\n"
    "    inlined from ‘void vote(const float*, unsigned int*, int)’ at vote.cu:5:28:\n"
    f"{INCLUDE_DIR}/sim_runtime.h:401:24: warning: ‘above’ may be used uninitialized "
    "[-Wmaybe-uninitialized]\n"
    "vote.cu: In function ‘void vote(const float*, unsigned int*, int)’:\n"
    "vote.cu:4:10: note: ‘above’ was declared here\n")


def test_a_read_in_the_function_the_macro_calls_is_said_at_the_learners_line_too():
    said = messages.learner_warnings(IN_THE_FUNCTION)
    assert said.startswith(messages.UNINITIALISED)
    assert said.splitlines()[1] == (
        "vote.cu:4: warning: ‘above’ may be used uninitialized: on some path nothing was stored "
        "in it since its declaration here [-Wmaybe-uninitialized]")
    assert "sim_runtime.h" not in said


@pytest.fixture(scope="module")
def vote_module(tmp_path_factory):
    if not toolchain.is_gcc(toolchain.find_compiler()):
        pytest.skip("-Wmaybe-uninitialized is GCC's")
    folder = tmp_path_factory.mktemp("warned")
    with pytest.warns(UserWarning) as said:
        module = SourceModule(VOTE + RIGHT, cache_dir=str(folder))
    return module, "\n".join(str(w.message) for w in said), folder


def test_a_vote_set_under_an_if_is_warned_about_at_the_learners_line(vote_module):
    """On a GPU the lanes past n vote with whatever their register held; the simulator's pattern
    gives a bool false, the right vote, so only the compiler can tell."""
    _, said, _ = vote_module
    # g++ 12 places the read in sim_warp.h's macro, which it names; g++ 13 in the function the
    # macro calls (sim_runtime.h), which serves three warp functions: then no reader is named
    assert re.search("vote.cu:3: warning: ‘above’ may be used uninitialized: (__ballot_sync reads "
                     "it, and )?on some path nothing was stored in it since its declaration", said)


def test_the_warning_reaches_the_kernel_as_fields(vote_module):
    module, _, _ = vote_module
    record = warned.CompilerWarning("uninitialised", "above", "vote.cu", 3, 3, "__ballot_sync",
                                    False, ("vote",))
    assert module.compiler_warnings in ((record,), (record._replace(reader=None),))
    record = module.compiler_warnings[0]
    assert module.get_function("vote").compiler_warnings == (record,)
    assert module.get_function("right").compiler_warnings == ()


def test_a_module_found_in_the_cache_has_its_warnings_too(vote_module):
    module, _, folder = vote_module
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no compile: nothing is said again
        again = SourceModule(VOTE + RIGHT, cache_dir=str(folder))
    assert again.path == module.path
    assert again.get_function("vote").compiler_warnings == module.compiler_warnings


def test_a_module_without_warnings_has_none():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        module = SourceModule(RIGHT)
    assert module.compiler_warnings == () == module.get_function("right").compiler_warnings


def test_an_if_whose_body_is_a_semicolon_is_a_record_of_its_own():
    said = ("kernel.cu: In function ‘void k(const float*, float*, float, int)’:\n"
            "kernel.cu:4:15: warning: suggest braces around empty body in an ‘if’ statement "
            "[-Wempty-body]\n"
            "/x/helpers/sim/include/sim_warp.h:9:3: warning: suggest braces around empty body in "
            "an ‘else’ statement [-Wempty-body]\n")
    assert warned.empty_bodies(said) == (warned.CompilerWarning(
        "empty body", "if", "kernel.cu", 4, None, None, True, ("k",)),)


def test_a_function_named_without_its_parentheses_is_a_record_of_its_own():
    said = ("kernel.cu: In function ‘void k(const float*, float*)’:\n"
            "kernel.cu:6:5: warning: statement is a reference, not call, to function "
            "‘__syncthreads’ [-Waddress]\n")
    assert warned.not_called(said) == (warned.CompilerWarning(
        "not called", "__syncthreads", "kernel.cu", 6, None, None, True, ("k",)),)


def test_a_barrier_without_its_parentheses_compiles_as_with_nvcc_and_is_recorded(tmp_path):
    """nvcc compiles __syncthreads; as a statement that calls nothing; so does the simulator,
    whose barrier is a macro that needs its parentheses, beside a function of the same name."""
    if not toolchain.is_gcc(toolchain.find_compiler()):
        pytest.skip("-Waddress's words are GCC's")
    source = ("__global__ void k(const float *x, float *y) {\n"
              "    __shared__ float s[64];\n"
              "    s[threadIdx.x] = x[threadIdx.x];\n"
              "    __syncthreads;\n"
              "    y[threadIdx.x] = s[63 - threadIdx.x];\n"
              "}\n")
    with pytest.warns(UserWarning, match="not call, to function ‘__syncthreads’"):
        module = SourceModule(source, cache_dir=str(tmp_path))
    assert module.get_function("k").compiler_warnings == (warned.CompilerWarning(
        "not called", "__syncthreads", "kernel.cu", 4, None, None, True, ("k",)),)



def test_an_assignment_tested_as_a_condition_is_a_record_of_its_own():
    said = ("kernel.cu: In function ‘void k(int*, int)’:\n"
            "kernel.cu:5:11: warning: suggest parentheses around assignment used as truth value "
            "[-Wparentheses]\n"
            "kernel.cu:7:12: warning: using the result of an assignment as a condition without "
            "parentheses [-Wparentheses]\n"
            f"{INCLUDE_DIR}/sim_warp.h:9:3: warning: suggest parentheses around assignment used "
            "as truth value [-Wparentheses]\n")
    assert warned.assignments_as_conditions(said) == tuple(warned.CompilerWarning(
        "assignment as condition", "=", "kernel.cu", line, None, None, True, ("k",))
        for line in (5, 7))


def test_an_operator_read_in_another_order_is_a_record_with_both_operators():
    """``a << 8 + b`` is ``a << (8 + b)``: the operator C applies last as ``name``, the one it
    binds tighter (or g++'s "comparison", "arithmetic") as ``inside``; ``&&`` within ``||``,
    the usual reading, is none."""
    said = ("kernel.cu: In function ‘void k(int*, int)’:\n"
            "kernel.cu:4:20: warning: suggest parentheses around ‘+’ inside ‘<<’ [-Wparentheses]\n"
            "kernel.cu:6:19: warning: suggest parentheses around comparison in operand of ‘&’ "
            "[-Wparentheses]\n"
            "kernel.cu:8:9: warning: suggest parentheses around ‘&&’ within ‘||’ [-Wparentheses]\n")
    assert warned.precedences(said) == (
        warned.CompilerWarning("operator precedence", "<<", "kernel.cu", 4, None, None, True,
                               ("k",), "+"),
        warned.CompilerWarning("operator precedence", "&", "kernel.cu", 6, None, None, True,
                               ("k",), "comparison"))


def test_the_records_of_both_kinds_are_read_from_a_compiled_kernel(tmp_path):
    if not toolchain.is_gcc(toolchain.find_compiler()):
        pytest.skip("-Wparentheses's words are GCC's")
    source = ("__global__ void k(int *h, const int *x) {\n"
              "    int j = threadIdx.x;\n"
              "    h[j] = x[j] << 8 + j;\n"
              "    if (j = 1) h[0] = 2;\n"
              "}\n")
    with pytest.warns(UserWarning, match="assignment used as truth value"):
        module = SourceModule(source, cache_dir=str(tmp_path))
    assert [(r.kind, r.line, r.name, r.inside) for r in module.get_function("k").compiler_warnings] \
        == [("assignment as condition", 4, "=", None), ("operator precedence", 3, "<<", "+")]


def test_two_comparisons_written_as_one_are_a_record_of_their_own():
    said = ("kernel.cu: In function ‘void k(const float*, float*, int)’:\n"
            "kernel.cu:3:11: warning: comparisons like ‘X<=Y<=Z’ do not have their mathematical "
            "meaning [-Wparentheses]\n"
            "kernel.cu:5:9: warning: suggest parentheses around ‘&&’ within ‘||’ [-Wparentheses]\n"
            f"{INCLUDE_DIR}/sim_warp.h:9:3: warning: comparisons like ‘X<=Y<=Z’ do not have "
            "their mathematical meaning [-Wparentheses]\n")
    assert warned.chained_comparisons(said) == (warned.CompilerWarning(
        "chained comparison", "<", "kernel.cu", 3, None, None, True, ("k",)),)


def test_a_not_on_a_comparisons_left_side_is_a_record_of_its_own():
    said = ("kernel.cu: In function ‘void k(const unsigned char*, unsigned char*, int, int)’:\n"
            "kernel.cu:12:12: warning: logical not is only applied to the left hand side of "
            "comparison [-Wlogical-not-parentheses]\n"
            "kernel.cu:12:9: note: add parentheses around left hand side expression to silence "
            "this warning\n")
    assert warned.nots_on_the_left(said) == (warned.CompilerWarning(
        "logical not", "!", "kernel.cu", 12, None, None, True, ("k",)),)
    assert warned.of_output(said) == warned.nots_on_the_left(said)


def test_python_comparisons_compile_and_are_recorded_on_their_kernels(tmp_path):
    """0 <= i < n and !x < width compile as with nvcc (C's meaning, not Python's); the warnings
    come from the learner's lines alone (the prelude's code gives none of these), and each is a
    record on its kernel."""
    if not toolchain.is_gcc(toolchain.find_compiler()):
        pytest.skip("the warnings' words are GCC's")
    source = ("__global__ void chained(float *y, int n) {\n"
              "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
              "    if (0 <= i < n) y[i] = 1.0f;\n"
              "}\n"
              "__global__ void negated(float *y, int width) {\n"
              "    int x = threadIdx.x;\n"
              "    if (!x < width) return;\n"
              "    y[x] = 2.0f;\n"
              "}\n")
    with warnings.catch_warnings(record=True) as said:
        warnings.simplefilter("always")
        module = SourceModule(source, cache_dir=str(tmp_path))
    text = "\n".join(str(w.message) for w in said)
    assert "kernel.cu:3:" in text and "kernel.cu:7:" in text, text
    assert str(INCLUDE_DIR) not in text and "sim_" not in text, text
    assert module.get_function("chained").compiler_warnings == (warned.CompilerWarning(
        "chained comparison", "<", "kernel.cu", 3, None, None, True, ("chained",)),)
    assert module.get_function("negated").compiler_warnings == (warned.CompilerWarning(
        "logical not", "!", "kernel.cu", 7, None, None, True, ("negated",)),)


def test_and_within_or_compiles_without_a_word(tmp_path):
    """-Wparentheses's advice where C's precedence is what was meant is not said: nvcc says
    nothing there."""
    source = ("__global__ void k(float *out, int w, int h) {\n"
              "    int x = threadIdx.x, y = threadIdx.y;\n"
              "    if (x < w && y < h || x == 0) out[x] = 1.0f;\n"
              "}\n")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        module = SourceModule(source, cache_dir=str(tmp_path))
    assert module.get_function("k").compiler_warnings == ()


def test_an_unsigned_value_compared_with_0_is_a_record_with_its_outcome():
    """g++'s -Wtype-limits: ``b >= 0`` always true, ``i < 0`` always false, for an unsigned b or
    i; the test as ``name``, the outcome as ``always``, the operator's column as ``column``."""
    said = ("kernel.cu: In function ‘void k(float*, int)’:\n"
            "kernel.cu:3:39: warning: comparison of unsigned expression in ‘>= 0’ is always true "
            "[-Wtype-limits]\n"
            "kernel.cu:9:29: warning: comparison of unsigned expression in ‘< 0’ is always false "
            "[-Wtype-limits]\n"
            f"{INCLUDE_DIR}/sim_warp.h:9:3: warning: comparison of unsigned expression in ‘< 0’ "
            "is always false [-Wtype-limits]\n")
    assert warned.unsigned_comparisons(said) == (
        warned.CompilerWarning("unsigned comparison", ">= 0", "kernel.cu", 3, None, None, True,
                               ("k",), None, True, 39),
        warned.CompilerWarning("unsigned comparison", "< 0", "kernel.cu", 9, None, None, True,
                               ("k",), None, False, 29))
    assert warned.of_output(said) == warned.unsigned_comparisons(said)


def test_an_unsigned_count_down_is_recorded_on_its_kernel(tmp_path):
    """The loop for (unsigned b = 767; b >= 0; b--) never ends: g++ warns at the learner's line,
    and the record reaches the kernel, read back from the library."""
    if not toolchain.is_gcc(toolchain.find_compiler()):
        pytest.skip("-Wtype-limits's words are GCC's")
    source = ("__global__ void k(float *y, int n) {\n"
              "    for (unsigned b = n - 1; b >= 0; b--)\n"
              "        y[b] = 0.0f;\n"
              "}\n")
    with pytest.warns(UserWarning, match="kernel.cu:2:32: warning: comparison of unsigned"):
        module = SourceModule(source, cache_dir=str(tmp_path))
    assert module.get_function("k").compiler_warnings == (warned.CompilerWarning(
        "unsigned comparison", ">= 0", "kernel.cu", 2, None, None, True, ("k",), None, True, 32),)
