"""The device functions that CUDA's headers declare for compute capability 9.0, as nvcc sees them.

A .cu file that SourceModule compiles gets, without any #include, what nvcc's device pass puts
before it: cuda_runtime.h and everything it includes (math_functions.h, device_functions.h,
the sm_*_intrinsics.h and sm_*_atomic_functions.h headers, sm_90_rt.h, the texture, surface
and device runtime headers), preprocessed for one architecture, so that what an #if keeps from
older or newer GPUs is left out. `nvcc -E -arch=sm_90` writes exactly that text; this module reads
the functions marked __device__ (`__attribute__((device))` once preprocessed) that it declares at
global scope, with their parameter types.
"""

import re
import subprocess
from dataclasses import dataclass

ARCH = "sm_90"
# What the headers declare only to implement the public functions (the builtins behind atomicAdd,
# the device runtime's entry points, the *_impl helpers, the profiler's counters behind
# __prof_trigger, libstdc++'s helpers for pow, what assert calls): not for a program to call.
# C++'s operator new and delete are C++'s own on the CPU too.
PRIVATE = re.compile(r"^(__nv_(?!aligned_device_malloc)|__cuda|__[a-z0-9]+Atomic[A-Z]|__pm[0-3]$|"
                     r"__cmath_power$|__pow_helper$|__assert_fail$)|_impl$")
_ATTRIBUTE = re.compile(r"__attribute__\(\((?:[^()]|\((?:[^()]|\([^()]*\))*\))*\)\)")
_DEVICE = "__attribute__((device))"
_TRAILING = re.compile(r"\s*(?:throw\s*\(\s*\)|noexcept(?:\s*\([^()]*\))?|const)\s*$")
_TYPE_WORDS = {"int", "unsigned", "signed", "char", "short", "long", "float", "double", "bool",
               "void", "const", "volatile", "struct", "enum"}


@dataclass(frozen=True)
class Declaration:
    name: str
    header: str           # relative to the toolkit's include folder
    params: tuple         # the parameters' types, as declared ("unsigned int", "float *")
    variadic: bool
    template: bool
    deprecated: bool


def preprocess(nvcc, folder):
    """nvcc's device pass of an empty .cu file for ARCH: the text every kernel compiles after."""
    empty = folder / "empty.cu"
    empty.write_text("\n")
    done = subprocess.run([nvcc, f"-arch={ARCH}", "-E", str(empty)], capture_output=True,
                          text=True, timeout=120)
    if done.returncode != 0:
        raise RuntimeError(f"nvcc -E failed: {done.stderr}")
    return done.stdout


def declarations(text):
    """Every __device__ function declared or defined at global scope in CUDA's own headers."""
    found = []
    for header, head in _global_heads(text):
        if "/cuda" not in header or _DEVICE not in head:
            continue
        decl = _declaration(header.split("/include/")[-1], head)
        if decl is not None:
            found.append(decl)
    return found


def _global_heads(text):
    """(header, text) of each declaration or definition head at global scope (inside extern "C"
    blocks too, not inside a namespace, class or function), string literals blanked."""
    code, files, starts, pos, current = [], [], [], 0, ""
    for line in text.splitlines():
        marker = re.match(r'^# \d+ "([^"]+)"', line)
        if marker:
            current = marker.group(1)
            continue
        code.append(line)
        files.append(current)
        starts.append(pos)
        pos += len(line) + 1
    src = re.sub(r'"(?:\\.|[^"\\\n])*"', lambda m: '"' + " " * (len(m.group(0)) - 2) + '"',
                 "\n".join(code))
    scopes, start, line_no = [], 0, 0
    for i, c in enumerate(src):
        if c not in "{};":
            continue
        head = src[start:i]
        while line_no + 1 < len(starts) and starts[line_no + 1] <= start:
            line_no += 1
        at_global = all(s == "extern" for s in scopes)
        if c == "{":
            kind = ("namespace" if re.search(r"\bnamespace\b", head) else
                    "extern" if re.search(r'extern\s+"\s*"\s*$', head) else "other")
            if at_global and kind == "other":
                yield files[line_no], head
            scopes.append(kind)
        elif c == "}":
            scopes.pop()
        elif at_global:
            yield files[line_no], head
        start = i + 1


