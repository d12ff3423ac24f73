"""What device code may call (helpers/sim/compile/device_calls.py): a built module's undefined
symbols against CUDA's allow-list, so that a kernel calling the operating system (open, fork,
kill, sleep) or entering it with an asm statement is refused with the line of the call, as nvcc
refuses it. The refusals run on whichever backend helpers.backend chose: on a GPU nvcc says the
same; the lists themselves need no compile."""

import re

import numpy as np
import pytest

from helpers.backend import BACKEND, SourceModule, drv, gpuarray
from helpers.sim.compile import device_calls

# POSIX's functions: not in the C library's list the prelude refuses by name, so the simulator finds
# them among the built object's undefined symbols.
# (Four calls, one of each kind: each refusal is a compile, a link and a rebuild with lines.)
POSIX_CALLS = ['open("/tmp/escaped", O_WRONLY | O_CREAT, 0600)', "fork()", "kill(0, SIGKILL)",
               "sleep(1)"]


@pytest.mark.parametrize("call", POSIX_CALLS, ids=lambda c: c.split("(")[0])
def test_a_posix_call_in_a_kernel_is_a_compile_error_that_names_its_line(call, tmp_path):
    name = call.split("(")[0]
    src = (f'#line 1 "posix.cu"\n#include <fcntl.h>\n#include <signal.h>\n#include <unistd.h>\n'
           f"__global__ void k(int *x) {{\n    if (x[0]) {call};\n}}\n")
    with pytest.raises(drv.CompileError) as err:
        SourceModule(src, cache_dir=str(tmp_path))  # a cache of its own: the compiler at work
    text = str(err.value)
    assert f'calling a __host__ function("{name}")' in text, text
    assert re.search(r"posix\.cu[:(]\s*5\b", text), text
    if BACKEND == "simulator":  # the facts, for checkers and the grader
        assert (err.value.function, err.value.file, err.value.line) == (name, "posix.cu", 5)


@pytest.mark.skipif(BACKEND != "simulator", reason="x86-64 assembly: nvcc reads asm as PTX")
def test_an_asm_system_call_in_a_kernel_is_refused(tmp_path):
    src = ('#line 1 "asm.cu"\n__global__ void k(long *x) {\n    long r;\n'
           '    asm volatile("syscall" : "=a"(r) : "a"(39L) : "rcx", "r11", "memory");\n'
           "    x[0] = r;\n}\n")
    with pytest.raises(drv.CompileError) as err:
        SourceModule(src, cache_dir=str(tmp_path))
    assert (err.value.function, err.value.line) == ("syscall", 3), str(err.value)


def test_what_device_code_may_call_compiles_and_runs():
    src = r"""
    __global__ void allowed(float *x, int *out) {
        int *p = (int *)malloc(4 * sizeof(int));
        memset(p, 0, 4 * sizeof(int));
        p[1] = 5;
        memcpy(out, p, 4 * sizeof(int));
        free(p);
        assert(out[1] == 5);
        int *q = new int[2];
        q[0] = (int)(clock() >= 0);
        x[0] = sqrtf(x[0]) + expf(0.0f) + fabsf(-1.0f) + (float)(clock64() >= 0) + labs(-2L)
               + (float)(sin(0.0) + pow(2.0, 0.0)) - q[0];
        delete[] q;
        if (x[0] < 0) printf("%f\n", x[0]);
    }
    """
    x, out = gpuarray.to_gpu(np.array([4.0], np.float32)), gpuarray.zeros(4, np.int32)
    SourceModule(src).get_function("allowed")(x, out, block=(1, 1, 1))
    assert x.get()[0] == 7 and out.get().tolist() == [0, 5, 0, 0]


def test_the_allow_list_has_cudas_math_in_every_precision_and_no_system_call():
    for name in ("sinf", "sin", "sinl", "rsqrtf", "norm3df", "cabsf", "malloc", "printf",
                 "__assert_fail"):
        assert name in device_calls.ALLOWED, name
    for name in ("open", "fork", "system", "sleep", "kill", "socket", "fopen", "rand"):
        assert name not in device_calls.ALLOWED and not device_calls._ALLOWED_PATTERN.match(name)
    for name in ("_ZN3sim6launchEv", "__tsan_read4", "__divti3", "__powidf2"):
        assert device_calls._ALLOWED_PATTERN.match(name), name  # runtime, libgcc
    for name in ("_Znwm", "_Znam", "_ZdlPv", "_ZdaPv", "_ZnwmSt11align_val_t"):
        # the grid runner's (sim_grid.h: a kernel's new takes the device heap), never libstdc++'s,
        # whose new took the machine's memory unmetered (audit AV, a16)
        assert not device_calls._ALLOWED_PATTERN.match(name), name


def test_a_refused_function_is_named_as_the_learner_wrote_it_with_advice_for_its_use():
    assert device_calls.readable("open64") == "open" and device_calls.readable("fork") == "fork"
    assert device_calls.readable("_ZNSt6thread4joinEv") == "std::thread::join"
    assert [device_calls.group(n) for n in ("usleep", "drand48", "time", "fork")] == [
        "time", "random", "time", "system"]


