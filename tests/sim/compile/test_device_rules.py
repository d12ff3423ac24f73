"""What nvcc refuses in device code and g++ cannot know is refused on the simulator too
(compile/device_rules.py, and -Werror=vla): a call of the learner's own function declared without
__device__ (a member function, a constructor), the C++ standard library's host code, a kernel
called like a function, a variable of the host's read (a const array too), a __shared__
variable's initializer, a local array sized at run time. Each source below is compiled by nvcc
and by the simulator, and both must give the same verdict; a refusal is a CompileError whose
record names the mistake."""

import hashlib
import subprocess

import pytest

from helpers.sim.compile import diagnosed
from helpers.sim.compiler import SourceModule
from helpers.sim.errors import CompileError

KERNEL = "__global__ void k(float *o, int n) {{ {} }}\n"
SOURCES = {  # name: (source, nvcc's verdict: None where it compiles, else the record's kind)
    "helper_without_device": ("float twice(float x) { return 2 * x; }\n"
                              + KERNEL.format("o[0] = twice(o[0]);"), diagnosed.HOST_FUNCTION),
    "constexpr_helper": ("constexpr float twice(float x) { return 2 * x; }\n"
                         + KERNEL.format("o[0] = twice(o[0]);"), diagnosed.HOST_FUNCTION),
    "template_helper": ("template <typename T> T twice(T x) { return 2 * x; }\n"
                        + KERNEL.format("o[0] = twice(o[0]);"), diagnosed.HOST_FUNCTION),
    "helper_of_a_device_function": ("int one() { return 1; }\n__device__ float f() "
                                    "{ return one(); }\n" + KERNEL.format("o[0] = f();"),
                                    diagnosed.HOST_FUNCTION),
    "helper_on_both_sides": ("__host__ __device__ float twice(float x) { return 2 * x; }\n"
                             + KERNEL.format("o[0] = twice(o[0]);"), None),
    "declared_device_then_defined": ("__device__ float twice(float x);\n"
                                     + KERNEL.format("o[0] = twice(o[0]);")
                                     + "__device__ float twice(float x) { return 2 * x; }\n", None),
    "host_helper_never_called": ("float twice(float x) { return 2 * x; }\n"
                                 + KERNEL.format("o[0] = n;"), None),
    "kernel_called": ("__global__ void g(float *o) { o[0] = 1; }\n" + KERNEL.format("g(o);"),
                      diagnosed.KERNEL_CALLED),
    "shared_initialized": (KERNEL.format("__shared__ float s = 1.0f; o[0] = s;"),
                           diagnosed.SHARED_INITIALIZER),
    "shared_array_initialized": (KERNEL.format("__shared__ float s[4] = {0}; o[0] = s[0];"),
                                 diagnosed.SHARED_INITIALIZER),
    "shared_set_by_one_thread": (KERNEL.format("__shared__ float s; if (threadIdx.x == 0) s = 1; "
                                               "__syncthreads(); o[0] = s;"), None),
    "extern_shared": (KERNEL.format("extern __shared__ float s[]; s[0] = 1; o[0] = s[0];"), None),
    "static_local": ("__device__ int count() { static int c = 0; return ++c; }\n"
                     + KERNEL.format("o[0] = count();"), None),
    "local_array_of_n": (KERNEL.format("float buf[n]; buf[0] = 1; o[0] = buf[0];"), diagnosed.VLA),
    "local_array_of_a_constant": ("#define N 8\n" + KERNEL.format("float buf[N]; buf[0] = 1; "
                                                                  "o[0] = buf[0];"), None),
    "host_array_read": ("float weights[3] = {0.25f, 0.5f, 0.25f};\n"
                        + KERNEL.format("o[0] = weights[1];"), diagnosed.HOST_VARIABLE),
    "host_number_read_by_a_device_function": ("int count = 4, other;\n__device__ int twice(int x) "
                                              "{ return 2 * x * count; }\n"
                                              + KERNEL.format("o[0] = twice(n);"),
                                              diagnosed.HOST_VARIABLE),
    "const_number": ("const int width = 8;\n" + KERNEL.format("o[0] = width;"), None),
    "constant_array": ("__constant__ float w[3] = {0.25f, 0.5f, 0.25f};\n"
                       + KERNEL.format("o[0] = w[1];"), None),
    "device_variable": ("__device__ float dv = 1;\n" + KERNEL.format("o[0] = dv;"), None),
    "parameter_named_as_a_host_variable": ("int n = 4;\n" + KERNEL.format("o[0] = n;"), None),
    "member_named_as_a_host_variable": ("struct P { int count; };\nint count = 4;\n"
                                        + KERNEL.format("P p; p.count = n; o[0] = p.count;"), None),
    "lambda": (KERNEL.format("auto f = [](float x) { return 2 * x; }; o[0] = f(1);"), None),
    "member_on_the_device": ("struct S { __device__ float get() { return 1; } };\n"
                             + KERNEL.format("S s; o[0] = s.get();"), None),
    "const_array": ("const float w[3] = {0.25f, 0.5f, 0.25f};\n" + KERNEL.format("o[0] = w[1];"),
                    diagnosed.HOST_VARIABLE),
    "constexpr_array": ("constexpr int w[2] = {1, 2};\n" + KERNEL.format("o[0] = w[n & 1];"),
                        diagnosed.HOST_VARIABLE),
    "static_const_array": ("static const float w[2] = {1, 2};\n" + KERNEL.format("o[0] = w[0];"),
                           diagnosed.HOST_VARIABLE),
    # nvcc's front end folds a const array's element at a constant index into a local's
    # initializer, and refuses every other read of the array
    "const_array_element_folded": ("const float w[3] = {0.25f, 0.5f, 0.25f};\n"
                                   + KERNEL.format("float y = w[1] * n, z = w[1 + 1]; o[0] = y + z; "
                                                   "for (float t = w[0]; t < 1; t += 1) o[1] = t;"),
                                   None),
    "const_array_element_assigned": ("const float w[3] = {0.25f, 0.5f, 0.25f};\n"
                                     + KERNEL.format("float y; y = w[1]; o[0] = y;"),
                                     diagnosed.HOST_VARIABLE),
    "const_array_at_a_thread_s_index": ("const float w[3] = {0.25f, 0.5f, 0.25f};\n"
                                        + KERNEL.format("float y = w[threadIdx.x % 3]; o[0] = y;"),
                                        diagnosed.HOST_VARIABLE),
    "host_array_element_in_an_initializer": ("float w[3] = {0.25f, 0.5f, 0.25f};\n"
                                             + KERNEL.format("float y = w[1]; o[0] = y;"),
                                             diagnosed.HOST_VARIABLE),
    "host_array_in_sizeof": ("const float w[3] = {0.25f, 0.5f, 0.25f};\n"
                             + KERNEL.format("o[0] = sizeof(w) / sizeof(w[0]);"), None),
    "const_numbers": ("const float scale = 2.5f;\nconstexpr double shift = 1.5;\n"
                      + KERNEL.format("o[0] = scale * shift;"), None),
    "host_member_function": ("struct P { float x, y; float norm() const { return x * x + y * y; } };\n"
                             + KERNEL.format("P p{1, 2}; o[0] = p.norm();"), diagnosed.HOST_FUNCTION),
    "host_member_through_a_pointer": ("struct P { float x; float get() { return x; } };\n"
                                      + KERNEL.format("P p{1}; P *q = &p; o[0] = q->get();"),
                                      diagnosed.HOST_FUNCTION),
    "host_member_defined_outside": ("struct P { float x; float get() const; };\n"
                                    "float P::get() const { return x; }\n"
                                    + KERNEL.format("P p{1}; o[0] = p.get();"), diagnosed.HOST_FUNCTION),
    "host_member_never_called_on_the_device": (
        "struct P { float x; float get() const { return x; } };\n"
        + KERNEL.format("P p{1}; o[0] = p.x;"), None),
    "host_constructor": ("struct P { float x, y; P(float a, float b) : x(a), y(b) {} };\n"
                         + KERNEL.format("P p(1, 2); o[0] = p.x;"), diagnosed.HOST_FUNCTION),
    "host_constructor_in_braces": ("struct P { float x; P(float a) : x(a) {} };\n"
                                   + KERNEL.format("o[0] = P{3}.x;"), diagnosed.HOST_FUNCTION),
    "device_constructor": ("struct P { float x, y; __device__ P(float a, float b) : x(a), y(b) {} };\n"
                           + KERNEL.format("P p(1, 2); o[0] = p.x;"), None),
    "defaulted_constructor": ("struct P { float x; P() = default; };\n"
                              + KERNEL.format("P p; p.x = 1; o[0] = p.x;"), None),
    "kernel_returns_a_float": ("__global__ float k(float *o) { o[0] = 1; return o[0]; }\n",
                               diagnosed.KERNEL_RETURNS),
    "kernel_with_launch_bounds": ("__global__ void __launch_bounds__(256) k(float *o) { o[0] = 1; }\n",
                                  None),
    "try_in_a_kernel": (KERNEL.format("try { o[0] = 1; } catch (...) { o[0] = 2; }"),
                        diagnosed.EXCEPTION),
    "throw_in_a_device_function": ("__device__ float f(float x) { if (x < 0) throw 1; return x; }\n"
                                   + KERNEL.format("o[0] = f(o[0]);"), diagnosed.EXCEPTION),
    "constant_initialized_by_a_call": ("__constant__ float s = sqrtf(2.0f);\n"
                                       + KERNEL.format("o[0] = s;"), diagnosed.DYNAMIC_INIT),
    "device_initialized_by_a_call": ("__device__ float2 p = make_float2(1, 2);\n"
                                     + KERNEL.format("o[0] = p.x;"), diagnosed.DYNAMIC_INIT),
    "constant_initialized_by_constants": (
        "constexpr int twice(int x) { return 2 * x; }\n__constant__ float a = 1.0f / 3.0f, "
        "b = float(2) / 3, c = (float)sizeof(float), d = INFINITY, e = static_cast<float>(3);\n"
        "__constant__ int f = twice(3);\n__constant__ float2 g = {1, 2};\n"
        + KERNEL.format("o[0] = a + b + c + d + e + f + g.x;"), None),
    "host_and_global": ("__host__ __global__ void k(float *o) { o[0] = 1; }\n", diagnosed.QUALIFIERS),
    "device_and_global": ("__global__ __device__ void k(float *o) { o[0] = 1; }\n",
                          diagnosed.QUALIFIERS),
    "host_device_helper_beside_a_kernel": ("__host__ __device__ float one() { return 1; }\n"
                                           "__global__ void __launch_bounds__(64) k(float *o) "
                                           "{ o[0] = one(); }\n", None),
    # PyCUDA's scan writes its qualifiers through macros, one line each (the rule reads the code
    # after the preprocessor: a search of the text ran from the one line into the other)
    "qualifiers_from_macros": ("#define WITHIN_KERNEL __device__\n#define KERNEL __global__\n"
                               "WITHIN_KERNEL float one() { return 1; }\n"
                               "KERNEL void k(float *o) { o[0] = one(); }\n", None),
    "host_and_global_from_a_macro": ("#define BOTH __host__ __global__\n"
                                     "BOTH void k(float *o) { o[0] = 1; }\n", diagnosed.QUALIFIERS),
    "thread_local_in_a_kernel": (KERNEL.format("thread_local int t; t = n; o[0] = t;"),
                                 diagnosed.THREAD_LOCAL),
    "static_local_in_a_kernel": (KERNEL.format("static int t; t = 1; o[0] = t;"), None),
    "aggregate": ("struct P { float x, y; };\n" + KERNEL.format("P p{1, 2}; P q = P{3, 4}; "
                                                                  "o[0] = p.x + q.y;"), None),
}
# The same for the C++ standard library, compiled as C++ (no_extern_c=True), as a file that
# includes a C++ header must be: (source, nvcc's verdict)
STD = ("#include <vector>\n#include <array>\n#include <limits>\n#include <cmath>\n#include <cstdint>\n"
       "#include <utility>\n#include <numeric>\n#include <algorithm>\n#include <cstdio>\n"
       "#include <cstring>\n#include <type_traits>\n"
       'extern "C" __global__ void k(float *o, float x) {{ float r = 0; {} o[0] = r; }}\n')
