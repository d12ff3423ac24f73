"""What a learner's .cu may not say (helpers/sim/compile/learner_text.py), refused before the
library the simulator builds from it is loaded into the notebook's (or checker's) process: code
run at load or unload, a section attribute, a #line naming the simulator's files, an #include
outside the course's folders, the runtime's own names, the C library's host objects. Each attack
of audit AV (/work/audit/scratch_AVA) is a CompileError whose record names it, with the learner's
line; nothing of it ran."""

import os

import pytest

from helpers.sim.compile import learner_text
from helpers.sim.compiler import SourceModule
from helpers.sim.errors import CompileError

KERNEL = ("__global__ void scale_vector(const float *x, float *y, float alpha, int n)\n"
          "{ int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) y[i] = alpha * x[i]; }\n")
ATTACKS = {  # name: (the learner's text before the kernel, the record's kind, its line)
    "constructor_attribute": (  # a01: open() called when the library loads
        'extern "C++" {\nextern int av_open(const char *, int, ...) __asm__("open");\n'
        "__attribute__((constructor)) static void av_ctor(void)\n"
        '{ av_open("/tmp/canary_AV4_01", 0101 | 01000, 0644); }\n}\n', learner_text.LOAD_CODE, 3),
    "destructor_attribute": (  # a30
        "#include <fcntl.h>\n__attribute__((destructor)) static void bye(void)\n"
        '{ open("/tmp/canary_AV4_30", O_WRONLY | O_CREAT, 0644); }\n', learner_text.LOAD_CODE, 2),
    "device_variable_constructed_with_a_trap": (  # a05: SIGILL inside dlopen
        "struct Boom { __device__ Boom() { __builtin_trap(); } };\n__device__ Boom boom;\n",
        learner_text.LOAD_CODE, 2),
    "device_variable_constructed_spinning": (  # a06: dlopen never returns
        "struct Spin { __device__ Spin() { volatile int k = 1; while (k) { } } };\n"
        "__device__ Spin spin;\n", learner_text.LOAD_CODE, 2),
    "host_variable_constructed_spinning": (  # the same outside __device__: run inside dlopen
        "struct Spin { Spin() { volatile int k = 1; while (k) { } } };\nstatic Spin spin(1);\n",
        learner_text.LOAD_CODE, 2),
    "section_attribute": (  # a02, a03: a section name the symbol check trusted
        '__device__ __attribute__((noinline, section(".text.startup.av"))) void note(int i) {}\n',
        learner_text.SECTION, 1),
    "line_naming_the_prelude": (  # a14: the race check took the learner's code for the runtime's
        '#line 1 "/cuda-sim-include/sim_extra.h"\n', learner_text.LINE_DIRECTIVE, 1),
    "gnu_line_marker_naming_the_prelude": ('# 1 "/cuda-sim-include/sim_extra.h"\n',
                                           learner_text.LINE_DIRECTIVE, 1),
    "line_naming_a_system_header": ('#line 1 "/usr/include/stdio.h"\n',
                                    learner_text.LINE_DIRECTIVE, 1),
    "line_naming_no_file": ('#line 1 "??"\n', learner_text.LINE_DIRECTIVE, 1),
    "line_naming_the_generated_unit": ('#line 1 "/tmp/cuda-sim-x/module.cpp"\n',
                                       learner_text.LINE_DIRECTIVE, 1),
    "line_named_by_a_macro": ('#define F "/cuda-sim-include/x.h"\n#line 1 F\n',
                              learner_text.LINE_DIRECTIVE, 2),
    "include_by_absolute_path": ('#include "/etc/hostname"\n', learner_text.INCLUDE, 1),  # a23b
    "include_leaving_the_folder": ('#include "../../solutions/scale_vector.cu"\n',
                                   learner_text.INCLUDE, 1),  # a22
    "include_named_by_a_macro": ('#define H "/etc/hostname"\n#include H\n', learner_text.INCLUDE, 2),
    "asm_incbin": ('asm(".section .rodata\\nsecret: .incbin \\"/etc/hostname\\"\\n.previous");\n',
                   learner_text.INCLUDE, 1),
    "runtime_namespace": (  # a18, a19: the runtime's cancel guard and escape buffer
        "__device__ void hold() { sim::hold_cancel(sim::worker); }\n", learner_text.RUNTIME_NAME, 1),
    "runtime_namespace_aliased": ("namespace s = sim;\n", learner_text.RUNTIME_NAME, 1),
    "runtime_namespace_by_a_macro": ("#define NS sim\n", learner_text.RUNTIME_NAME, 1),
    "runtime_namespace_over_a_line_splice": (  # the preprocessor joins si\ and m:: into sim::
        "__device__ void hold() { si\\\nm::hold_cancel(0); }\n", learner_text.RUNTIME_NAME, 1),
    "runtime_namespace_undefined": ("#undef sim\n", learner_text.RUNTIME_NAME, 1),
    "runtime_namespace_by_a_spliced_define": ("#def\\\nine NS sim\n", learner_text.RUNTIME_NAME, 1),
    "runtime_function_declared": (  # a C function of the runtime's, which Python calls
        'extern "C" __device__ void sim_launch_cancel(void *);\n', learner_text.RUNTIME_NAME, 1),
    "runtime_symbol_by_an_asm_label": (
        'extern "C++" char av_worker __asm__("_ZN3sim6workerE");\n', learner_text.RUNTIME_NAME, 1),
    "runtime_reserved_name": ("__device__ void f() { __sim_printf(\"x\"); }\n",
                              learner_text.RUNTIME_NAME, 1),
    "stdout": (  # a24: the runtime's fflush(stdout) dereferenced junk
        "__device__ void clobber() { stdout = (FILE *)(void *)16; }\n", learner_text.HOST_OBJECT, 1),
}


