"""What a learner's .cu may not say, read in its own text before anything compiles it: the
simulator compiles it as host C++ into a library that the notebook's (or checker's) process
loads, so what nvcc would refuse there, or what only the host has, would run with that
process's rights, before or around every check.

- no code run when the library loads or unloads: a constructor or destructor attribute, or a
  __device__ or __constant__ variable of a struct whose constructor or destructor runs code (nvcc:
  dynamic initialization is not supported for __device__ variables); device_calls.py checks the
  object for the same, whatever macros spelled;
- no section attribute: where code lies is the compiler's to choose;
- no #line (or GNU ``# 1 "file"``) naming the simulator's own files, which would hand the
  learner's code to the runtime's side of the race check, the init check and the trace;
- no #include of an absolute path, one with .., or a name a macro builds: only the prelude's
  headers, the C and C++ headers and the files of the learner's own folder (and no asm .incbin
  or .include, which read a file too);
- no name of the simulator's runtime (``sim::``, ``__sim_``): its state is no kernel's to touch;
  nor a macro that makes one (si##m, ``named_by_macros``), nor an #undef of sim (which would
  undo the scan's stand-in for it; a #define of a name for sim is refused already), nor
  the C functions it gives Python (sim_launch_cancel, ...), which a kernel could declare and call;
- no host object of the C library (stdout, stderr, stdin, environ): printf is device code's
  output.

Each is a CompileError with its record (diagnosed.py) at the learner's line. The text is read as
the preprocessor reads it: a backslash at a line's end joins the next line to it (si\\ and m::
on two lines are sim::).
"""

import functools
import re
from pathlib import Path

from .device_refusals import _refusal
from .source import INCLUDE_DIR, INCLUDE_IN_LINE_TABLES, SIM_IN_THE_SCAN, in_prelude, without_comments

# The kinds of the records (diagnosed.Diagnostic) of these refusals: ``names`` what was said
# (LOAD_CODE's line None where only the compiled object showed it: device_calls.STARTUP_CODE).
LOAD_CODE, SECTION, RUNTIME_NAME = "code run at load", "section attribute", "simulator's name"
LINE_DIRECTIVE, INCLUDE, HOST_OBJECT = "#line", "#include outside", "host object"

_STRING = re.compile(r'"(\\.|[^"\\\n])*"|\'(\\.|[^\'\\\n])*\'')
_ATTRIBUTE = re.compile(r"__attribute__\s*\(\((.*?)\)\)|\[\[(.*?)\]\]", re.S)
_LOAD_ATTRIBUTE = re.compile(r"\b(?:gnu::)?_?_?(constructor|destructor|init_priority)_?_?\b")
_SECTION_ATTRIBUTE = re.compile(r"\b(?:gnu::)?_?_?section_?_?\b")
_INCLUDE = re.compile(r"^\s*#\s*(?:include|include_next|import)\b\s*(.*)$")
# an asm statement's .incbin or .include: the assembler reads a file, as #include does
_ASM_INCLUDE = re.compile(r"(?:^|[\"\s;])\.(?:incbin|include)\b(.*)$")
_LINE = re.compile(r"^\s*#\s*(?:line\b\s*|(?=\d))(.*)$")
_RUNTIME = re.compile(r"\bsim\s*::|\b__sim_\w*|\bnamespace\s+\w+\s*=\s*(?:::\s*)?sim\b|"
                      r"\busing\s+namespace\s+(?:::\s*)?sim\b|^\s*#\s*define\s+\w+(?:\([^)]*\))?\s.*\bsim\b|"
                      r"^\s*#\s*undef\s+sim\b")
# the runtime's namespace as the scan gives it (source.SIM_IN_THE_SCAN), where the learner's macros made it
_MADE_RUNTIME = re.compile(rf"\b{SIM_IN_THE_SCAN}\s*::|\bnamespace\s+\w+\s*=\s*(?:::\s*)?{SIM_IN_THE_SCAN}\b|"
                           rf"\busing\s+namespace\s+(?:::\s*)?{SIM_IN_THE_SCAN}\b")
# an asm label binding a declaration of the learner's to one of the runtime's symbols
_RUNTIME_LABEL = re.compile(r'\b(?:__asm__|__asm|asm)\s*\(\s*"\s*(_Z[A-Za-z]*3sim\d\w*|__sim_\w*|sim_\w+)')
_HOST_OBJECT = re.compile(r"\b(stdout|stderr|stdin|environ|__environ)\b")
_MARKED = r"\b(?:__device__|__constant__|__managed__)\b"


