"""C++ inside the extern "C" { } that SourceModule wraps around a source
(helpers/sim/compile/linkage.py): a header's templates, the learner's own template or overload,
each an ExternCError with its record; with no_extern_c=True the same source compiles."""

import pytest

from helpers.sim import errors
from helpers.sim.compile import linkage
from helpers.sim.compile.diagnosed import C_LINKAGE
from helpers.sim.compile.source import INCLUDE_DIR
from helpers.sim.compiler import SourceModule


def test_a_cpp_header_inside_extern_c_names_the_header_and_the_include():
    header = INCLUDE_DIR / "cooperative_groups.h"
    stderr = ("In file included from mine.cu:3:\n"
              f"{header}:34:1: error: template with C linkage\n"
              "/tmp/cuda-sim-x/module.cpp:3:1: note: 'extern \"C\"' linkage started here\n")
    e = linkage.c_linkage_error("kernel.cu", stderr)
    assert isinstance(e, errors.ExternCError)
    assert (e.header, e.file, e.line) == ("cooperative_groups.h", "mine.cu", 3)
    assert [(d.kind, d.file, d.line, d.names) for d in e.diagnostics] == \
        [(C_LINKAGE, "mine.cu", 3, ("cooperative_groups.h",))]
    assert linkage.c_linkage_error("kernel.cu", "mine.cu:2:1: error: expected ';'\n") is None


@pytest.mark.parametrize("stderr, line, construct", [
    ("mine.cu:2:1: error: template with C linkage\n", 2, "template"),
    ("mine.cu:5:5: error: conflicting declaration of C function 'int f(int)'\n", 5,
     "overloaded function"),
])
def test_the_learners_own_cpp_inside_extern_c_is_named_at_its_line(stderr, line, construct):
    e = linkage.c_linkage_error("kernel.cu", stderr)
    assert (e.header, e.file, e.line) == (None, "mine.cu", line)
    assert e.diagnostics[0].names == (construct,)
    assert f"mine.cu:{line}: error:" in str(e) and "no_extern_c=True" in str(e)


SOURCES = {
    "template": "template <typename T> __device__ T twice(T v) { return v + v; }\n",
    "overloaded function": "__device__ float twice(float v) { return v + v; }\n"
                           "__device__ int twice(int v) { return v + v; }\n",
    "cooperative_groups.h": "#include <cooperative_groups.h>\n",
}
KERNEL = "__global__ void k(float *x) { x[threadIdx.x] = twice(x[threadIdx.x]); }\n"


@pytest.mark.parametrize("construct", SOURCES)
def test_cpp_compiles_as_it_stands_with_its_kernel_extern_c(construct):
    helper = SOURCES[construct] + ("" if construct != "cooperative_groups.h" else
                                   "__device__ float twice(float v) { return v + v; }\n")
    with pytest.raises(errors.ExternCError) as refused:
        SourceModule(helper + KERNEL)
    assert refused.value.diagnostics[0].names == (construct,)
    assert refused.value.diagnostics[0].line == (2 if construct == "overloaded function" else 1)
    SourceModule(helper + 'extern "C" ' + KERNEL, no_extern_c=True).get_function("k")
