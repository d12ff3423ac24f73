"""The translation unit a module is built from (helpers/sim/compile/source.py): the learner's
source after the prelude, its -D and -U options as defines, `extern __shared__` and
`__noinline__` made C++, its kernels found, and the table of them. Text in, text out: no compile,
but for one module that proves the C++ compiles."""

import re

import numpy as np

from helpers.sim import gpuarray
from helpers.sim.compile import source
from helpers.sim.compile.builder import translate_options
from helpers.sim.compiler import SourceModule


def test_macro_options_become_defines_after_the_prelude():
    flags, macros = translate_options(["-DN=4", "-DFLAG", "-UOLD", "-DNDEBUG", "-DSQ(x)=((x)*(x))"])
    assert macros == ["-DN=4", "-DFLAG", "-UOLD", "-DSQ(x)=((x)*(x))"] and "-DNDEBUG" in flags
    assert source.defines(macros) == ("#define N 4\n#define FLAG 1\n#undef OLD\n"
                                      "#define SQ(x) ((x)*(x))\n")


def test_the_learners_source_is_named_kernel_cu_unless_it_names_itself():
    body = source.user_source("__global__ void k() {}", macros=["-DN=2"])
    assert body.startswith('#define N 2\nextern "C" {\n#line 1 "kernel.cu"\n')
    named = source.user_source('#line 1 "mine.cu"\nint x;', no_extern_c=True)
    assert named == '#line 1 "mine.cu"\nint x;'


def test_extern_shared_becomes_the_blocks_dynamic_memory_and_lines_stay_where_they_were():
    src = ("extern __shared__ float tile[];\n"
           "__global__ void k(int *out) {\n"
           "    extern __shared__ int counts[];\n"
           "    out[0] = counts[0] + (int)tile[1];\n"
           "}\n")
    made = source._dynamic_shared(src)
    assert "int *const counts = ((int *)__sim_dynamic_shared());" in made
    assert "#define tile ((float *)__sim_dynamic_shared())\n#line 1\n" in made
    # every line of the learner's after the first keeps its number
    assert made.split("#line 1\n", 1)[1].splitlines()[3] == "    out[0] = counts[0] + (int)tile[1];"


def test_cudas_noinline_is_written_out_and_gnus_spelling_left_alone():
    body = source.user_source("__noinline__ __device__ int f();\n"
                              "__attribute__((__noinline__)) __device__ int g();\n")
    assert "__attribute__((noinline)) __device__ int f();" in body
    assert "__attribute__((__noinline__)) __device__ int g();" in body


def test_pragma_unroll_becomes_gccs_at_most_32_turns_on_the_same_line():
    lines = ["#pragma unroll", "    #pragma unroll 4", "  # pragma unroll (8)", "#pragma unroll 1",
             "#pragma unroll 100000", "#pragma unroll TILE", "// #pragma unroll"]
    body = source.user_source("\n".join(lines), no_extern_c=True).splitlines()[1:]
    assert body == ["#pragma GCC unroll 32", "    #pragma GCC unroll 4", "  #pragma GCC unroll 8",
                    "#pragma GCC unroll 1", "#pragma GCC unroll 32", "#pragma unroll TILE",
                    "// #pragma unroll"]


def test_a_loop_of_many_turns_under_pragma_unroll_compiles_and_counts_right():
    # GCC unrolls as far as it is told: told every turn of this loop, it ran for minutes
    src = """
    __global__ void count(int *out) {
        int n = 0;
        #pragma unroll
        for (int i = 0; i < 100000; i++) n += i % 3 == 0;
        out[0] = n;
    }"""
    out = gpuarray.zeros(1, np.int32)
    SourceModule(src).get_function("count")(out, block=(1, 1, 1))
    assert out.get()[0] == 33334


def test_kernels_and_the_need_for_fibers_are_read_from_the_preprocessed_code():
    code = ("void __sim_global__ first(int *x) {}\n"
            "void __sim_global__ second(float *y) { __sim_sync_block(); }\n"
            "void __sim_global__ first(int *x);\n")
    assert source.kernels_in(code) == {"&first": "first", "&second": "second"}
    assert source.uses_fibers(code) and not source.uses_fibers("void __sim_global__ k() {}")
    for function in ("__sim_device__ float f(float x) { return x; }",
                     "static __sim_device__ inline int g(int);", "__sim_device__ __host__ int h() {}"):
        assert source.defines_device_functions(code + function), function
    for variables in ("__sim_device__ float table[4];", "__sim_device__ int n = f(3);", ""):
        assert not source.defines_device_functions(code + variables), variables
    unit = source.scan_unit("int x;")
    assert source.after_mark(unit) == "\nint x;"