def checked(source):
    """``source`` itself, or the CompileError of the first thing above that it says."""
    what, spliced = _file_name(source), _spliced(source)
    lines = list(_code_lines(spliced))
    for rule in (_load_code, _section, _line_directive, _include, _runtime_name, _host_object):
        refusal = rule(what, lines, spliced)
        if refusal is not None:
            raise refusal
    return source


@functools.cache
def _exported():
    """The runtime's C functions (``SIM_EXPORT``, ``extern "C"``: sim_launch_cancel, ...), which
    Python calls and which a kernel that declared one could call too: a pattern of their names."""
    names = {name for path in INCLUDE_DIR.rglob("*") if path.is_file() for name in re.findall(
        r'(?:SIM_EXPORT|extern "C")\b[^;{]*?\b(sim_\w+)\s*\(', path.read_text(errors="replace"))}
    return re.compile(rf"\b({'|'.join(sorted(names))})\b")


def named_by_macros(user_code, what):
    """The learner's code after the scan's preprocessor (``user_code``: their macros expanded, sim
    made SIM_IN_THE_SCAN), with sim put back; or the CompileError of the runtime's namespace
    that their macros made (the text itself names none: ``checked``)."""
    code = _STRING.sub('""', user_code)
    m = _MADE_RUNTIME.search(code) or _exported().search(code)
    if m is None:
        return user_code.replace(SIM_IN_THE_SCAN, "sim")
    named = m[0].replace(SIM_IN_THE_SCAN, "sim")
    raise _refusal(what, (None, None), (
        f"a macro of yours makes {named}, the simulator's own runtime (a name pasted together with "
        "##), which runs your kernel: device code on a GPU has no such name, and may not touch the "
        "runtime's state.\nnote: use CUDA's own names (threadIdx, __syncthreads(), atomicAdd, "
        "printf, ...)."), RUNTIME_NAME, (named,))


def _spliced(source):
    """``source`` as the preprocessor reads it: each backslash at a line's end (spaces after it
    allowed, as GCC allows them) joins the next line to it, and as many empty lines follow the
    joined one, so that every later line keeps its number."""
    out, joined, held = [], "", 0
    for line in source.split("\n"):
        spliced = re.sub(r"\\[ \t\r]*$", "", line)
        if spliced != line:
            joined, held = joined + spliced, held + 1
            continue
        out += [joined + line] + [""] * held
        joined, held = "", 0
    return "\n".join(out + ([joined] if held else []))


def _file_name(source):
    m = re.match(r'\s*#line\s+\d+\s+"([^"]+)"', source)
    return m.group(1) if m else "kernel.cu"


def _code_lines(source):
    """(file, line, text, code) of each line, numbered as the compiler numbers it (a #line
    directive at the number of the line it stands on): ``code`` the text without comments."""
    blank = without_comments(source)
    file, number = "kernel.cu", 1
    for text, code in zip(source.splitlines(), blank.splitlines()):
        yield file, number, text, code
        directive = re.match(r'\s*#\s*line\s+(\d+)(?:\s+"([^"]*)")?', code)
        number, file = (int(directive[1]), directive[2] or file) if directive else (number + 1, file)


def _first(lines, pattern):
    """(file, line, match) of the first line whose code, strings made empty, ``pattern`` finds."""
    for file, number, _, code in lines:
        m = pattern.search(_STRING.sub('""', code))
        if m:
            return file, number, m
    return None


def _load_code(what, lines, source):
    found = _attributes(lines, _LOAD_ATTRIBUTE) or _constructed_variable(lines, source)
    if found is None:
        return None
    file, number, named = found
    return _refusal(what, (file, number), (
        f"{named} runs code when the module loads or unloads, before any kernel is launched "
        "(nvcc: dynamic initialization is not supported for __device__, __constant__ and "
        "__shared__ variables; a GPU runs code only in a launched kernel).\nnote: do that work "
        "in a kernel, and give a __device__ variable a plain type or a constant value."),
        LOAD_CODE, (named,))


def _attributes(lines, pattern):
    """(file, line, what) of the first attribute that ``pattern`` finds in."""
    for file, number, _, code in lines:
        for attribute in _ATTRIBUTE.finditer(code):
            m = pattern.search(attribute[1] or attribute[2] or "")
            if m:
                return file, number, f"the {m[1] if m.lastindex else 'section'} attribute"
    return None


