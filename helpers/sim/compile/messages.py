"""What the host compiler and linker say, turned into what the learner needs to read.

g++ reports a mistake in terms of the simulator's prelude (deleted functions, macros, symbols);
the learner wrote CUDA. Each function here takes the tool's output and returns a message that
names the learner's file and line, says what is wrong in CUDA's terms, and what to do. The
patterns to follow: the first error in the learner's file, then one note that explains it.
"""

import os
import re

from . import capabilities, math_arguments, not_simulated, warned
from .linkage import c_linkage_error
from .diagnosed import Diagnostic
from .learner_text import LOAD_CODE
from .source import in_prelude as _in_prelude
from ..errors import CompileError, HostFunctionError, NeedsNewerGPUError, NotSimulatedError
from ..settings import settings

# Host functions in device code (include/sim_host_only.h): advice by the function's group.
_HOST_ONLY = re.compile(r"__sim_host_(stop|random|io|system|memory|text|time|math)_(\w+)")
# std::min and std::max, declared with an error attribute (include/sim_math_args.h)
_STD_MIN_MAX = re.compile(r"call to [‘']std::(min|max)[’'] declared with attribute error: "
                          r"__sim_host_std_min_max")
_ALLOWED = ("Device code may call printf, malloc and free, memcpy and memset, assert, new and "
            "delete, clock64, __nanosleep, the math functions and the functions of its own source.")
_HOST_ADVICE = {
    "stop": "To end a thread, return from the kernel; to stop the kernel with an error, use "
            "assert(condition) or __trap().",
    "random": "Device code has no random number generator: draw the numbers on the host "
              "(numpy.random) and pass them in, or compute a hash of the thread's index.",
    "io": "Device code has no files and no input: printf is its only output. Copy the results "
          "back to the host and write them there.",
    "system": "Device code cannot reach the operating system (files, processes, the network): "
              "copy the results back and do that on the host.",
    "memory": "In device code, allocate with malloc and free (or better, allocate on the host "
              "and pass the array in).",
    "text": _ALLOWED,
    "math": "CUDA has no device version of it: isless(a, b) and its kin are a < b, a <= b, ...; "
            "nexttoward is nextafter; isnormal and fpclassify are isnan, isinf and fabs(x) >= "
            "FLT_MIN.",
    "std": "CUDA's own min(a, b) and max(a, b), without std::, work in a kernel (fminf and "
           "fmaxf for two floats).",
    "time": "Device code has no calendar clock and cannot sleep on the operating system's: "
            "clock64() counts the GPU's clock ticks, and __nanosleep(ns) lets a thread wait.",
}

_ERROR_LINE = re.compile(r"^(?P<file>[^:\n]+):(?P<line>\d+):(?:\d+:)? (?:fatal )?error: (?P<text>.*)$",
                         re.M)


def disk_full(what, said="No space left on device"):
    """The CompileError for a build the disk had no room for, or None when ``said`` (what the
    compiler printed, or an OSError's text) is about something else."""
    if "No space left on device" not in said:
        return None
    return CompileError(
        f"simulator compilation of {what} failed: the disk is full (No space left on device "
        "while the compiler wrote its output); the source is not at fault. Free some space, or "
        "set CUDA_COURSE_CACHE_DIR and TMPDIR to folders on a disk with room, and run it again.",
        None)


def compile_error(what, stderr):
    """The first error in the learner's file, as 'file:line: error: message', then a note: a
    CompileError, or a HostFunctionError when the error is a host function in device code."""
    full = disk_full(what, stderr)
    if full is not None:
        return full
    errors = [m for m in _ERROR_LINE.finditer(stderr)]
    mine = [m for m in errors if not _in_prelude(m.group("file"))] or errors
    if mine and _HOST_ONLY.search(mine[0].group("text")):
        return _host_function_error(what, mine[0])
    std = mine and _STD_MIN_MAX.search(mine[0].group("text"))
    if std:
        return host_function_error(what, f"std::{std[1]}", *_learner_site(mine[0]), "std")
    math = mine and math_arguments.error(what, mine[0].group("text"), *_learner_site(mine[0]))
    if math:
        return math
    refused = not_simulated_calls(stderr) or not_simulated.inline_ptx(stderr, _in_prelude)
    if refused:
        return not_simulated_error(what, refused)
    newer = needs_newer_gpu_error(what, stderr)
    if newer is not None:
        return newer
    linkage = c_linkage_error(what, stderr)
    if linkage is not None:
        return linkage
    msg = f"simulator compilation of {what} failed"
    if mine:
        msg += "\n" + (_header_assertion(stderr, mine[0]) or mine[0].group(0).strip())
    elif "error" in stderr:
        msg += "\n" + next(ln for ln in stderr.splitlines() if "error" in ln).strip()
    for name, feature in not_simulated.HEADERS.items():
        if re.search(rf"\b{re.escape(name)}\b", stderr):
            msg += (f"\nnote: {name} ({feature}) is a CUDA feature that the course's CPU simulator "
                    "does not provide; run this on a GPU with CUDA_COURSE_BACKEND=pycuda.")
            break
    return CompileError(msg, None)


