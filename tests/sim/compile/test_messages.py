"""What the host compiler and linker say, turned into what the learner reads
(helpers/sim/compile/messages.py): the learner's file and line, in CUDA's terms, with what to do.
The compiler's output is made up here where the point is how it is read (no compile); the
learner's mistakes compiled for real run on whichever backend helpers.backend chose, each in a
cache of its own so that the compiler is seen at work (nvcc says the same on a GPU)."""

import os
import re
import uuid
import warnings

import numpy as np
import pytest

from helpers.backend import BACKEND, SourceModule, drv, gpuarray
from helpers.sim import errors
from helpers.sim.compile import messages, not_simulated, toolchain
from helpers.sim.compile.source import INCLUDE_DIR

PRELUDE_H = "/somewhere/helpers/sim/include/sim_host_only.h"


# ---- read from the compiler's output ---------------------------------------------------------
def test_a_host_function_is_named_at_the_learners_line_not_the_preludes():
    stderr = (f"{PRELUDE_H}:40:5: error: use of deleted function 'void __sim_host_io_fopen()'\n"
              "host.cu:7:12: note: in expansion of macro 'fopen'\n")
    e = messages.compile_error("kernel.cu", stderr)
    assert isinstance(e, errors.HostFunctionError)
    assert (e.function, e.file, e.line) == ("fopen", "host.cu", 7)
    assert "printf is its only output" in str(e)  # the advice for files


def test_the_first_error_in_the_learners_file_comes_first_with_a_note_on_missing_features():
    stderr = (f"{PRELUDE_H}:3:1: error: something in the prelude\n"
              "mine.cu:4:9: error: 'cudaTextureObject_t' has not been declared\n"
              "mine.cu:9:1: error: a later error\n")
    e = messages.compile_error("kernel.cu", stderr)
    assert type(e) is errors.CompileError
    assert str(e).splitlines()[1] == "mine.cu:4:9: error: 'cudaTextureObject_t' has not been declared"
    assert f"note: cudaTextureObject_t ({not_simulated.HEADERS['cudaTextureObject_t']})" in str(e)


def test_calls_of_functions_the_simulator_leaves_out_are_refused_with_each_call():
    stderr = (f"{PRELUDE_H}:8:3: error: 'tex1D' was not declared in this scope\n"
              "mine.cu:4:9: error: 'tex2D' was not declared in this scope\n"
              "mine.cu:6:5: error: '__prof_trigger' was not declared in this scope\n"
              "mine.cu:7:5: error: 'my_own' was not declared in this scope\n")
    e = messages.compile_error("kernel.cu", stderr)
    assert isinstance(e, errors.NotSimulatedError)
    assert (e.function, e.file, e.line) == ("tex2D", "mine.cu", 4)
    assert e.feature == not_simulated.FUNCTIONS["tex2D"]
    assert [(f, line) for f, _, _, line in e.calls] == [("tex2D", 4), ("__prof_trigger", 6)]


def test_grid_sync_is_refused_as_a_member_the_simulator_leaves_out():
    stderr = ("mine.cu:6:11: error: use of deleted function 'void "
              "cooperative_groups::grid_group::sync() const'\n")
    e = messages.compile_error("kernel.cu", stderr)
    assert isinstance(e, errors.NotSimulatedError)
    assert (e.function, e.file, e.line) == ("grid_group::sync", "mine.cu", 6)
    assert e.feature == not_simulated.MEMBERS["grid_group::sync"]


def test_a_full_disk_is_named_as_such():
    assert isinstance(messages.disk_full("kernel.cu", "ld: final link failed: No space left on "
                                                      "device"), errors.CompileError)
    assert messages.disk_full("kernel.cu", "error: expected ';'") is None
    assert "the disk is full" in str(messages.compile_error("k.cu", "No space left on device"))


def test_the_linkers_undefined_references_are_read_relative_to_the_folder():
    here = os.getcwd()
    stderr = (f"{here}/undefined.cu:3: undefined reference to `helper(float)'\n"
              f"{here}/undefined.cu:3: undefined reference to `helper(float)'\n"
              "/usr/bin/ld: k.o:(.text+0x1c): undefined reference to `other'\n")
    assert messages.undefined_symbols(stderr) == [("undefined.cu", 3, "helper(float)"),
                                                 (None, None, "other")]


def test_a_link_without_the_cpp_library_names_the_compiler():
    stderr = "/usr/bin/ld: k.o:(.text+0x5): undefined reference to `operator new(unsigned long)'\n"
    assert "gcc is not a C++ compiler" in str(messages.link_error("k.cu", stderr, "gcc"))
    said = str(messages.link_error("k.cu", "u.cu:3: undefined reference to `helper'\n", "g++"))
    assert "u.cu:3: error: helper is declared but never defined" in said


