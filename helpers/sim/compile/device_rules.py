"""Four rules of device code that nvcc enforces and g++ cannot know, checked in the learner's code
after the preprocessor (where __device__ and __global__ are marked: source.py) before it is
compiled:

- a kernel or __device__ function calls only __device__ functions: one of the learner's own
  functions declared without __device__ is a host function, and nvcc refuses the call ("calling a
  __host__ function("twice") from a __global__ function is not allowed"), the commonest compile
  error of a first CUDA program; on the CPU every function is callable;
- device code reads only device memory: a variable declared outside any function without
  __device__ or __constant__ (nor const) lives in the host's (nvcc: identifier "weights" is
  undefined in device code);
- a kernel is launched, never called: device code that calls a __global__ function as a function
  is refused (nvcc: "a __global__ function call must be configured");
- a __shared__ variable takes no initializer (nvcc: "initializer not allowed for __shared__
  variable"): every block's copy starts undefined, and one thread must set it. As C++ (a static
  thread_local) it compiled, and started from the initializer in every block.

Each is a CompileError with a record (diagnosed.HOST_FUNCTION, HOST_VARIABLE, KERNEL_CALLED,
SHARED_INITIALIZER) at the learner's line, which the checkers read. Not a C++ parser: it reads free functions and
declarations as kernels are written, and says nothing where it cannot tell.
"""

import re

from ..errors import CompileError
from .diagnosed import HOST_FUNCTION, HOST_VARIABLE, KERNEL_CALLED, SHARED_INITIALIZER, Diagnostic
from .kernel_text import KNOWN_TYPE, SPECIFIERS, Unreadable, closing, read_tokens
from .source import numbered_lines

_SCOPES = {"struct", "class", "union", "namespace", "enum", "extern"}
_STRUCTS = {"struct", "class", "union", "enum"}
_NOT_HOST_VARIABLES = {"__sim_device__", "__sim_global__", "__sim_constant__", "__sim_managed__",
                       "thread_local", "const", "constexpr", "typedef", "using", "template",
                       "extern", "static_assert", "struct", "class", "union", "enum", "namespace",
                       "operator", "friend"}
_MARKS = {"__sim_device__", "__sim_global__"}
_NOT_A_CALL_BEFORE = {".", "->", "::"}


def check(user_code, source, what):
    """Raise the CompileError for the first rule ``user_code`` (the preprocessed learner's code)
    breaks; ``source``, the text as given, numbers the lines."""
    try:
        tokens = read_tokens(user_code, 0, len(user_code))
    except Unreadable:
        return
    functions, variables = _read(tokens)
    own_functions, own_variables = _declared_in(source)
    variables &= own_variables
    host = {name for name, (marks, _) in functions.items() if not marks} & own_functions
    kernels = {name for name, (marks, _) in functions.items() if "__sim_global__" in marks}
    for name, (marks, bodies) in functions.items():
        for parameters, start, end in bodies if marks else ():
            outside = variables - _locals(tokens, parameters, end)
            for i in range(start, end):
                if _reads(tokens, i, outside):
                    raise _host_variable_error(what, tokens[i].text, name, source)
                if _calls(tokens, i, host):
                    raise _host_function_error(what, tokens[i].text, name, source)
                if _calls(tokens, i, kernels):
                    raise _kernel_called_error(what, tokens[i].text, name, source)
                if _shared_initialized(tokens, i, end):
                    raise _shared_initializer_error(what, tokens, i, source)


