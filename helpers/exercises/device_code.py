"""The verdicts on what nvcc refuses in device code and the simulator refuses with it
(helpers/sim/compile/device_rules.py, and g++'s -Werror=vla): a call of the learner's own
function declared without __device__ (a member function, a constructor), the C++ standard
library (std::vector, std::swap), a kernel called like a function or returning a value, try and
throw, a __constant__ variable's initializer that calls a function, a variable of the host's read, a __shared__ variable's initializer, a local array sized at
run time; and what compile/learner_text.py refuses in the learner's text (code run at load, a
section attribute, a #line or #include outside the course, the runtime's names, stdout).
Each reads its record's fields (diagnosed.py)."""

from __future__ import annotations

import re

from helpers.sim.compile import learner_text as said
from helpers.sim.compile.standard_library import library_advice


def host_function(d, where, source):
    name, caller = (d.names + ("it", "the kernel"))[:2]
    struct, _, member = name.rpartition("::")
    if struct and member == struct:
        return (f"{where} constructs a {struct}, whose constructor is declared without "
                f"__device__: a host function, which {caller}, device code, cannot call",
                f"declare the constructor __device__ {struct}(...) (or __host__ __device__ to "
                "construct one on both sides)")
    if struct:
        return (f"{where} calls {member}, a member function of {struct} declared without "
                f"__device__: a host function, which {caller}, device code, cannot call",
                f"declare it __device__ in {struct}: __device__ float {member}(...) (or __host__ "
                "__device__ to call it from both sides)")
    return (f"{where} calls {name}, which is declared without __device__: a host function, "
            f"which {caller}, device code, cannot call", f"declare it __device__ float "
            f"{name}(...) (or __host__ __device__ to call it from both sides)")


def host_library(d, where, source):
    name, caller = (d.names + ("std::it", "the kernel"))[:2]
    return (f"{where}: {caller} uses {name}, from the C++ standard library, which is host code "
            "that device code cannot call", library_advice(name))


def kernel_returns(d, where, source):
    kernel, returned = (d.names + ("the kernel", "a value"))[:2]
    return (f"{where} declares the kernel {kernel} to return {returned}: a kernel returns "
            "nothing, as a launch has no caller to hand a value to",
            f"declare it __global__ void {kernel}(...) and store each result in the output array "
            "(out[i] = ...), which the host copies back")


def dynamic_initializer(d, where, source):
    variable, called = (d.names + ("it", "a function"))[:2]
    return (f"{where}: the initializer of {variable} calls {called}(), and a __device__ or "
            "__constant__ variable takes only a constant: its memory is set when the module "
            "loads, before any code runs", f"write the value as a number, or set {variable} "
            "from the host before the launch")


def exception(d, where, source):
    word, caller = (d.names + ("try", "the kernel"))[:2]
    return (f"{where}: {caller} uses {word}, and device code has no exceptions: a GPU thread "
            "cannot throw or catch", "test for the problem with if and return from the thread "
            "there (or assert(condition) to stop the kernel with an error)")


def kernel_called(d, where, source):
    name, caller = (d.names + ("it", "the kernel"))[:2]
    return (f"{where} calls the kernel {name} like a function, from {caller}: a kernel is "
            "launched from the host, with its block and grid",
            f"move the work both need into a __device__ function, and call that from {caller} "
            f"and {name}")


def host_variable(d, where, source):
    name, reader = (d.names + ("it", "the kernel"))[:2]
    return (f"{where}: {reader} reads {name}, a variable declared outside any function without "
            "__device__ or __constant__: it lives in the host's memory, which device code cannot "
            "reach", f"declare it __constant__ (read-only, the same for every thread: "
            f"__constant__ float {name}[...] = {{...}};), or pass it to the kernel")


def shared_initializer(d, where, source):
    name = (d.names or ("it",))[0]
    return (f"{where} gives the __shared__ variable {name} an initializer: a block's shared "
            "memory starts undefined, and no initializer runs in it",
            f"declare {name} without one, set it from one thread (if (threadIdx.x == 0) "
            f"{name} = ...;), then __syncthreads() before the others read it")


def variable_length_array(d, where, source):
    name = (d.names or ("the array",))[0]
    lines = source.splitlines()
    text = lines[d.line - 1] if 0 < d.line <= len(lines) else ""
    size = re.search(rf"\b{re.escape(name)}\s*\[([^\]]+)\]", text)
    by = f" by {size[1].strip()}," if size else ""
    return (f"{where} sizes the local array {name}{by} a value known only when the kernel runs: "
            "the size of an array must be a constant the compiler knows",
            f"size it with a constant (#define N 256, then {name}[N]), as large as any thread "
            "needs")


def load_code(d, where, source):
    named = (d.names or ("code",))[0]
    runs = "runs code" if named == "load" else f"has {named}, which runs code"
    return (f"{where} {runs} when the module loads or unloads, outside any kernel: a GPU runs "
            "code only in a launched kernel (nvcc refuses a __device__ variable whose constructor "
            "runs code)",
            "do that work in the kernel, and give each __device__ variable a plain type or a "
            "constant value")


def section(d, where, source):
    return (f"{where} gives a section attribute: where code and data lie is the compiler's "
            "choice, not device code's", "delete __attribute__((section(...)))")


def line_directive(d, where, source):
    return (f"{where}: {(d.names or ('#line',))[0]} names a file of the simulator's own, so your "
            "lines would be taken for its own", "delete the #line directive")


def include(d, where, source):
    return (f"{where}: {(d.names or ('#include',))[0]} reads a file outside the course's folders",
            "include only CUDA's and C++'s headers by name (#include <mma.h>) and files beside "
            "your .cu (#include \"helpers.h\")")


def runtime_name(d, where, source):
    return (f"{where} uses {(d.names or ('sim::',))[0]}, a name of the simulator's own runtime, "
            "which a kernel on a GPU does not have", "use CUDA's own names (threadIdx, "
            "__syncthreads(), atomicAdd, printf, ...)")


def host_object(d, where, source):
    named = (d.names or ("stdout",))[0]
    return (f"{where} uses {named}, an object of the host's C library that device code does "
            "not have", "print with printf(...), device code's only output")


RULES = {said.LOAD_CODE: load_code, said.SECTION: section, said.LINE_DIRECTIVE: line_directive,
         said.INCLUDE: include, said.RUNTIME_NAME: runtime_name, said.HOST_OBJECT: host_object}
"""The rule for each of the refusals of compile/learner_text.py, by its record's kind."""