def test_only_warnings_about_the_learners_file_are_shown():
    prelude_only = f"{PRELUDE_H}:12:3: warning: unused variable 'x'\n"
    assert messages.learner_warnings(prelude_only) == ""
    mine = "kernel.cu:2:12: warning: format '%f' expects 'double'"
    assert messages.learner_warnings(prelude_only + mine + "\n") == mine


# g++ 12 with -Wparentheses (on for 0 <= i < n): its advice where C's precedence is what was meant
ADVICE = """\
kernel.cu: In function ‘void k(float*, int, int, int)’:
kernel.cu:3:15: warning: suggest parentheses around ‘&&’ within ‘||’ [-Wparentheses]
    3 |     if (x < w && y < h || x == 0) out[0] = 1.0f;
      |         ~~~~~~^~~~~~~~
kernel.cu:4:11: warning: suggest parentheses around assignment used as truth value [-Wparentheses]
    4 |     if (x = w) out[1] = 2.0f;
      |         ~~^~~
"""


def test_advice_on_parentheses_that_nvcc_does_not_give_is_left_out():
    assert messages.learner_warnings("".join(ADVICE.splitlines(keepends=True)[:4])) == ""
    assert messages.learner_warnings(ADVICE).splitlines() == [
        "kernel.cu: In function ‘void k(float*, int, int, int)’:",
        "kernel.cu:4:11: warning: suggest parentheses around assignment used as truth value "
        "[-Wparentheses]",
        "    4 |     if (x = w) out[1] = 2.0f;",
        "      |         ~~^~~"]


# g++ 12 on escape_steps with z_re declared without a value: the read inlined into the prelude's
# loop over a block's threads, through the C++ library's std::apply
INLINED_INTO_THE_LOOP = f"""\
kernel.cu: In function ‘void escape_steps(const float*, int*, int)’:
kernel.cu:16:21: warning: ‘z_re’ may be used uninitialized [-Wmaybe-uninitialized]
kernel.cu:13:11: note: ‘z_re’ was declared here
In function ‘void escape_steps(const float*, int*, int)’,
    inlined from ‘constexpr _Res std::__invoke_impl(__invoke_other, _Fn&&) [with _Res = void]’ at /usr/include/c++/12/bits/invoke.h:61:36,
    inlined from ‘static void sim::Kernel<K>::run_block_fast(void*) [with auto K = escape_steps]’ at {INCLUDE_DIR}/sim_launch.h:200:52:
kernel.cu:14:33: warning: ‘z_re’ may be used uninitialized [-Wmaybe-uninitialized]
kernel.cu: In static member function ‘static void sim::Kernel<K>::run_block_fast(void*) [with auto K = escape_steps]’:
kernel.cu:13:11: note: ‘z_re’ was declared here
"""


def test_a_warning_names_neither_the_simulators_code_nor_a_path_of_this_machine():
    said = messages.learner_warnings(INLINED_INTO_THE_LOOP)
    assert said.splitlines()[1:] == [
        "kernel.cu: In function ‘void escape_steps(const float*, int*, int)’:",
        "kernel.cu:16:21: warning: ‘z_re’ may be used uninitialized [-Wmaybe-uninitialized]",
        "kernel.cu:13:11: note: ‘z_re’ was declared here",
        "kernel.cu:14:33: warning: ‘z_re’ may be used uninitialized [-Wmaybe-uninitialized]",
        "kernel.cu:13:11: note: ‘z_re’ was declared here"]


# ---- the learner's mistakes, compiled ---------------------------------------------------------
# (stderr itself is refused first, as a host object: test_learner_text.py)
@pytest.mark.parametrize("call", ["exit(1)", "rand()", 'fopen("out.txt", "w")',
                                  'fprintf((FILE *)0, "x")'])
def test_a_host_library_call_in_a_kernel_is_a_compile_error(call, tmp_path):
    name = call.split("(")[0]
    src = f'#line 1 "host.cu"\n__global__ void k(int *x) {{\n    if (x[0]) {call};\n}}\n'
    with pytest.raises(drv.CompileError) as err:
        SourceModule(src, cache_dir=str(tmp_path))
    text = str(err.value)
    assert f'calling a __host__ function("{name}")' in text, text
    assert re.search(r"host\.cu[:(]\s*2\b", text), text


@pytest.mark.skipif(BACKEND != "simulator", reason="the simulator's words for a host function")
def test_host_functions_in_a_device_function_name_the_line():
    src = ('#line 1 "helpers.cu"\n__device__ void stop(int code) {\n    std::exit(code);\n}\n'
           "__global__ void k(int *x) { stop(x[0]); }\n")
    with pytest.raises(drv.CompileError) as err:
        SourceModule(src)
    assert (err.value.function, err.value.file, err.value.line) == ("exit", "helpers.cu", 2)


def test_a_printf_format_that_does_not_fit_is_a_warning(tmp_path):
    src = '__global__ void k(int n) {\n    printf("%f\\n", n);\n}\n'
    with pytest.warns(UserWarning, match="compiler succeeded, but said the following") as said:
        SourceModule(src, cache_dir=str(tmp_path))
    assert any("format" in str(w.message) for w in said)


