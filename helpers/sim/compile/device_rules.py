"""The rules of device code that nvcc enforces and g++ cannot know, checked in the learner's code
after the preprocessor (where __device__ and __global__ are marked: source.py) before it is
compiled:

- a kernel or __device__ function calls only __device__ functions: one of the learner's own
  functions declared without __device__ is a host function, and nvcc refuses the call ("calling a
  __host__ function("twice") from a __global__ function is not allowed"), the commonest compile
  error of a first CUDA program; on the CPU every function is callable. So is a member function
  or a constructor of the learner's own struct, and the C++ standard library but for what
  standard_library.py lists (std::sqrt, std::move): std::vector, std::swap, std::numeric_limits;
- device code reads only device memory: a variable declared outside any function without
  __device__ or __constant__ lives in the host's (nvcc: identifier "weights" is undefined in
  device code), a const array too; a const number is a constant nvcc lets device code read;
- a kernel is launched, never called: device code that calls a __global__ function as a function
  is refused (nvcc: "a __global__ function call must be configured");
- a kernel returns void (nvcc: "a __global__ function must have a void return type"): it gives
  its results by writing them to memory, as no caller receives a value. As C++ it compiled, and
  the simulator's launch refused it in words of its own templates;
- device code throws and catches no exceptions (nvcc: "device code does not support exception
  handling"); on the CPU try compiled and throw called the C++ runtime;
- a __shared__ variable takes no initializer (nvcc: "initializer not allowed for __shared__
  variable"): every block's copy starts undefined, and one thread must set it. As C++ (a static
  thread_local) it compiled, and started from the initializer in every block;
- a kernel is __global__ alone: __host__ __global__ or __device__ __global__ (nvcc: "illegal
  combination of memory qualifiers"), as a kernel runs on the device and is launched from the
  host, never called on either side (read after the preprocessor, as the learner's macros
  may write the qualifiers);
- device code declares no thread_local variable (nvcc: "cannot use thread_local specifier for
  variable declarations in device code"): a local is each thread's already. On the CPU it
  compiled, one variable for each worker that runs threads.

Each is a CompileError (device_refusals.py) with a record (diagnosed.HOST_FUNCTION, HOST_LIBRARY,
HOST_VARIABLE, KERNEL_CALLED, KERNEL_RETURNS, EXCEPTION, SHARED_INITIALIZER, QUALIFIERS,
THREAD_LOCAL) at the learner's line,
which the checkers read. Not a C++ parser: it reads functions, structs and declarations as
kernels are written, and says nothing where it cannot tell. The operand of sizeof is never
evaluated, so it may name a host array.
"""

import re

from . import device_refusals as said
from .kernel_text import KNOWN_TYPE, NOT_A_TYPE, SPECIFIERS, Unreadable, closing, read_tokens
from .source import without_comments
from .standard_library import refused as standard_library

_SCOPES = {"struct", "class", "union", "namespace", "enum", "extern"}
_STRUCTS = {"struct", "class", "union", "enum"}
_NOT_HOST_VARIABLES = {"__sim_device__", "__sim_global__", "__sim_constant__", "__sim_managed__",
                       "thread_local", "typedef", "using", "template",
                       "extern", "static_assert", "struct", "class", "union", "enum", "namespace",
                       "operator", "friend"}
_MARKS = {"__sim_device__", "__sim_global__"}
_OTHER_SIDES = {"__sim_device__": "__device__", "__sim_host__": "__host__"}  # beside __global__
_DEFAULTED = "= default"  # the mark of a member declared = default or = delete: nvcc's on both sides
_NOT_A_CALL_BEFORE = {".", "->", "::"}


