"""Three rules of device code that nvcc enforces and g++ cannot know, checked in the learner's code
after the preprocessor (where __device__ and __global__ are marked: source.py) before it is
compiled:

- a kernel or __device__ function calls only __device__ functions: one of the learner's own
  functions declared without __device__ is a host function, and nvcc refuses the call ("calling a
  __host__ function("twice") from a __global__ function is not allowed"), the commonest compile
  error of a first CUDA program; on the CPU every function is callable;
- a kernel is launched, never called: device code that calls a __global__ function as a function
  is refused (nvcc: "a __global__ function call must be configured");
- a __shared__ variable takes no initializer (nvcc: "initializer not allowed for __shared__
  variable"): every block's copy starts undefined, and one thread must set it. As C++ (a static
  thread_local) it compiled, and started from the initializer in every block.

Each is a CompileError with a record (diagnosed.HOST_FUNCTION, KERNEL_CALLED, SHARED_INITIALIZER) at
the learner's line, which the checkers read. Not a C++ parser: it reads free functions and
declarations as kernels are written, and says nothing where it cannot tell.
"""

import re

from ..errors import CompileError
from .diagnosed import HOST_FUNCTION, KERNEL_CALLED, SHARED_INITIALIZER, Diagnostic
from .kernel_text import Unreadable, closing, read_tokens
from .source import numbered_lines

_SCOPES = {"struct", "class", "union", "namespace", "enum", "extern"}
_MARKS = {"__sim_device__", "__sim_global__"}
_NOT_A_CALL_BEFORE = {".", "->", "::"}


def check(user_code, source, what):
    """Raise the CompileError for the first rule ``user_code`` (the preprocessed learner's code)
    breaks; ``source``, the text as given, numbers the lines."""
    try:
        tokens = read_tokens(user_code, 0, len(user_code))
    except Unreadable:
        return
    functions = _functions(tokens)
    host = {name for name, (marks, _) in functions.items() if not marks} & _declared_in(source)
    kernels = {name for name, (marks, _) in functions.items() if "__sim_global__" in marks}
    for name, (marks, bodies) in functions.items():
        for start, end in bodies if marks else ():
            for i in range(start, end):
                if _calls(tokens, i, host):
                    raise _host_function_error(what, tokens[i].text, name, source)
                if _calls(tokens, i, kernels):
                    raise _kernel_called_error(what, tokens[i].text, name, source)
                if _shared_initialized(tokens, i, end):
                    raise _shared_initializer_error(what, tokens, i, source)


def _functions(tokens):
    """{name: (its marks, __sim_device__ or __sim_global__ where declared so, [(body start, body
    end)])} of the functions defined or declared outside any function's body (free and member
    functions)."""
    found, i, start = {}, 0, 0  # start: the first token of the declaration at hand
    while i < len(tokens):
        text = tokens[i].text
        if text in (";", "}") or text == "{" and _opens_scope(tokens, start, i):
            i, start = i + 1, i + 1
            continue
        if text == "(" and i > start and tokens[i - 1].kind == "word":
            end = closing(tokens, i)
            body = _body_after(tokens, end + 1)
            name = tokens[i - 1].text
            marks, bodies = found.get(name, (frozenset(), []))
            found[name] = (marks | {t.text for t in tokens[start:i]} & _MARKS, bodies)
            if body is not None:
                bodies.append((body + 1, closing(tokens, body)))
                i = start = closing(tokens, body) + 1
                continue
            i = end + 1
            continue
        if text in ("(", "[", "{"):
            i = closing(tokens, i) + 1
            continue
        i += 1
    return found


_DECLARED = re.compile(r"(\w+)[ \t*&]+([A-Za-z_]\w*)\s*\(")
_COMMENT = re.compile(r"//[^\n]*|/\*.*?\*/", re.S)
_NOT_A_TYPE = {"return", "else", "do", "case", "new", "delete", "throw", "sizeof", "goto"}


