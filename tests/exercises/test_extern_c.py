"""A learner's .cu file that says extern "C" itself is compiled as it stands, as
SourceModule(source, no_extern_c=True) compiles it, so that C++ (a template, cooperative_groups.h)
passes a checker; without it, the verdict names the C++ and says to write extern "C"
(helpers/exercises/extern_c.py; blind audit AU: right kernels refused with "read the compiler's
first error")."""

import pytest

from kernel_sources import solution, stable_file, variant

from helpers.exercises import extern_c
from helpers.exercises import multiply_vectors, scale_vector

TEMPLATE = ("template <typename T>\n__device__ T scaled(T a, T v) { return a * v; }\n\n",
            [("y[i] = alpha * x[i];", "y[i] = scaled<float>(alpha, x[i]);")])
GROUPS = ("#include <cooperative_groups.h>\nnamespace cg = cooperative_groups;\n\n",
          [("int i = blockIdx.x * blockDim.x + threadIdx.x;",
            "cg::thread_block block = cg::this_thread_block();\n"
            "    int i = block.group_index().x * block.size() + block.thread_rank();")])
CASES = {"scale_vector": (scale_vector.check_scale_vector, *TEMPLATE,
                          "line 1 declares a template, which is C++ (C has no templates)"),
         "multiply_vectors": (multiply_vectors.check_multiply_vectors, *GROUPS,
                              "line 1 includes cooperative_groups.h, which is C++")}


def test_a_file_is_compiled_as_it_stands_where_its_code_says_extern_c():
    assert extern_c.as_it_stands('extern "C" __global__ void k() {}', False)
    assert extern_c.as_it_stands('extern  "C" {\n__global__ void k() {}\n}', False)
    assert extern_c.as_it_stands("__global__ void k() {}", True)   # the exercise's own choice
    for elsewhere in ('// extern "C" __global__ void k() {}', '/* extern "C" */',
                      'const char *s = "extern \\"C\\"";', "__global__ void k() {}"):
        assert not extern_c.as_it_stands(elsewhere, False), elsewhere


@pytest.mark.parametrize("exercise", CASES)
def test_cpp_is_named_inside_the_wrapper_and_passes_with_the_kernel_extern_c(exercise, capsys):
    check, head, replacements, named = CASES[exercise]
    body = variant(solution(f"{exercise}.cu"), *replacements)
    refused = check(stable_file(f"{exercise}_cpp.cu", head + body))
    assert refused.passed is False and "does not compile" in refused.problem, refused
    assert named in refused.problem and 'write extern "C" before your kernel' in refused.hint
    as_it_stands = head + body.replace("__global__", 'extern "C" __global__', 1)
    assert check(stable_file(f"{exercise}_cpp_extern_c.cu", as_it_stands)).passed is True, \
        capsys.readouterr().out