def _read(tokens):
    """({name: (its marks, the set of __sim_device__ and __sim_global__ where declared so,
    [(its parameters' "(", body start, body end)])} of the functions defined or declared outside
    any function's body (free and member functions), {names of the variables declared outside
    any function and any struct without a mark})."""
    functions, variables, i, start = {}, set(), 0, 0  # start: the declaration at hand's first
    scopes = []  # for each scope open here: whether it is a struct's (its members no variables)
    while i < len(tokens):
        text = tokens[i].text
        if text == "{" and _opens_scope(tokens, start, i):
            scopes.append(any(t.text in _STRUCTS for t in tokens[start:i]))
            i, start = i + 1, i + 1
            continue
        if text in (";", "}"):
            if text == "}" and scopes:
                scopes.pop()
            elif text == ";" and not any(scopes):
                variables |= _variables(tokens[start:i])
            i, start = i + 1, i + 1
            continue
        if text == "(" and i > start and tokens[i - 1].kind == "word":
            end = closing(tokens, i)
            body = _body_after(tokens, end + 1)
            name = tokens[i - 1].text
            marks, bodies = functions.get(name, (frozenset(), []))
            functions[name] = (marks | {t.text for t in tokens[start:i]} & _MARKS, bodies)
            if body is not None:
                bodies.append((i, body + 1, closing(tokens, body)))
                i = start = closing(tokens, body) + 1
                continue
            i = end + 1
            continue
        if text in ("(", "[", "{"):
            i = closing(tokens, i) + 1
            continue
        i += 1
    return functions, variables


def _variables(declaration):
    """The names a declaration outside any function declares as host variables: none where it
    is marked (__device__, __constant__, __managed__, __shared__), const (nvcc lets device code
    read a const number), a type's, or a function's."""
    words = {t.text for t in declaration}
    if not declaration or words & _NOT_HOST_VARIABLES or any(t.text == "(" for t in declaration):
        return set()
    names, depth, value = set(), 0, False  # value: in a declarator's initializer
    for k, t in enumerate(declaration):
        depth += (t.text in ("[", "{")) - (t.text in ("]", "}"))
        if depth == 0 and t.text in ("=", ","):
            value = t.text == "="
        after = declaration[k + 1].text if k + 1 < len(declaration) else ";"
        if depth == 0 and not value and t.kind == "word" and k > 0 and after in ("=", "[", ",", ";"):
            names.add(t.text)
    return names


_DECLARED = re.compile(r"(\w+)[ \t*&]+([A-Za-z_]\w*)\s*([(=;,\[])")
_COMMENT = re.compile(r"//[^\n]*|/\*.*?\*/", re.S)
_NOT_A_TYPE = {"return", "else", "do", "case", "new", "delete", "throw", "sizeof", "goto"}


def _declared_in(source):
    """(the names the learner's own text declares as functions, ``float twice(``, and as
    variables, ``int count =``): the headers it includes (cuda_fp16.h's __half2float, declared
    without __device__ in the simulator's copy) are not the learner's to mark."""
    found = [(m[2], m[3] == "(") for m in _DECLARED.finditer(_COMMENT.sub(" ", source))
             if m[1] not in _NOT_A_TYPE]
    return {n for n, call in found if call}, {n for n, call in found if not call}


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


def _locals(tokens, first, end):
    """The names a function declares from its parameters' "(" (``first``) to its body's end:
    a word after a type's word (int count, P p), or after * or & after a type's (float *p; not
    x * count, which multiplies)."""
    return {tokens[k].text for k in range(first + 1, end) if tokens[k].kind == "word"
            and (tokens[k - 1].kind == "word" and tokens[k - 1].text not in _NOT_A_TYPE
                 or tokens[k - 1].text in ("*", "&") and _a_type(tokens[k - 2]))}


def _a_type(token):
    return token.text in SPECIFIERS or token.text == ">" or bool(KNOWN_TYPE.match(token.text))


def _reads(tokens, i, variables):
    """tokens[i] names one of the host ``variables`` (not a member: after . -> ::)."""
    return (tokens[i].kind == "word" and tokens[i].text in variables
            and tokens[i - 1].text not in _NOT_A_CALL_BEFORE)


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


def _host_variable_error(what, name, reader, source):
    used = re.compile(rf"\b{re.escape(name)}\b")
    lines = [(f, n) for f, n, text in numbered_lines(source) if used.search(text)]
    return _refusal(
        what, lines[1] if len(lines) > 1 else lines[0] if lines else (None, None),
        f"{reader} reads {name}, a variable declared outside any function without __device__ or "
        f"__constant__: it lives in the host's memory, which device code cannot reach (nvcc: "
        f"identifier \"{name}\" is undefined in device code).\nnote: declare it __constant__ "
        f"(the same for every thread, read-only: __constant__ float {name}[...] = {{...}};) or "
        "__device__, or pass it to the kernel; a const number (const int N = 8;) may stay.",
        HOST_VARIABLE, (name, reader))


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