def _declaration(header, head):
    deprecated = "deprecated" in head
    text = " ".join(_ATTRIBUTE.sub(" ", head).split())
    text = re.sub(r"\s*=\s*(default|delete)$", "", text)
    while _TRAILING.search(text) and _TRAILING.sub("", text) != text:
        text = _TRAILING.sub("", text)
    if not text.endswith(")"):
        return None
    depth, i = 0, len(text) - 1
    for i in range(len(text) - 1, -1, -1):
        depth += {")": 1, "(": -1}.get(text[i], 0)
        if depth == 0:
            break
    name = re.search(r"(\boperator\b[^()]*|[A-Za-z_]\w*)\s*$", text[:i])
    if name is None or name.group(1).startswith("operator") or PRIVATE.search(name.group(1)):
        return None
    params = _split(text[i + 1:-1])
    variadic = "..." in params
    params = tuple(_param_type(p) for p in params if p not in ("...", "void", ""))
    return Declaration(name.group(1), header, params, variadic, text.startswith("template"),
                       deprecated)


def _split(params):
    parts, depth, cur = [], 0, ""
    for c in params:
        depth += {"(": 1, "<": 1, ")": -1, ">": -1}.get(c, 0)
        if c == "," and depth == 0:
            parts.append(cur.strip())
            cur = ""
        else:
            cur += c
    return [*parts, cur.strip()]


def _param_type(param):
    """A parameter's type: its name and default value taken off."""
    param = re.sub(r"\s*=.*$", "", param).strip()
    named = re.match(r"^(.*?[\s*&])([A-Za-z_]\w*)$", param)
    if named and named.group(2) not in _TYPE_WORDS and named.group(1).strip() not in ("", "struct", "enum"):
        param = named.group(1)
    return " ".join(param.replace("*", " * ").replace("&", " & ").split())


# ---- calls of each declaration, to compile and run -------------------------------------------------
# Each argument is a value of the parameter's type: a pointer into a zeroed buffer, an unsigned
# with every bit set (a warp function's mask), 1 for other numbers, a zeroed vector or enum.
PRELUDE = r"""
__device__ __align__(16) char __args_buffer[4096];
template <typename T> __device__ T __arg() {
    if constexpr (std::is_pointer<T>::value) return (T)(void *)__args_buffer;
    else if constexpr (std::is_same<T, unsigned>::value) return 0xffffffffu;
    else if constexpr (std::is_arithmetic<T>::value) return (T)1;
    else return T{};
}
"""
# Calls that take arguments other than the rule's: free() takes what malloc gave, or NULL;
# printf a format.
ARGUMENTS = {"free": "nullptr", "printf": '""'}
# Calls compiled but not run (under a condition no thread meets): __trap() ends the kernel.
NOT_RUN = {"__trap"}


def signatures(decls):
    """One declaration for each function and parameter list (the headers declare many twice)."""
    seen, out = set(), []
    for d in decls:
        key = (d.name, tuple(re.sub(r"^const |\s*\bconst$", "", p) for p in d.params))
        if key not in seen:
            seen.add(key)
            out.append(d)
    return out


def calls_source(decls, kernel="call_each"):
    """A .cu source with one __device__ function per declaration that calls it, each on a line
    of its own, and a kernel that calls them all: (source, {line: declaration})."""
    lines, where = [PRELUDE], {}
    for k, d in enumerate(decls):
        if d.name in ARGUMENTS:
            args = ARGUMENTS[d.name]
        else:
            args = ", ".join(f"__arg<std::decay<{p}>::type>()" for p in d.params)
        where[len("".join(lines).splitlines()) + 2] = d
        guard = "if (threadIdx.x == 1024u) " if d.name in NOT_RUN else ""
        lines.append(f"__device__ void call_{k}() {{\n    {guard}(void){d.name}({args});\n}}\n")
    body = "".join(f"    call_{k}();\n" for k in range(len(decls)))
    lines.append(f'extern "C" __global__ void {kernel}() {{\n{body}}}\n')
    return "".join(lines), where


def refusals_source(names):
    """A .cu source that calls each name once, in a __device__ function of its own:
    (source, {line: name})."""
    lines, where = [], {}
    for k, name in enumerate(names):
        where[2 + 3 * k] = name
        lines.append(f"__device__ void refused_{k}() {{\n    (void){name}();\n}}\n")
    return "".join(lines), where