CPP_SOURCES = {
    "std_vector": (STD.format("std::vector<float> v(3); r = v[0];"), diagnosed.HOST_LIBRARY),
    "std_array": (STD.format("std::array<float, 3> v{}; r = v[0];"), diagnosed.HOST_LIBRARY),
    "std_pair": (STD.format("std::pair<int, int> p(1, 2); r = p.first;"), diagnosed.HOST_LIBRARY),
    "std_swap": (STD.format("float y = 1; std::swap(x, y); r = x;"), diagnosed.HOST_LIBRARY),
    "std_clamp": (STD.format("r = std::clamp(x, 0.f, 1.f);"), diagnosed.HOST_LIBRARY),
    "std_accumulate": (STD.format("float a[3] = {1, 2, 3}; r = std::accumulate(a, a + 3, 0.f);"),
                       diagnosed.HOST_LIBRARY),
    "std_numeric_limits_max": (STD.format("r = std::numeric_limits<float>::max();"),
                               diagnosed.HOST_LIBRARY),
    "std_numeric_limits_infinity": (STD.format("r = -std::numeric_limits<float>::infinity();"),
                                    diagnosed.HOST_LIBRARY),
    "std_sinf": (STD.format("r = std::sinf(x);"), diagnosed.HOST_LIBRARY),
    "std_math": (STD.format("r = std::sqrt(x) + std::fmax(x, 1.f) + std::pow(x, 2) + std::exp(x) "
                            "+ std::lround(x) + std::ldexp(x, 2) + std::abs(x);"), None),
    "std_float_spellings": (STD.format("r = std::log2f(x) + std::fmaxf(x, 1.f) + std::roundf(x) "
                                       "+ std::cbrtf(x);"), None),
    "std_classification": (STD.format("r = std::isnan(x) + std::isinf(x) + std::signbit(x);"), None),
    "std_move_and_forward": (STD.format("float y = std::move(x); r = std::forward<float>(y);"), None),
    "std_c_functions": (STD.format('std::memcpy(&r, &x, 4); std::printf("%f", r);'), None),
    "std_types_and_traits": (STD.format("std::size_t n = 3; std::uint32_t u = 2; "
                                        "r = n + u + std::int64_t(1) + std::is_same<float, float>::value "
                                        "+ std::is_same_v<int, int>;"), None),
}