_REQUIRED_HERE = re.compile(r"^(?P<file>[^:\n]+):(?P<line>\d+):(?:\d+:)?\s+required from here", re.M)
_INSTANTIATION = re.compile(r"In instantiation of [‘'](?P<what>[^’']*)[’']")


def _header_assertion(stderr, error):
    """A static_assert of a header the simulator gives (mma.h's refused shapes and types), at the
    learner's line that instantiated it, with what it instantiated: 'file:line: error: static
    assertion failed: ...' and '(in fragment<matrix_a, 16, 16, 8, __half, row_major>)'. None for
    any other error, or where no line of the learner's is named."""
    site = _assertion_site(stderr, error)
    if site is None:
        return None
    file, line, instantiated = site
    where = f"{file}:{line}: error: {error.group('text').strip()}"
    return where + (f"\n  (in {instantiated})" if instantiated else "")


def _assertion_site(stderr, error):
    """(file, line, what it instantiated or None) of the learner's line that set off ``error``, a
    static_assert of a header the simulator gives; None for any other error, or where no line of
    the learner's is named."""
    if not _in_prelude(error.group("file")) or not error.group("text").startswith("static assertion"):
        return None
    before = stderr[:error.start()]
    here = [m for m in _REQUIRED_HERE.finditer(before) if not _in_prelude(m.group("file"))]
    if not here:
        return None
    what = [m.group("what") for m in _INSTANTIATION.finditer(before)]
    return here[-1].group("file"), int(here[-1].group("line")), what[-1] if what else None


_UNDECLARED = re.compile(r"^(?P<file>[^:\n]+):(?P<line>\d+):(?:\d+:)? error: [‘'](?P<name>\w+)[’'] "
                         r"was not declared in this scope", re.M)


_DELETED = re.compile(r"^(?P<file>[^:\n]+):(?P<line>\d+):(?:\d+:)? error: use of deleted function "
                      r"[‘'][^’'(]*?(?P<name>\w+::\w+)\(", re.M)


def not_simulated_calls(stderr):
    """[(function, feature, file, line)] of each call, in the learner's file, of a function that
    the simulator leaves out (not_simulated.FUNCTIONS, and the members not_simulated.MEMBERS
    names), in the compiler's order."""
    calls = [(m.group("name"), not_simulated.FUNCTIONS[m.group("name")], m.group("file"),
              int(m.group("line")), m.start()) for m in _UNDECLARED.finditer(stderr)
             if m.group("name") in not_simulated.FUNCTIONS and not _in_prelude(m.group("file"))]
    calls += [(m.group("name"), not_simulated.MEMBERS[m.group("name")], m.group("file"),
               int(m.group("line")), m.start()) for m in _DELETED.finditer(stderr)
              if m.group("name") in not_simulated.MEMBERS and not _in_prelude(m.group("file"))]
    return [call[:4] for call in sorted(calls, key=lambda call: call[4])]


def not_simulated_error(what, calls):
    """The NotSimulatedError for calls (not_simulated_calls) of functions the simulator leaves
    out: the first one named with its feature, and every one in the error's ``calls``."""
    function, feature, file, line = calls[0]
    others = sorted({c[0] for c in calls} - {function})
    also = f" (and {', '.join(others)})" if others else ""
    return NotSimulatedError(
        f"simulator compilation of {what} failed\n{file}:{line}: error: {function}() is a CUDA "
        f"function the course's CPU simulator does not simulate{also}: {feature}.\nnote: run "
        "this kernel on a GPU with CUDA_COURSE_BACKEND=pycuda.", function, feature, file, line,
        calls)