def _declared_in(source):
    """The names the learner's own text declares as functions (``float twice(``): the headers it
    includes (cuda_fp16.h's __half2float, declared without __device__ in the simulator's copy)
    are not the learner's to mark."""
    return {m[2] for m in _DECLARED.finditer(_COMMENT.sub(" ", source)) if m[1] not in _NOT_A_TYPE}


def _opens_scope(tokens, start, i):
    """tokens[i], a {, opens a struct, namespace or extern "C" block (whose declarations are
    read in turn), not an initializer or a body."""
    return any(t.text in _SCOPES for t in tokens[start:i])


def _body_after(tokens, i):
    """The index of the { that opens a function's body after its parameters' ) (past const,
    noexcept, an initializer list's members, a trailing return type), or None for a
    declaration."""
    while i < len(tokens) and tokens[i].text not in (";", "{", "=", ","):
        i = closing(tokens, i) + 1 if tokens[i].text in ("(", "[") else i + 1
    return i if i < len(tokens) and tokens[i].text == "{" else None


def _calls(tokens, i, host):
    """tokens[i] is a call of one of the ``host`` functions: name( not after . -> ::."""
    t = tokens[i]
    return (t.kind == "word" and t.text in host and i + 1 < len(tokens)
            and tokens[i + 1].text == "(" and (i == 0 or tokens[i - 1].text not in _NOT_A_CALL_BEFORE)
            and (i == 0 or tokens[i - 1].kind != "word" or tokens[i - 1].text in _NOT_A_TYPE))


def _shared_initialized(tokens, i, end):
    """tokens[i] starts a __shared__ declaration (static thread_local after the preprocessor)
    whose declarator has an initializer: = or { before its ;."""
    if tokens[i].text != "thread_local" or i == 0 or tokens[i - 1].text != "static":
        return False
    j = i + 1
    while j < end and tokens[j].text != ";":
        if tokens[j].text in ("=", "{"):
            return True
        j = closing(tokens, j) + 1 if tokens[j].text in ("(", "[") else j + 1
    return False


def _refusal(what, where, said, kind, names):
    """The CompileError that ``said`` at ``where`` ((file, line) of the learner's, or (None,
    None)), with its record of ``kind`` naming ``names``."""
    file, line = where
    at = f"{file}:{line}: " if file else ""
    err = CompileError(f"simulator compilation of {what} failed\n{at}error: {said}", None)
    err.diagnostics = (Diagnostic(file, line, None, kind, names),)
    return err


def _first_line(source, matches):
    """(file, line) of the first line of ``source`` whose text ``matches``, else (None, None)."""
    return next(((f, n) for f, n, text in numbered_lines(source) if matches(text)), (None, None))


def _a_call(text, name):
    """A line of ``text`` calls ``name`` (rather than declares it: float twice(float x))."""
    for m in re.finditer(rf"\b{re.escape(name)}\s*\(", text):
        before = text[:m.start()].rstrip()
        word = re.search(r"(\w+)\W*$", before)
        if not before or before[-1] in "=(,+-*/%<>!&|?:[{;" and not before.endswith(("*", "&")) \
                or word and word[1] in _NOT_A_TYPE:
            return True
    return False


def _host_function_error(what, name, caller, source):
    return _refusal(
        what, _first_line(source, lambda text: _a_call(text, name)),
        f"{caller} calls {name}(), a host function: {name} is declared without __device__, so "
        f"device code cannot call it (nvcc: calling a __host__ function(\"{name}\") from a "
        f"__global__ function is not allowed).\nnote: declare it __device__ (__device__ float "
        f"{name}(...)), or __host__ __device__ to call it from both sides.",
        HOST_FUNCTION, (name, caller))


def _kernel_called_error(what, name, caller, source):
    return _refusal(
        what, _first_line(source, lambda text: _a_call(text, name)),
        f"{caller} calls the kernel {name} like a function (nvcc: a __global__ function call "
        "must be configured): a kernel is launched from the host, with its block and grid.\n"
        f"note: put the work both need in a __device__ function, and call that from {caller} and "
        f"from {name}.", KERNEL_CALLED, (name, caller))


def _shared_initializer_error(what, tokens, i, source):
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