def _nvcc_compiles(nvcc, accepted, text, tmp_path):
    """Whether nvcc compiles ``text`` (wrapped in extern "C" as PyCUDA wraps it, unless it is
    C++ of CPP_SOURCES): its answer kept in the compile cache for this nvcc and this text,
    either way (a refusal too, which kernel_sources.nvcc_verdict compiles again)."""
    kept, this_nvcc = accepted
    answer = kept / ("rules-" + hashlib.sha256(f"{this_nvcc}\0{text}".encode()).hexdigest())
    if not answer.is_file():
        cpp = text in (t for t, _ in CPP_SOURCES.values())
        (tmp_path / "k.cu").write_text(text if cpp else f'extern "C" {{\n{text}}}\n')
        p = subprocess.run([nvcc, "-arch=sm_90", "-c", str(tmp_path / "k.cu"), "-o",
                            str(tmp_path / "k.o")], capture_output=True, text=True, timeout=300)
        answer.write_text("compiles" if p.returncode == 0 else "refused")
    return answer.read_text() == "compiles"


def _refused_as(text, no_extern_c=False):
    """None where the simulator compiles ``text``, else its first record's kind."""
    try:
        SourceModule(text, no_extern_c=no_extern_c)
    except CompileError as err:
        return err.diagnostics[0].kind if err.diagnostics else "no record"
    return None