def needs_newer_gpu_error(what, stderr):
    """The NeedsNewerGPUError for the first call, in the learner's file, of a function that
    this device's compute capability does not have (capabilities.py), or else for a warp matrix
    fragment it does not have (_newer_fragment_error); None for any other error."""
    call = next((m for m in _UNDECLARED.finditer(stderr) if m.group("name") in
                 capabilities.NEEDS and not _in_prelude(m.group("file"))), None)
    if call is None:
        return _newer_fragment_error(what, stderr)
    function, file, line = call.group("name"), call.group("file"), int(call.group("line"))
    needs, device = capabilities.NEEDS[function], settings.compute_capability
    return NeedsNewerGPUError(
        f"simulator compilation of {what} failed\n{file}:{line}: error: {function}() needs a "
        f"GPU of compute capability {needs[0]}.{needs[1]} or newer, and this one is "
        f"{device[0]}.{device[1]} (CUDA_SIM_COMPUTE_CAPABILITY): nvcc says so for such a GPU "
        f'too (identifier "{function}" is undefined).\nnote: keep the call for newer GPUs '
        f"inside #if __CUDA_ARCH__ >= {capabilities.arch(needs)}, with another way in an "
        "#else for older ones.", function, needs, device, file, line)


# include/mma.h's static_assert for a fragment that GPUs before ``needs`` do not have
_NEWER_FRAGMENT = re.compile(r"static assertion failed: (?P<function>wmma::\w+): (?P<which>.*?) need "
                             r"compute capability (?P<major>\d+)\.(?P<minor>\d+) or newer")


def _newer_fragment_error(what, stderr):
    """The NeedsNewerGPUError when the first error is a warp matrix fragment, declared on the
    learner's line, that this device's compute capability does not have (include/mma.h refuses
    it with a static_assert: CUDA's mma.h declares no such fragment for it), or None."""
    error = next(_ERROR_LINE.finditer(stderr), None)
    refused = error and _NEWER_FRAGMENT.match(error.group("text"))
    site = refused and _assertion_site(stderr, error)
    if not site:
        return None
    file, line, instantiated = site
    function, device = refused.group("function"), settings.compute_capability
    needs = (int(refused.group("major")), int(refused.group("minor")))
    fragment = f"\n  (in {instantiated})" if instantiated else ""
    return NeedsNewerGPUError(
        f"simulator compilation of {what} failed\n{file}:{line}: error: {function}: "
        f"{refused.group('which')} need a GPU of compute capability {needs[0]}.{needs[1]} or "
        f"newer, and this one is {device[0]}.{device[1]} (CUDA_SIM_COMPUTE_CAPABILITY): nvcc "
        "says so for such a GPU too (CUDA's mma.h declares no such fragment for it: incomplete "
        f"type is not allowed){fragment}\nnote: keep the kernel's body for newer GPUs inside "
        f"#if __CUDA_ARCH__ >= {capabilities.arch(needs)}, with another way (or __trap()) in an "
        "#else for older ones, and launch it only on a GPU that has it "
        "(helpers.capability.has_compute_capability).", function, needs, device, file, line)


_EXPANSION = re.compile(r"^(?P<file>[^:\n]+):(?P<line>\d+):(?:\d+:)? note: in expansion of macro", re.M)


def _learner_site(match):
    """(file, line) of the compiler's error ``match``; for an error reported in one of the
    prelude's macros, the first place it was expanded from outside the prelude."""
    where = (match.group("file"), int(match.group("line")))
    if not _in_prelude(where[0]):
        return where
    for note in _EXPANSION.finditer(match.string, match.end()):
        if not _in_prelude(note.group("file")):
            return note.group("file"), int(note.group("line"))
    return where


def _host_function_error(what, match):
    """A host function in device code: the prelude's macro onto a deleted function."""
    group, name = _HOST_ONLY.search(match.group("text")).groups()
    return host_function_error(what, name, *_learner_site(match), group)