def check(user_code, source, what):
    """Raise the CompileError for the first rule ``user_code`` (the preprocessed learner's code)
    breaks; ``source``, the text as given, numbers the lines."""
    try:
        tokens = read_tokens(user_code, 0, len(user_code))
    except Unreadable:
        return
    functions, variables, members, initialized, combined = _read(tokens)
    if combined:
        raise said.qualifiers_error(what, *combined[0], source)
    own_functions, own_variables, own_structs = _declared_in(source)
    constexpr = set(_CONSTEXPR.findall(without_comments(source)))
    for variable, called, marked in initialized:  # a host variable's runs at load: the learner's
        if variable in own_variables and called not in constexpr and (marked or called in own_functions):
            raise said.dynamic_initializer_error(what, variable, called, source)
    variables = {name: const for name, const in variables.items() if name in own_variables}
    unmarked = {name for name, (marks, _) in functions.items() if not marks}
    host = unmarked & own_functions
    host_members = {name: struct for name, struct in members.items() if name in host}
    constructors = unmarked & own_structs  # a struct of the learner's whose constructor is host code
    kernels = {name for name, (marks, _) in functions.items() if "__sim_global__" in marks}
    for name, (marks, bodies) in functions.items():
        # a body marked where it is defined, or, where none is, one a marked declaration names (a
        # header's function of a kernel's name is no device code of the learner's)
        marked = [b for b in bodies if b[3]] or (bodies if marks else [])
        for parameters, start, end, _ in marked:
            returned = _kernel_returns(tokens, parameters) if "__sim_global__" in marks else None
            if returned:
                raise said.kernel_returns_error(what, name, returned, source)
            outside = variables.keys() - _locals(tokens, parameters, end)
            for i in _evaluated(tokens, start, end):
                text = tokens[i].text
                if _reads(tokens, i, outside) and not (variables[text] and _folded(tokens, i, start)):
                    raise said.host_variable_error(what, text, name, source)
                if _calls(tokens, i, host):
                    raise said.host_function_error(what, text, name, source)
                if _calls_member(tokens, i, host_members):
                    raise said.host_function_error(what, f"{host_members[text]}::{text}", name, source)
                if _constructs(tokens, i, constructors):
                    raise said.host_function_error(what, f"{text}::{text}", name, source)
                if _calls(tokens, i, kernels):
                    raise said.kernel_called_error(what, text, name, source)
                if _shared_initialized(tokens, i, end):
                    raise said.shared_initializer_error(what, tokens, i, source)
                if text == "thread_local" and tokens[i - 1].text != "static":
                    raise said.thread_local_error(what, tokens, i, name, source)
                if text in ("try", "throw"):
                    raise said.exception_error(what, text, name, source)
                library = standard_library(tokens, i)
                if library:
                    raise said.host_library_error(what, library, name, source)


def _kernel_returns(tokens, parameters):
    """The return type of the function whose parameters' ( is tokens[parameters] where it is
    declared __global__ there and returns anything but void, as written (``float``), its
    specifiers, its template header and the simulator's marks left out; else None (a header's
    function of the kernel's name is no kernel)."""
    k, words = parameters - 2, []
    while k >= 0 and tokens[k].text not in (";", "{", "}", ">") and tokens[k].kind != "pp":
        if tokens[k].text == ")":  # an attribute's or __launch_bounds__' arguments
            while k > 0 and tokens[k].text != "(":
                k -= 1
            k -= 1
        elif tokens[k].kind == "word" or tokens[k].text in ("*", "&"):
            words.insert(0, tokens[k].text)
        k -= 1
    kept = [w for w in words if w not in _MARKS and w not in ("static", "inline", "extern",
                                                               "__attribute__", "__launch_bounds__")]
    return " ".join(kept) if "__sim_global__" in words and kept != ["void"] and kept else None


def _folded(tokens, i, start):
    """tokens[i], a const array's name, is subscripted by a constant (W[1], W[1 + 1]) in the
    initializer of a local's declaration (float y = W[1] * x;), where nvcc's front end folds the
    element into its value: device code never reads the array, and nvcc takes it (W[i], or W[1]
    in any other statement, it refuses)."""
    if i + 1 >= len(tokens) or tokens[i + 1].text != "[":
        return False
    if any(t.kind == "word" for t in tokens[i + 2:closing(tokens, i + 1)]):
        return False
    k = i
    while k > start and tokens[k - 1].text not in (";", "{", "}"):
        k -= 1
    statement = tokens[k:i]
    if [t.text for t in statement[:2]] == ["for", "("]:
        statement = statement[2:]
    equals = next((j for j, t in enumerate(statement) if t.text == "="), None)
    return bool(statement) and _a_type(statement[0]) and equals is not None and equals >= 2 \
        and statement[equals - 1].kind == "word"