@pytest.mark.parametrize("name", sorted(SOURCES))
def test_the_simulator_refuses_what_nvcc_refuses_with_the_mistake_s_record(name, nvcc, accepted,
                                                                          tmp_path):
    text, kind = SOURCES[name]
    assert _nvcc_compiles(nvcc, accepted, text, tmp_path) == (kind is None), "nvcc's verdict changed"
    assert _refused_as(text) == kind


@pytest.mark.parametrize("name", sorted(CPP_SOURCES))
def test_the_standard_library_s_host_code_is_refused_as_nvcc_refuses_it(name, nvcc, accepted,
                                                                       tmp_path):
    text, kind = CPP_SOURCES[name]
    assert _nvcc_compiles(nvcc, accepted, text, tmp_path) == (kind is None), "nvcc's verdict changed"
    assert _refused_as(text, no_extern_c=True) == kind



def test_a_header_s_function_of_a_kernel_s_name_is_not_read_as_the_kernel():
    """mma.h's own offset() returns a size_t and calls what it likes: a kernel named offset is
    still a void kernel of the learner's, and only its body is device code of theirs."""
    text = ("#include <mma.h>\nusing namespace nvcuda;\n"
            'extern "C" __global__ void offset(float *d, int at) { d[at] = 1; }\n')
    assert _refused_as(text, no_extern_c=True) is None


def test_a_host_variable_initialized_by_the_learners_own_function_is_refused(tmp_path):
    """A variable outside any function whose initializer calls the learner's own function runs
    that function inside the library's load (dlopen), before any check and the launch's time
    limit: a loop there hung the notebook for good (audit AV, a06's host twin). nvcc takes it
    as host code; the simulator cannot run it safely, and a kernel never needs it."""
    src = ('#line 1 "load.cu"\nint spin() { volatile int k = 1; while (k) { } return 0; }\n'
           "int started = spin();\n" + KERNEL.format("o[0] = 1;"))
    with pytest.raises(CompileError) as err:
        SourceModule(src, cache_dir=str(tmp_path))
    record = err.value.diagnostics[0]
    assert (record.kind, record.names, record.line) == (diagnosed.DYNAMIC_INIT, ("started", "spin"), 2)


def test_a_lambda_called_in_a_host_variables_initializer_is_refused(tmp_path):
    src = "int started = [] { volatile int k = 1; while (k) { } return 0; }();\n" + KERNEL.format("o[0] = 1;")
    with pytest.raises(CompileError) as err:
        SourceModule(src, cache_dir=str(tmp_path))
    assert err.value.diagnostics[0].names == ("started", "a lambda")


def test_a_host_constant_of_a_math_call_still_compiles():
    SourceModule("const float ROOT2 = sqrtf(2.0f);\nfloat scale(float x = ROOT2);\n"
                 + KERNEL.format("o[0] = 1;"))