def host_function_error(what, name, file, line, group):
    """The HostFunctionError for device code that calls ``name``, first at ``file:line`` (both
    None where no line is known), in nvcc's words, then what to do (_HOST_ADVICE[group])."""
    where = f"{file}:{line}: " if file else ""
    advice = _HOST_ADVICE[group] + ("" if group == "text" else f" {_ALLOWED}")
    return HostFunctionError(
        f"simulator compilation of {what} failed\n"
        f"{where}error: {name}() is a host function: a kernel or __device__ function cannot "
        f"call it (nvcc: calling a __host__ function(\"{name}\") from a __global__ function "
        f"is not allowed).\nnote: {advice}", name, file, line)


def startup_code_error(what):
    """The CompileError of a module whose object runs code of the learner's when it loads or
    unloads (device_calls.STARTUP_CODE), with its record (learner_text.LOAD_CODE)."""
    err = CompileError(
        f"simulator compilation of {what} failed\nerror: {what} runs code of its own when the "
        "module loads or unloads (a constructor or destructor function, or a global variable "
        "whose initialization runs code), before any kernel is launched (nvcc: dynamic "
        "initialization is not supported for __device__, __constant__ and __shared__ "
        "variables).\nnote: a GPU runs code only in a launched kernel: move that work into a "
        "kernel, and give each global variable a constant value.", None)
    err.diagnostics = (Diagnostic(what, None, None, LOAD_CODE, ("load",)),)
    return err


# ---- the linker ----------------------------------------------------------------------------------
_UNDEFINED = re.compile(r"^(?:(?P<file>[^:\n]+):(?P<line>\d+):|[^\n]*?:\([^)]*\):)? ?"
                        r"undefined reference to [`'](?P<symbol>[^'`]+)'", re.M)
_CXX_RUNTIME = re.compile(r"^(operator new|operator delete|std::|__cxa_|__gxx_personality|"
                          r"vtable for __cxxabiv1|typeinfo for )")


def undefined_symbols(stderr):
    """[(file or None, line or None, symbol)] of the linker's undefined references, in order.
    The linker names a file by its full path (the compiler's folder first); the learner named it
    relative to that folder (the source's #line), so the folder is taken off again."""
    seen, found, here = set(), [], os.getcwd().rstrip("/") + "/"
    for m in _UNDEFINED.finditer(stderr):
        file = m.group("file")
        if file and file.startswith(here):
            file = file[len(here):]
        key = (file, m.group("line"), m.group("symbol"))
        if key not in seen:
            seen.add(key)
            found.append((file, int(m.group("line")) if m.group("line") else None, m.group("symbol")))
    return found


def names_lines(stderr):
    """Whether link_error's message for a link that printed ``stderr`` names lines of the
    learner's: it has undefined functions, and none of the C++ library's."""
    missing = undefined_symbols(stderr)
    return bool(missing) and not any(_CXX_RUNTIME.match(symbol) for _, _, symbol in missing)


def link_error(what, stderr, cxx):
    """The linker found symbols that nothing defines: a function declared but never defined, or
    a compiler that is not a C++ compiler (it links without the C++ library)."""
    missing = undefined_symbols(stderr)
    msg = f"simulator compilation of {what} failed"
    if not missing:
        lines = [ln for ln in stderr.splitlines() if ln.strip()]
        return CompileError(msg + ("\n" + lines[-1].strip() if lines else ""), None)
    if any(_CXX_RUNTIME.match(symbol) for _, _, symbol in missing):
        return CompileError(f"{msg}\nthe C++ library is missing from the link: {cxx} is not a C++ compiler's "
                "driver (a C compiler such as gcc or cc links C programs only). Set CXX to a C++ "
                "compiler, e.g. CXX=g++ or CXX=clang++, or leave CXX unset.", None)
    lines = []
    for file, line, symbol in missing:
        where = f"{file}:{line}: " if file and not _in_prelude(file) else ""
        name = symbol.split("(")[0]
        lines.append(f"{where}error: {name} is declared but never defined: a kernel calls it, and "
                     "no function body for it is in this source (nvcc: ptxas fatal : Unresolved "
                     f"extern function '{name}')")
    return CompileError(msg + "\n" + "\n".join(lines) + "\nnote: give each __device__ function a "
                        "body in the same source: SourceModule compiles one file, and nothing is "
                        "linked to it.", None)