def _evaluated(tokens, start, end):
    """The indices of tokens[start:end] outside sizeof's operands, which are never evaluated."""
    i = start
    while i < end:
        if tokens[i].text == "sizeof" and i + 1 < end and tokens[i + 1].text == "(":
            i = closing(tokens, i + 1) + 1
            continue
        yield i
        i += 1


def _read(tokens):
    """({name: (its marks, the set of __sim_device__ and __sim_global__ where declared so,
    [(its parameters' "(", body start, body end, whether that definition is marked)])} of the
    functions defined or declared outside any function's body (free and member functions),
    {name: whether const, of the variables declared outside any function and struct unmarked},
    {member function's name: its struct's}, [(a __device__ or __constant__ variable, the function
    its initializer calls)], [(a kernel declared __host__ or __device__ too, which of the two)])."""
    functions, variables, members, i, start = {}, {}, {}, 0, 0  # start: the declaration's first
    initialized, combined = [], []
    scopes = []  # for each scope open here: its struct's name, or None for a namespace's
    while i < len(tokens):
        text = tokens[i].text
        if text == "{" and _opens_scope(tokens, start, i):
            scopes.append(_struct_named(tokens[start:i]))
            i, start = i + 1, i + 1
            continue
        if text in (";", "}"):
            if text == "}" and scopes:
                scopes.pop()
            elif text == ";" and all(scope is None for scope in scopes):
                variables.update(_variables(tokens[start:i]))
                initialized += _initializer_calls(tokens[start:i])
            i, start = i + 1, i + 1
            continue
        if text == "(" and i > start and tokens[i - 1].kind == "word":
            end = closing(tokens, i)
            body = _body_after(tokens, end + 1)
            name = tokens[i - 1].text
            marks, bodies = functions.get(name, (frozenset(), []))
            defaulted = [t.text for t in tokens[end + 1:end + 3]] in (["=", "default"], ["=", "delete"])
            words = {t.text for t in tokens[start:i]}
            own = words & _MARKS  # this declaration's
            if "__sim_global__" in words and words & _OTHER_SIDES.keys():
                combined.append((name, _OTHER_SIDES[min(words & _OTHER_SIDES.keys())]))
            functions[name] = (marks | own | ({_DEFAULTED} if defaulted else set()), bodies)
            struct = next((scope for scope in reversed(scopes) if scope is not None), None)
            if struct is not None:
                members[name] = struct
            if body is not None:
                bodies.append((i, body + 1, closing(tokens, body), bool(own)))
                i = start = closing(tokens, body) + 1
                continue
            i = end + 1
            continue
        if text in ("(", "[", "{"):
            i = closing(tokens, i) + 1
            continue
        i += 1
    return functions, variables, members, initialized, combined


def _initializer_calls(declaration):
    """[(name, function, whether marked)] where ``declaration``, of a variable outside any
    function, calls a function in its initializer (__constant__ float s = sqrtf(2.0f);): nvcc
    refuses it for a __device__, __constant__ or __managed__ one ("dynamic initialization is not
    supported for a __constant__ variable"), as a GPU's memory is set before any code runs; a
    host variable's (int n = count();) runs inside the library's load, before any check. A cast
    (float(2)), sizeof and the compiler's builtins (INFINITY's) are constants; a lambda called
    there ([] { ... }()) is code of the learner's, marked or not."""
    words = [t.text for t in declaration]
    marked = bool(set(words) & {"__sim_device__", "__sim_constant__", "__sim_managed__"})
    if "=" not in words or not marked and "(" in words[:words.index("=")]:
        return []
    equals = words.index("=")
    name = next((w for w, t in zip(reversed(words[:equals]), reversed(declaration[:equals]))
                 if t.kind == "word"), None)
    if any(words[k:k + 2] == ["}", "("] for k in range(equals + 1, len(words) - 1)):
        return [(name, "a lambda", True)]
    for k in range(equals + 1, len(declaration) - 1):
        t = declaration[k]
        if t.kind == "word" and words[k + 1] == "(" and t.text not in ("sizeof", "alignof") \
                and not _a_type(t) and not t.text.startswith("__builtin_"):
            return [(name, t.text, marked)]
    return []


