"""The CompileErrors of device_rules.py: each rule's refusal in nvcc's words, then what to do,
at the learner's line (found again in the text as given: the rules read it after the
preprocessor), with its record (diagnosed.py) for the checkers."""

import re

from ..errors import CompileError
from .diagnosed import (DYNAMIC_INIT, EXCEPTION, HOST_FUNCTION, HOST_LIBRARY, HOST_VARIABLE,
                        KERNEL_CALLED, KERNEL_RETURNS, QUALIFIERS, SHARED_INITIALIZER, THREAD_LOCAL,
                        Diagnostic)
from .kernel_text import NOT_A_TYPE
from .source import numbered_lines
from .standard_library import library_advice


def _refusal(what, where, said, kind, names):
    """The CompileError that ``said`` at ``where`` ((file, line) of the learner's, or (None,
    None)), with its record of ``kind`` naming ``names``: in the learner's file ``what`` where
    no line was found (the checkers say "your file")."""
    file, line = where
    at = f"{file}:{line}: " if file else ""
    err = CompileError(f"simulator compilation of {what} failed\n{at}error: {said}", None)
    err.diagnostics = (Diagnostic(file or what, line, None, kind, names),)
    return err


def _first_line(source, matches):
    """(file, line) of the first line of ``source`` whose text ``matches``, else (None, None)."""
    return next(((f, n) for f, n, text in numbered_lines(source) if matches(text)), (None, None))


def _a_call(text, name):
    """A line of ``text`` calls ``name`` (rather than declares it: float twice(float x)), after
    an operator, a statement's start or an if's condition (not an attribute's arguments)."""
    for m in re.finditer(rf"\b{re.escape(name)}\s*\(", text):
        before = text[:m.start()].rstrip()
        if re.search(r"\b(__launch_bounds__|__attribute__|alignas)\s*\(.*\)$", before):
            continue
        word = re.search(r"(\w+)\W*$", before)
        if not before or before[-1] in "=(,+-*/%<>!&|?:[{;)" and not before.endswith(("*", "&")) \
                or word and word[1] in NOT_A_TYPE:
            return True
    return False


def host_function_error(what, name, caller, source):
    """``name``: a free function's (twice), a member function's (Point::norm) or a
    constructor's (Point::Point)."""
    struct, _, member = name.rpartition("::")
    if struct and member == struct:
        kept = re.escape(struct)
        matches = re.compile(rf"\b{kept}\s+\w+\s*[({{]|([=(,?:]|return)\s*{kept}\s*[({{]").search
        said = f"{caller} constructs a {struct}, whose constructor is declared without __device__"
        fix = f"declare the constructor __device__ (__device__ {struct}(...)), or __host__ __device__ " \
              "to construct one on both sides"
    elif struct:
        matches = re.compile(rf"(\.|->)\s*{re.escape(member)}\s*\(").search
        said = f"{caller} calls {member}(), a member function of {struct} declared without __device__"
        fix = f"declare it __device__ in {struct} (__device__ float {member}(...)), or __host__ " \
              "__device__ to call it from both sides"
    else:
        matches = lambda text: _a_call(text, name)  # noqa: E731
        said = f"{caller} calls {name}(), a host function: {name} is declared without __device__"
        fix = f"declare it __device__ (__device__ float {name}(...)), or __host__ __device__ to " \
              "call it from both sides"
    return _refusal(
        what, _first_line(source, matches),
        f"{said}, so device code cannot call it (nvcc: calling a __host__ function(\"{name}\") from "
        f"a __global__ function is not allowed).\nnote: {fix}.", HOST_FUNCTION, (name, caller))


def host_library_error(what, name, caller, source):
    used = re.compile(rf"\bstd\s*::\s*{re.escape(name.split('::')[1])}\b")
    return _refusal(
        what, _first_line(source, used.search),
        f"{caller} uses {name}, from the C++ standard library, which is host code: device code "
        "cannot call it (nvcc: calling a __host__ function from a __global__ function is not "
        f"allowed).\nnote: {library_advice(name)}.", HOST_LIBRARY, (name, caller))


def kernel_returns_error(what, kernel, returned, source):
    declared = re.compile(rf"__global__.*\b{re.escape(kernel)}\s*\(")
    return _refusal(
        what, _first_line(source, declared.search),
        f"the kernel {kernel} is declared to return {returned} (nvcc: a __global__ function must "
        "have a void return type): a launch has no caller to hand a value to.\nnote: declare it "
        f"__global__ void {kernel}(...), and write each result into an output array the host "
        "passes in (out[i] = ...), which the host copies back.", KERNEL_RETURNS, (kernel, returned))