# ---- what the object runs at load, and code in any section (audit AV: a01, a02, a03, a30) ----------
SCALE = "__global__ void k(float *x) { x[0] = 1; }\n"


@pytest.mark.skipif(BACKEND != "simulator", reason="the simulator's own object check")
@pytest.mark.parametrize("attribute", ["constructor", "destructor"])
def test_a_function_run_at_load_or_unload_is_refused_however_spelled(attribute, tmp_path):
    """A macro spells the attribute, past the text's check: the object's .init_array (or
    .fini_array) holds a second entry, and nothing of the learner's runs when it loads."""
    src = (f"#define WHEN {attribute[:4]}##{attribute[4:]}\n#define AT(w) __attribute__((w))\n"
           "#define RUN(w) AT(w)\nRUN(WHEN) static void at_load(void) { __builtin_trap(); }\n"
           + SCALE)
    with pytest.raises(drv.CompileError) as err:
        SourceModule(src, cache_dir=str(tmp_path))
    assert "runs code of its own when the module loads" in str(err.value)
    assert err.value.diagnostics[0].kind == "code run at load"


# Variables whose constructors run code, where the text's check does not look for them: inside a
# namespace, of a template struct, or beside <iostream>'s own initialiser (one function with it).
CONSTRUCTED = {
    "in_a_namespace": "namespace { struct R { R() { printf(\"loaded\\n\"); } } r; }\n",
    "of_a_template": ("template <typename T> struct S { S() { printf(\"loaded\\n\"); } };\n"
                      "__device__ S<int> s;\n"),
    "beside_iostream": ("#include <iostream>\nnamespace n { struct R { R() { printf(\"loaded\\n\"); } };"
                        "\nR r; }\n"),
}


@pytest.mark.skipif(BACKEND != "simulator", reason="the simulator's own object check")
@pytest.mark.parametrize("name", sorted(CONSTRUCTED))
def test_a_variable_constructed_at_load_is_refused_wherever_it_is_declared(name, tmp_path, capfd):
    """The simulator's own object runs nothing at load (its table of kernels is constant-
    initialised), so any initialiser of the learner's is refused, as nvcc refuses dynamic
    initialisation, and nothing of theirs runs."""
    src = CONSTRUCTED[name] + 'extern "C" ' + SCALE
    with pytest.raises(drv.CompileError) as err:
        SourceModule(src, cache_dir=str(tmp_path), no_extern_c=True)
    assert err.value.diagnostics[0].kind == "code run at load", str(err.value)
    assert "loaded" not in capfd.readouterr().out


@pytest.mark.skipif(BACKEND != "simulator", reason="x86-64 machine code")
@pytest.mark.parametrize("section", [".text.av_code", ".gnu.linkonce.t.av"])
def test_machine_code_placed_among_the_instructions_is_refused_without_asm(section, tmp_path):
    """a03: a system call's bytes as an array in a section the linker puts among the
    instructions (the attribute spelled by pasting, past the text's check), called through a
    pointer: no asm, no undefined symbol."""
    src = ('#define PLACE(s) __attribute__((sec##tion(s), aligned(16)))\n'
           f'__device__ PLACE("{section}") const unsigned char code[] = '
           "{0x48, 0x89, 0xf8, 0x0f, 0x05, 0xc3};\n"
           "__global__ void k(long *x) { x[0] = ((long (*)(long))(void *)code)(39); }\n")
    with pytest.raises(drv.CompileError) as err:
        SourceModule(src, cache_dir=str(tmp_path))
    assert err.value.function == "syscall", str(err.value)


@pytest.mark.skipif(BACKEND != "simulator", reason="the simulator's own object check")
def test_a_call_from_a_startup_section_is_no_longer_excused(tmp_path):
    """a02: open() from a function the learner placed in .text.startup (the section spelled by
    pasting): every section's calls are checked."""
    src = ("#include <fcntl.h>\n#define PLACE(s) __attribute__((noinline, sec##tion(s)))\n"
           '__device__ PLACE(".text.startup.av") void note(int i) '
           '{ if (i == 7) open("/tmp/canary_AV4_02", O_WRONLY | O_CREAT, 0644); }\n'
           "__global__ void k(int *x) { note(x[0]); }\n")
    with pytest.raises(drv.CompileError) as err:
        SourceModule(src, cache_dir=str(tmp_path))
    assert err.value.function == "open", str(err.value)


def test_iostream_and_printf_still_compile():
    """<iostream>'s static initialiser is the module's own one entry; printf no longer names
    stdout in the learner's object (the runner's device_vprintf does)."""
    SourceModule('#include <iostream>\nextern "C" __global__ void k(float *x) '
                 '{ printf("%f\\n", x[0]); }\n', no_extern_c=True)