def test_a_device_function_declared_but_never_defined_is_named(tmp_path):
    src = ('#line 1 "undefined.cu"\n__device__ float helper(float x);\n'
           "__global__ void k(float *x) {\n    x[0] = helper(x[1]);\n}\n")
    with pytest.raises(drv.CompileError) as err:
        SourceModule(src, cache_dir=str(tmp_path))
    text = str(err.value)
    assert "Unresolved extern function 'helper'" in text, text
    if BACKEND == "simulator":  # nvcc names no line; the simulator names the call's
        assert "undefined.cu:3: error: helper is declared but never defined" in text, text


@pytest.mark.skipif(BACKEND != "simulator", reason="the simulator's compile errors")
def test_compile_errors_name_the_file_line_and_unsupported_features():
    with pytest.raises(drv.CompileError, match=r"mine\.cu:2"):
        SourceModule('#line 1 "mine.cu"\n__global__ void k(int *x) {\n  x[0] = y;\n}\n')
    with pytest.raises(drv.CompileError) as err:
        SourceModule("__global__ void k(float *x) { x[0] = tex2D(x, 0, 0); }")
    assert (err.value.function, err.value.feature) == ("tex2D", not_simulated.FUNCTIONS["tex2D"])


@pytest.mark.skipif(BACKEND != "simulator", reason="the simulator's host compiler")
@pytest.mark.usefixtures("private_cache")
def test_a_c_compiler_in_place_of_a_cpp_compiler_is_named():
    import shutil

    from helpers.sim.settings import settings

    if not shutil.which("gcc"):
        pytest.skip("no gcc")
    with settings.changed(cxx="gcc"), pytest.raises(drv.CompileError,
                                                    match="gcc is not a C[+][+] compiler"):
        SourceModule(f"__global__ void k(int *x) {{ __syncthreads(); x[0] = 1; /* {uuid.uuid4()} */ }}")


@pytest.mark.skipif(BACKEND != "simulator", reason="the simulator's compiler")
def test_a_local_array_read_before_it_is_written_is_said_at_compile_time():
    """Issue 27: local arrays are not zeroed on a GPU either; where g++ can tell that an element
    is read before anything was written to it, the compile says so, at the line of the read."""
    source = ('#line 1 "locals.cu"\n__global__ void k(float *out) {\n    float acc[4];\n'
              "    for (int j = 1; j < 4; j++) acc[j] = j;\n    float s = 0;\n"
              "    for (int j = 0; j < 4; j++) s += acc[j];\n    out[threadIdx.x] = s;\n}\n")
    with pytest.warns(UserWarning) as said:
        SourceModule(source, cache_dir=False)
    text = "\n".join(str(w.message) for w in said)
    assert messages.UNINITIALISED in text and re.search(r"locals\.cu:5:\d+: warning: .acc. is used "
                                                         "uninitialized", text), text
    fixed = source.replace("float acc[4];", "float acc[4] = {};")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        SourceModule(fixed, cache_dir=False)


@pytest.mark.skipif(BACKEND != "simulator", reason="the simulator's compiler")
def test_a_local_read_before_it_is_written_holds_a_pattern_not_zero():
    """A fresh stack gives 0, which hides the mistake (a sum that starts from nothing, bits ORed
    into an array never cleared); a GPU's registers hold what they held last. The simulator's
    locals start as 0xFE bytes, where the compiler takes -ftrivial-auto-var-init (GCC 12 on)."""
    if not toolchain.takes(toolchain.find_compiler(), toolchain.PATTERN_LOCALS):
        pytest.skip("this compiler fills no locals")
    out = gpuarray.zeros(2, np.uint32)
    source = ("__global__ void k(unsigned *out, int n) { unsigned bits[2];\n"
              "    for (int j = 0; j < n; j++) bits[j] = 0u;\n"
              "    out[0] = bits[0] | 1u; out[1] = bits[1]; }")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")   # g++ may see the path, or not
        SourceModule(source).get_function("k")(out, np.int32(1), block=(1, 1, 1), grid=(1, 1))
    assert out.get().tolist() == [1, 0xFEFEFEFE]


def test_a_static_assertion_of_a_simulator_header_is_named_at_the_learners_line():
    mma_h = f"{INCLUDE_DIR}/mma.h"
    stderr = (f"In file included from kernel.cu:1:\n"
              f"{mma_h}: In instantiation of ‘class nvcuda::wmma::fragment<matrix_a, 16, 8, 16>’:\n"
              "kernel.cu:4:70:   required from here\n"
              f"{mma_h}:143:48: error: static assertion failed: wmma::fragment: no such shape\n")
    lines = str(messages.compile_error("kernel.cu", stderr)).splitlines()
    assert lines[1] == "kernel.cu:4: error: static assertion failed: wmma::fragment: no such shape"
    assert lines[2] == "  (in class nvcuda::wmma::fragment<matrix_a, 16, 8, 16>)"