def exception_error(what, word, caller, source):
    used = re.compile(rf"\b{word}\b")
    return _refusal(
        what, _first_line(source, used.search),
        f"{caller} uses {word} (nvcc: device code does not support exception handling): a GPU "
        "thread cannot throw or catch.\nnote: test for the problem with if, and stop the thread "
        "with return, or stop the kernel with an error with assert(condition).",
        EXCEPTION, (word, caller))


def kernel_called_error(what, name, caller, source):
    return _refusal(
        what, _first_line(source, lambda text: _a_call(text, name)),
        f"{caller} calls the kernel {name} like a function (nvcc: a __global__ function call "
        "must be configured): a kernel is launched from the host, with its block and grid.\n"
        f"note: put the work both need in a __device__ function, and call that from {caller} and "
        f"from {name}.", KERNEL_CALLED, (name, caller))


def host_variable_error(what, name, reader, source):
    used = re.compile(rf"\b{re.escape(name)}\b")
    lines = [(f, n) for f, n, text in numbered_lines(source) if used.search(text)]
    return _refusal(
        what, lines[1] if len(lines) > 1 else lines[0] if lines else (None, None),
        f"{reader} reads {name}, a variable declared outside any function without __device__ or "
        f"__constant__: it lives in the host's memory, which device code cannot reach (nvcc: "
        f"identifier \"{name}\" is undefined in device code).\nnote: declare it __constant__ "
        f"(the same for every thread, read-only: __constant__ float {name}[...] = {{...}};) or "
        "__device__, or pass it to the kernel; a const number (const int N = 8;) may stay, a "
        "const array may not.",
        HOST_VARIABLE, (name, reader))


def shared_initializer_error(what, tokens, i, source):
    names = [t.text for t in tokens[i + 1:] if t.kind == "word"]
    j = next((k for k in range(i + 1, len(tokens)) if tokens[k].text in ("=", "{", "[")), i + 2)
    name = tokens[j - 1].text if tokens[j - 1].kind == "word" else (names[-1] if names else "?")
    declared = re.compile(rf"__shared__\b.*\b{re.escape(name)}\b\s*(\[[^\]]*\]\s*)*[={{]")
    return _refusal(
        what, _first_line(source, declared.search),
        f"the __shared__ variable {name} has an initializer (nvcc: initializer not allowed for "
        "__shared__ variable): a block's shared memory starts undefined, and no initializer runs "
        f"in it.\nnote: declare it without one, set it from one thread (if (threadIdx.x == 0) "
        f"{name} = ...;), then __syncthreads() before the others read it.",
        SHARED_INITIALIZER, (name,))


def dynamic_initializer_error(what, variable, called, source):
    declared = re.compile(rf"\b{re.escape(variable)}\b[^;]*=[^;]*\b{re.escape(called)}\s*\(")
    return _refusal(
        what, _first_line(source, declared.search),
        f"the initializer of {variable} calls {called}() (nvcc: dynamic initialization is not "
        "supported for a __device__ or __constant__ variable): a GPU's memory is set when the "
        "module loads, before any code runs, so its initial value must be a constant.\nnote: "
        f"write the value as a number (a literal, or arithmetic on literals), or set {variable} "
        "from the host (module.get_global, then memcpy_htod) or from a kernel.",
        DYNAMIC_INIT, (variable, called))



def qualifiers_error(what, kernel, other, source):
    declared = re.compile(rf"{re.escape(other)}.*__global__|__global__.*{re.escape(other)}")
    return _refusal(
        what, _first_line(source, declared.search),
        f"the kernel {kernel} is declared {other} as well as __global__ (nvcc: illegal "
        "combination of memory qualifiers): a kernel runs on the device and is launched from the "
        f"host, so it is __global__ alone.\nnote: write __global__ void {kernel}(...); for code "
        "both a kernel and the host call, write a __host__ __device__ function beside it, and call "
        "it from the kernel.", QUALIFIERS, (kernel, other))


def thread_local_error(what, tokens, i, caller, source):
    words = [t.text for t in tokens[i + 1:i + 8]]
    name = next((words[k - 1] for k, w in enumerate(words) if w in ("=", ";", "[", "{", ",")), "?")
    declared = re.compile(rf"\bthread_local\b.*\b{re.escape(name)}\b")
    return _refusal(
        what, _first_line(source, declared.search),
        f"{caller} declares {name} thread_local (nvcc: cannot use thread_local specifier for "
        "variable declarations in device code): each GPU thread has its own copy of every local "
        "variable already.\nnote: delete thread_local, and the plain local is the thread's own; "
        "declare it __shared__ for one copy a block, or __device__ outside the kernel for one copy "
        "in all.",
        THREAD_LOCAL, (name, caller))