def _constructed_variable(lines, source):
    """(file, line, what) of a __device__ variable (or a host one outside any braces) of a
    struct whose constructor or destructor has a body that runs code."""
    code = without_comments(source)
    structs = {name for name in re.findall(r"\b(?:struct|class)\s+(\w+)", code)
               if re.search(rf"(?:~\s*|\b){name}\s*\([^()]*\)[^;{{]*\{{\s*[^}}\s]", code)}
    for name in structs:
        declared = rf"{name}\s+(\w+)\s*(?:[;=\[{{,]|\([^)]*\)\s*;)"
        found = _first(lines, re.compile(rf"{_MARKED}[^;(]*\b{declared}")) or _first(
            _at_file_scope(lines), re.compile(rf"^\s*(?:(?:static|const|volatile)\s+)*{declared}"))
        if found:
            return found[0], found[1], f"the variable {found[2][1]} (a {name})"
    return None


def _at_file_scope(lines):
    """The lines that start outside any braces."""
    depth = 0
    for line in lines:
        if depth == 0:
            yield line
        code = _STRING.sub('""', line[3])
        depth += code.count("{") - code.count("}")


def _section(what, lines, source):
    found = _attributes(lines, _SECTION_ATTRIBUTE)
    if found is None:
        return None
    return _refusal(what, found[:2], (
        "a section attribute places code or data where the compiler would not: device code "
        "cannot choose its section.\nnote: delete __attribute__((section(...))); the compiler "
        "puts each function and variable where it belongs."), SECTION, ("section",))


def _line_directive(what, lines, source):
    for file, number, text, code in lines:
        m = _LINE.match(code)
        named = re.fullmatch(r'\s*\d+\s*(?:"([^"]*)"[\s\d]*)?', m[1]) if m else None
        if m and (named is None or _not_the_learners(named[1], what)):
            return _refusal(what, (file, number), (
                f"{text.strip()} names a file of the simulator's own (or a name a macro makes): "
                "its lines would be taken for the simulator's, not yours.\nnote: delete the "
                "#line; messages name your file and its lines without one."),
                LINE_DIRECTIVE, (text.strip(),))
    return None


def _not_the_learners(name, what):
    """A #line's file is one whose lines the race check, the init check and the trace pass over
    (compile/sites.py): the prelude's, as line tables name it, the generated unit, no file
    ("??"), or the system's (/usr, /opt) other than the learner's own ``what``; a real file of
    the learner's named like the prelude's (sim_test.cu) is theirs. None: no file named."""
    if name is None:
        return False
    real = Path(name).is_file() and not Path(name).resolve().is_relative_to(INCLUDE_DIR)
    simulators = not real and (in_prelude(name) or name.startswith(INCLUDE_IN_LINE_TABLES)
                               or re.search(r"(^|/)module\.cpp$", name) is not None)
    return name in ("", "??") or simulators or name.startswith(("/usr/", "/opt/")) and name != what


def _include(what, lines, source):
    for file, number, text, code in lines:
        m = _INCLUDE.match(code) or _ASM_INCLUDE.search(code)
        named = re.fullmatch(r'\s*(?:<([^>]*)>|"([^"]*)")\s*', m[1]) if m else None
        name = named and (named[1] or named[2])
        if m and (not name or name.startswith("/") or ".." in Path(name).parts):
            return _refusal(what, (file, number), (
                f"{text.strip()} reads a file outside the course's folders (an absolute path, a "
                "path with .., or a name a macro makes): a kernel may include only the headers "
                "CUDA and C++ give (<cuda_fp16.h>, <mma.h>, <cstdio>, ...) and files of its own "
                "folder.\nnote: include a header by its name alone (#include <mma.h>, #include "
                "\"my_helpers.h\" beside your .cu)."), INCLUDE, (text.strip(),))
    return None


def _runtime_name(what, lines, source):
    found = _first(lines, _RUNTIME) or _first(lines, _exported()) or next(
        ((file, number, m) for file, number, _, code in lines for m in [_RUNTIME_LABEL.search(code)]
         if m), None)
    if found is None:
        return None
    named = (found[2][found[2].lastindex] if found[2].lastindex else found[2][0]).strip()
    return _refusal(what, found[:2], (
        f"{named} names the simulator's own runtime (sim::, __sim_, its sim_ functions), which "
        "runs your kernel: device code on a GPU has no such names, and may not touch the runtime's state."
        "\nnote: use CUDA's own names (threadIdx, __syncthreads(), atomicAdd, printf, ...)."),
        RUNTIME_NAME, (named,))


def _host_object(what, lines, source):
    found = _first(lines, _HOST_OBJECT)
    if found is None:
        return None
    named = found[2][1]
    return _refusal(what, found[:2], (
        f"device code uses {named}, an object of the host's C library that a GPU does not have "
        f"(nvcc: identifier \"{named}\" is undefined in device code).\nnote: printf(...) is "
        "device code's only output; copy results back and write them on the host."),
        HOST_OBJECT, (named,))