@pytest.mark.parametrize("name", ATTACKS)
def test_an_attack_in_the_learners_text_is_refused_with_its_line(name, tmp_path):
    before, kind, line = ATTACKS[name]
    with pytest.raises(CompileError) as err:
        SourceModule('#line 1 "attack.cu"\n' + before + KERNEL, cache_dir=str(tmp_path))
    (record,) = err.value.diagnostics
    assert (record.kind, record.file, record.line) == (kind, "attack.cu", line), str(err.value)
    assert not [f for f in os.listdir("/tmp") if f.startswith("canary_AV4_")]


PASTED = {  # the runtime's names pasted together by a macro: only the preprocessor shows them
    "qualified": "__device__ void hold() { CAT(si, m)::hold_cancel(0); }\n",
    "aliased": "namespace s = CAT(si, m);\n",
    "used": "using namespace CAT(si, m);\n",
    "function": 'extern "C" __device__ void CAT(sim_, launch_cancel)(void *);\n',
}


@pytest.mark.parametrize("name", PASTED)
def test_the_runtimes_names_pasted_together_by_a_macro_are_refused(name, tmp_path):
    with pytest.raises(CompileError) as err:
        SourceModule('#line 1 "attack.cu"\n#define CAT(a, b) a##b\n' + PASTED[name] + KERNEL,
                     cache_dir=str(tmp_path))
    (record,) = err.value.diagnostics
    assert (record.kind, record.file, record.names[0].split()[-1].rstrip(":")) == (
        learner_text.RUNTIME_NAME, "attack.cu", "sim_launch_cancel" if name == "function" else "sim"
    ), str(err.value)


def test_a_name_sim_of_the_learners_own_compiles_beside_the_courses_headers(tmp_path):
    """The scan's stand-in for sim (source.SIM_IN_THE_SCAN) is put back, and the headers a
    learner includes keep the runtime's sim: a variable named sim, one pasted together, and a
    macro continued over two lines compile."""
    src = ("#include <cuda_fp16.h>\n#include <mma.h>\n#define CAT(a, b) a##b\n"
           "#define TWICE(x) \\\n    (2 * (x))\n"
           'extern "C" __global__ void k(float *y) { float sim = 1.0f, CAT(si, m2) = 2.0f;\n'
           "    y[0] = TWICE(sim + sim2) + __half2float(__float2half(1.0f)); }\n")
    SourceModule(src, no_extern_c=True, cache_dir=str(tmp_path)).get_function("k")


def test_a_notebooks_source_cannot_name_itself_the_preludes():
    """With no file of its own, the source's first #line is its name: not one of the prelude's."""
    with pytest.raises(CompileError) as err:
        learner_text.checked('#line 1 "/cuda-sim-include/sim_extra.h"\n' + KERNEL)
    assert err.value.diagnostics[0].kind == learner_text.LINE_DIRECTIVE


@pytest.mark.parametrize("text", [
    "#include <cuda_fp16.h>\n#include <mma.h>\n#include <cstdio>\n",
    '#line 40 "my_kernel.cu"\n',  # a #line naming the learner's own file
    "struct Point { float x, y; };\n__device__ Point origin;\n",
    "struct P { __device__ P() {} };\n__device__ P p;\n",  # an empty constructor, as nvcc allows
    "struct S { __device__ S(int v) : x(v) { x += 1; } int x; };\n"  # a local: at kernel time
    "__device__ S made(int v) { S s(v); return s; }\n",
    "// sim::worker, stdout, __attribute__((constructor)) in a comment\n"
    '__device__ const char *words = "sim:: and stdout in a string";\n',
    "__device__ float similarity(float simulated) { return simulated; }\n",
    "#define SQUARE(x) \\\n    ((x) * (x))\n",  # a macro continued on the next line
])
def test_what_right_code_says_passes(text):
    assert learner_text.checked(text + KERNEL) == text + KERNEL