# ---- warnings --------------------------------------------------------------------------------------
_WARNING_LINE = re.compile(r"^(?P<file>[^:\n]+):(?P<line>\d+):(?:\d+:)? warning: ", re.M)
# -Wparentheses (on for 0 <= i < n, warned.py) also advises parentheses where C's precedence is
# what was meant (a && b || c, a + b << c), which nvcc does not: left out, with its source lines;
# an assignment used as a condition (if (i = n)) is kept
_ADVICE = re.compile(r"^[^:\n]+:\d+:(?:\d+:)? warning: suggest parentheses around (?!assignment).*"
                     r"\[-Wparentheses\]$")
_SOURCE_LINE = re.compile(r"^\s*\d*\s*\|")


def learner_warnings(stderr):
    """The compiler's output when it warns about the learner's file (a printf format that does
    not fit its argument, ...), else ''. Warnings about the prelude alone are left out; one
    about a variable of the learner's that the prelude's macro reads unset (``__ballot_sync(m,
    above)``) is said at the learner's line that declares it, where g++ has only a note."""
    stderr = _without_advice(stderr)
    at = {(m.group("file"), int(m.group("line"))) for m in _WARNING_LINE.finditer(stderr)
          if not _in_prelude(m.group("file"))}
    records = warned.uninitialised(stderr)
    moved = [_at_declaration(r) for r in records if (r.file, r.line) not in at]
    mine = bool(at)
    if not mine and not moved:
        return ""
    said = "\n".join([*moved, _tidied(stderr)] if mine else moved)
    return UNINITIALISED + "\n" + said if records else said


# What g++ adds around a warning that names the simulator's code, not the learner's: the chain of
# functions the warned line was inlined into (the prelude's loop over a block's threads, through
# the C++ library's std::apply), a heading that names a function of the prelude, and a line in a
# header of the prelude's or of the system's (paths of this machine).
_INLINED_INTO = re.compile(r"^(?:In function ‘.*’,|\s+inlined from .*)$")
_HEADING = re.compile(r"^[^:\n]+: In (?:static )?(?:member )?function ‘(?P<function>.*)’:$")
_LOCATED = re.compile(r"^(?:In file included from )?(?P<file>[^:\n]+):\d+")
_SIMULATORS = ("sim::", "std::", "__sim_")


def _tidied(stderr):
    """g++'s warnings about the learner's file, without the lines that name the simulator's own
    code or a header's path on this machine."""
    def shown(line):
        heading, located = _HEADING.match(line), _LOCATED.match(line)
        return not (_INLINED_INTO.match(line)
                    or (heading and any(s in heading.group("function") for s in _SIMULATORS))
                    or (located and (_in_prelude(located.group("file"))
                                     or located.group("file").startswith("/usr/"))))
    return "\n".join(line for line in stderr.strip().splitlines() if shown(line))


def _without_advice(stderr):
    """g++'s output without its advice on parentheses (_ADVICE) and the source lines it shows."""
    kept, advice = [], False
    for line in stderr.splitlines(keepends=True):
        advice = bool(_ADVICE.match(line.rstrip("\n"))) or (advice and bool(_SOURCE_LINE.match(line)))
        if not advice:
            kept.append(line)
    return "".join(kept)


def _at_declaration(record):
    """g++'s warning about a variable that the prelude's ``record.reader`` reads unset, at the
    learner's line that declares it."""
    how, option = ("is", "") if record.certain else ("may be", "maybe-")
    some = "" if record.certain else "on some path "
    reads = f"{record.reader} reads it, and " if record.reader else ""
    return (f"{record.file}:{record.line}: warning: ‘{record.name}’ {how} used uninitialized: "
            f"{reads}{some}nothing was stored in it since its declaration here "
            f"[-W{option}uninitialized]")


UNINITIALISED = (
    "a local variable or array of the kernel is read before anything was written to it (g++ "
    "found the path below). On a GPU it holds whatever its registers or local memory held last, "
    "with no error: compute-sanitizer's initcheck watches global memory only (on the simulator "
    "it holds 0xFE bytes: a float of -1.7e38, but a bool false). Give every element a value "
    "before it is read (for example float acc[4] = {};).")
"""What the simulator says before g++'s -Wuninitialized and -Wmaybe-uninitialized warnings about the
learner's code."""