def test_a_kernel_template_is_a_kernel_where_it_is_instantiated_explicitly():
    """As with nvcc: each explicit instantiation an entry (named by its mangled name once
    loaded), with __global__ or without, the template itself none, nor an instantiation of a
    template that is not a kernel's (the C++ library's headers have many)."""
    code = ("template <typename T> __sim_global__ void k(T *o, int n) { o[0] = n; }\n"
            "template __sim_global__ void k<float>(float *, int);\n"
            "template __sim_global__ void k(double *o, int n);\n"
            "template <int N, typename T = int>\n__sim_global__ void fill(T *o) { o[0] = N; }\n"
            "template void fill<(3 > 2), int>(int *);\n"
            "template <typename T> void host(T *x) {}\ntemplate void host<int>(int *);\n"
            "__sim_global__ void plain(int *x) {}\n")
    assert source.kernels_in(code) == {
        "&plain": "plain",
        "static_cast<void (*)(float *, int)>(&k<float>)": "k",
        "static_cast<void (*)(double *o, int n)>(&k)": "k",
        "static_cast<void (*)(int *)>(&fill<(3 > 2), int>)": "fill"}


def test_nothing_after_the_learners_code_uses_a_name_the_learner_could_define():
    unit = source.translation_unit("<the learner's code>", {"&my_kernel": "my_kernel",
                                                            "&other": "other"})
    after = unit.split("<the learner's code>", 1)[1]
    names = set(re.findall(r"[A-Za-z_]\w*", re.sub(r'"[^"]*"', "", after)))
    assert {n for n in names if not n.startswith("__")} <= {"extern", "const", "int", "my_kernel",
                                                            "other"}, names
    assert "__sim_kernel_table_size = 2;" in unit and "__sim_kernel_max_threads[] = {0, 0};" in unit
    bounded = source.translation_unit("<code>", {"&a": "a", "&b": "b"}, bounds={"b": 256})
    assert "__sim_kernel_max_threads[] = {0, 256};" in bounded
    traced = source.translation_unit("<code>", {}, instrumented_as="trace.cu")
    assert traced.startswith('#line 1 "trace.cu"\n') and "__sim_kernel_table_size = 0;" in traced


def test_noinline_in_cuda_and_gnu_spelling_after_a_standard_header():
    """libstdc++ writes __attribute__((__noinline__)) (<memory>): CUDA's __noinline__ must not be
    a macro that breaks it, in a header included after the prelude or in the learner's code."""
    src = ("#include <memory>\n"
           "__attribute__((__noinline__)) __device__ int twice(int x) { return 2 * x; }\n"
           "__noinline__ __device__ int thrice(int x) { return 3 * x; }\n"
           'extern "C" __global__ void k(int *x) { x[0] = twice(x[0]) + thrice(x[0]); }\n')
    x = gpuarray.to_gpu(np.array([5], np.int32))
    SourceModule(src, no_extern_c=True).get_function("k")(x, block=(1, 1, 1))
    assert x.get()[0] == 25


def test_only_the_kernels_without_a_loop_of_their_own_are_vectorised():
    """A kernel's own loop is not vectorised with the threads' loop: its sum += a * b would be
    added in order from a vector of products, no longer fused as nvcc fuses it."""
    code = ('__sim_global__ void a(int *x) { if (x) { x[1] = 2; } }\n'
            '__sim_global__ void b(int *x, int n) { for (int i = 0; i < n; i++) x[i] = 0; }\n'
            '__sim_global__ void c(int *x);\n'
            '__sim_global__ void c(int *x) { const char *f = "{ for"; x[0] = f[0]; }\n'
            '__sim_global__ void d(int *x) { do { x[0]++; } while (x[0] < 3); }\n')
    assert source.loop_free_kernels(code) == {"a", "c"}
    unit = source.translation_unit("<code>", {"&a": "a", "&b": "b"}, vectorised={"a"})
    assert '__sim_entry<&a, 1>("a")' in unit and '__sim_entry<&b, 0>("b")' in unit


def test_a_line_is_found_as_the_sources_line_directives_number_it():
    text = '#line 10 "cuda_src/k.cu"\nint a;\nint b = 1 << k;\n#line 11 "other.cu"\nint c;\n'
    assert source.line_text(text, 11, "/home/me/course/cuda_src/k.cu") == "int b = 1 << k;"
    assert source.line_text(text, "11", "other.cu") == "int c;"
    assert source.line_text(text, 11) is None                     # two files hold a line 11
    assert source.line_text(text, 10) == "int a;"
    assert source.line_text("int a;\nint b;\n", 2, "kernel.cu") == "int b;"
    assert source.line_text(text, 11, "header.h") is None
    assert source.line_text(None, 1) is None