def _struct_named(declaration):
    """The name of the struct (class, union, enum) whose { ends ``declaration`` ("" for one
    without a name), or None where it opens a namespace or an extern "C" block."""
    if not any(t.text in _STRUCTS for t in declaration):
        return None
    words = [t for k, t in enumerate(declaration) if t.kind == "word" and t.text not in _STRUCTS
             and (k + 1 == len(declaration) or declaration[k + 1].text != "(")]
    return words[0].text if words else ""


def _variables(declaration):
    """{name: whether const} of what a declaration outside any function declares as host
    variables: none where it is marked (__device__, __constant__, __managed__, __shared__), a
    type's, or a function's, and where it is const only its arrays (nvcc lets device code read a
    const number)."""
    words = {t.text for t in declaration}
    if not declaration or words & _NOT_HOST_VARIABLES or any(t.text == "(" for t in declaration):
        return {}
    arrays_only = bool(words & {"const", "constexpr"})
    names, depth, value = {}, 0, False  # value: in a declarator's initializer
    for k, t in enumerate(declaration):
        depth += (t.text in ("[", "{")) - (t.text in ("]", "}"))
        if depth == 0 and t.text in ("=", ","):
            value = t.text == "="
        after = declaration[k + 1].text if k + 1 < len(declaration) else ";"
        if depth == 0 and not value and t.kind == "word" and k > 0 \
                and after in (("[",) if arrays_only else ("=", "[", ",", ";")):
            names[t.text] = arrays_only
    return names


_DECLARED = re.compile(r"(\w+)[ \t*&]+(?:\w+::)?([A-Za-z_]\w*)\s*([(=;,\[])")
_STRUCT = re.compile(r"\b(?:struct|class)\s+([A-Za-z_]\w*)")
_CONSTEXPR = re.compile(r"\bconstexpr\b[^;{(=]*?\b(\w+)\s*\(")


def _declared_in(source):
    """(the names the learner's own text declares as functions, ``float twice(``, as variables,
    ``int count =``, and as structs, ``struct Point``): the headers it includes (cuda_fp16.h's
    __half2float, declared without __device__ in the simulator's copy) are not the learner's to
    mark."""
    text = without_comments(source)
    found = [(m[2], m[3] == "(") for m in _DECLARED.finditer(text) if m[1] not in NOT_A_TYPE]
    return ({n for n, call in found if call}, {n for n, call in found if not call},
            set(_STRUCT.findall(text)))


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
            and (i == 0 or tokens[i - 1].kind != "word" or tokens[i - 1].text in NOT_A_TYPE))


def _calls_member(tokens, i, members):
    """tokens[i] is a call of one of the learner's host member functions: .name( or ->name(."""
    t = tokens[i]
    return (t.text in members and i > 0 and tokens[i - 1].text in (".", "->")
            and i + 1 < len(tokens) and tokens[i + 1].text == "(")


def _constructs(tokens, i, structs):
    """tokens[i] names one of ``structs`` to construct one with arguments: S(..), S{..} (a
    value), S s(..), S s{..} (a variable)."""
    if tokens[i].text not in structs or i + 2 >= len(tokens) \
            or i > 0 and tokens[i - 1].text in ("::", ".", "->", "struct", "class", "~"):
        return False
    after = [t.text for t in tokens[i + 1:i + 3]]
    return after[0] in ("(", "{") or tokens[i + 1].kind == "word" and after[1] in ("(", "{")


def _locals(tokens, first, end):
    """The names a function declares from its parameters' "(" (``first``) to its body's end:
    a word after a type's word (int count, P p), or after * or & after a type's (float *p; not
    x * count, which multiplies)."""
    return {tokens[k].text for k in range(first + 1, end) if tokens[k].kind == "word"
            and (tokens[k - 1].kind == "word" and tokens[k - 1].text not in NOT_A_TYPE
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
