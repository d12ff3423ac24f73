"""What nvcc refuses in device code and g++ cannot know is refused on the simulator too
(compile/device_rules.py, and -Werror=vla): a call of the learner's own function declared without
__device__, a kernel called like a function, a variable of the host's read, a __shared__
variable's initializer, a local array sized at run time. Each source below is compiled by nvcc and by the simulator, and both must give
the same verdict; a refusal is a CompileError whose record names the mistake."""

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
}


def _nvcc_compiles(nvcc, accepted, text, tmp_path):
    """Whether nvcc compiles ``text``: its answer kept in the compile cache for this nvcc and
    this text, either way (a refusal too, which kernel_sources.nvcc_verdict compiles again)."""
    kept, this_nvcc = accepted
    answer = kept / ("rules-" + hashlib.sha256(f"{this_nvcc}\0{text}".encode()).hexdigest())
    if not answer.is_file():
        (tmp_path / "k.cu").write_text(f'extern "C" {{\n{text}}}\n')
        p = subprocess.run([nvcc, "-arch=sm_90", "-c", str(tmp_path / "k.cu"), "-o",
                            str(tmp_path / "k.o")], capture_output=True, text=True, timeout=300)
        answer.write_text("compiles" if p.returncode == 0 else "refused")
    return answer.read_text() == "compiles"


def _refused_as(text):
    """None where the simulator compiles ``text``, else its first record's kind."""
    try:
        SourceModule(text)
    except CompileError as err:
        return err.diagnostics[0].kind if err.diagnostics else "no record"
    return None


@pytest.mark.parametrize("name", sorted(SOURCES))
def test_the_simulator_refuses_what_nvcc_refuses_with_the_mistake_s_record(name, nvcc, accepted,
                                                                          tmp_path):
    text, kind = SOURCES[name]
    assert _nvcc_compiles(nvcc, accepted, text, tmp_path) == (kind is None), "nvcc's verdict changed"
    assert _refused_as(text) == kind


def test_the_record_names_the_function_its_caller_and_the_learner_s_line():
    text = "// a helper\nfloat twice(float x) { return 2 * x; }\n\n" + KERNEL.format("\n  o[0] = twice(o[0]);\n")
    with pytest.raises(CompileError) as caught:
        SourceModule(text)
    (record,) = caught.value.diagnostics
    assert (record.kind, record.names, record.line) == (diagnosed.HOST_FUNCTION, ("twice", "k"), 5)
    assert "kernel.cu:5: error: k calls twice(), a host function" in str(caught.value)
