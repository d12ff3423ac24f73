"""From a learner's .cu source to the C++ translation unit the simulator compiles.

    #include "cuda_sim.h"                  the prelude: CUDA's keywords, built-ins, runtime
    #define NAME value                     the -D options (after the prelude: they are the
                                           learner's macros, and cannot change the prelude)
    extern "C" {                           as PyCUDA wraps it (unless no_extern_c)
    #line 1 "kernel.cu"                    so that messages name the learner's file
    <the source>                           `extern __shared__ T a[];` rewritten (C++ has none)
    }
    <the table of kernels>                 in reserved names only (see include/sim_launch.h)

Nothing after the learner's code may use a name the learner could #define: the table uses only
``__sim_`` names, and the kernels' own names as the preprocessor gave them.
"""

import re
from pathlib import Path

# The prelude and runtime every kernel is compiled with (cuda_sim.h and the files it includes).
INCLUDE_DIR = (Path(__file__).resolve().parent.parent / "include")
# What line tables call INCLUDE_DIR (builder.LINE_TABLES), the same in every copy of the course.
INCLUDE_IN_LINE_TABLES = "/cuda-sim-include"
USER_MARK = "__sim_user_code_starts_here__"
# What the scan makes of the name sim in the learner's code, written or made by their macros (a
# name pasted together, si##m, or split over two lines): learner_text.py refuses it before a
# namespace's ::, and puts sim back. The course's headers a learner includes keep their own sim
# (#pragma push_macro / pop_macro).
SIM_IN_THE_SCAN = "__sim_the_learners_sim__"
# The prelude, and what must follow it in the unit itself (a precompiled prelude cannot hold it).
PRELUDE = '#include "cuda_sim.h"\n#include "sim_prelude_end.h"\n'

# The prelude's functions that need a thread to wait for others: a module that calls one runs
# each block's threads as fibers (include/cuda_sim.h and sim_warp.h define them).
_USES_FIBERS = re.compile(r"\b__sim_(sync_block|sync_block_reduce|sync_warp|shfl|vote|active_mask|"
                          r"match|reduce|reduce_bits|nanosleep|sync_block_at|sync_warp_at|"
                          r"coalesced_lanes|warp_task)\b")
_GLOBAL = re.compile(r"__sim_global__[^;{(]*?\b([A-Za-z_]\w*)\s*\(")
_DEVICE_FUNCTION = re.compile(r"__sim_device__[^;{(=]*?\b[A-Za-z_]\w*\s*\(")
# CUDA's __noinline__ is written out in the learner's text, not defined as a macro: libstdc++ uses
# the GNU spelling __attribute__((__noinline__)) (<memory>, from GCC 12), which such a macro would
# break in every header the learner includes after the prelude. The GNU spelling is left alone.
_NOINLINE = re.compile(r"(?<!\()\b__noinline__\b")
# nvcc's #pragma unroll (every turn of a loop whose count the compiler knows) and #pragma unroll N
# as GCC's, which otherwise ignores them: notebook 04's 16 pixels a thread then stay in registers,
# as on a GPU (rgb_to_gray_x16 took half the time). At most UNROLL_AT_MOST turns: GCC unrolls as
# far as it is told, and a loop of 100,000 turns took it minutes. A count that is not a number (a
# macro, a template parameter) is left for GCC to ignore. Results are the same either way.
UNROLL_AT_MOST = 32
_UNROLL = re.compile(r"^([ \t]*)#[ \t]*pragma[ \t]+unroll\b[ \t]*(\(?[ \t]*(\d+)[ \t]*\)?)?[ \t]*$",
                     re.MULTILINE)
EXTERN_SHARED = re.compile(r"\bextern\s+__shared__\s+([^;\[\]]*?)\s*\b([A-Za-z_]\w*)\s*\[\s*\]\s*;")


def in_prelude(path):
    """Whether a file the compiler names is the prelude's (or one of the headers it gives a
    kernel: cooperative_groups.h, ...), not the learner's."""
    return "/cuda_sim" in path or "/sim_" in path or path.startswith(f"{INCLUDE_DIR}/")


def anywhere(flag):
    """A compiler flag as it would be in any copy of the course: INCLUDE_DIR in it named as the
    line tables name it (a cache's name made from flags is then the same everywhere)."""
    return flag.replace(str(INCLUDE_DIR), INCLUDE_IN_LINE_TABLES)


def defines(macros):
    """Lines that define the -D and undefine the -U options, in their order."""
    lines = []
    for opt in macros:
        name, _, value = opt[2:].partition("=")
        if opt.startswith("-U"):
            lines.append(f"#undef {name}")
        else:
            lines.append(f"#define {name} {value if '=' in opt else '1'}")
    return "".join(line + "\n" for line in lines)


def user_source(source, macros=(), no_extern_c=False):
    """The learner's source as the translation unit holds it, after the prelude."""
    # PyCUDA names the file kernel.cu; a source read by helpers.backend.compile_cu starts with a
    # #line directive naming its .cu file, so compiler messages point at the learner's file.
    if not source.lstrip().startswith("#line"):
        source = '#line 1 "kernel.cu"\n' + source
    source = _NOINLINE.sub("__attribute__((noinline))", _dynamic_shared(source))
    source = _UNROLL.sub(lambda m: f"{m[1]}#pragma GCC unroll "
                                   f"{min(int(m[3] or UNROLL_AT_MOST), UNROLL_AT_MOST)}", source)
    body = source if no_extern_c else 'extern "C" {\n' + source + "\n}\n"
    return defines(macros) + body


_COMMENT = re.compile(r"//[^\n]*|/\*.*?\*/", re.S)


def without_comments(source):
    """``source`` with its comments blanked out, every line and offset kept (a // inside a
    string is taken for a comment too: the readers of a learner's text look for code, not
    strings)."""
    return _COMMENT.sub(lambda m: re.sub(r"[^\n]", " ", m[0]), source)


def numbered_lines(source):
    """(file, line, text) for each line of the learner's source, numbered as the compiler numbers
    it: from 1 in kernel.cu (user_source's default), or as the source's #line directives say."""
    current, number = "kernel.cu", 1
    for text in source.splitlines():
        directive = re.match(r'\s*#\s*line\s+(\d+)(?:\s+"([^"]*)")?', text)
        if directive:
            number, current = int(directive.group(1)), directive.group(2) or current
            continue
        yield current, number, text
        number += 1


def line_text(source, line, file=None):
    """The text of line ``line`` (as numbered_lines numbers it) of the learner's source, in the
    file named ``file`` (its last component compared; any file where None): None where the source
    holds no such line, or several files hold one."""
    found = [text for name, number, text in numbered_lines(source or "") if number == int(line)
             and (file is None or Path(name).name == Path(file).name)]
    return found[0] if len(found) == 1 else None


def scan_unit(body):
    """What the preprocessor runs on to find the kernels: the learner's code after a mark."""
    return f"{PRELUDE}#define sim {SIM_IN_THE_SCAN}\n{USER_MARK}\n{body}"


def after_mark(preprocessed):
    return preprocessed[preprocessed.index(USER_MARK) + len(USER_MARK):]


def kernels_in(preprocessed_user_code):
    """{the kernels' entries: the expression of each one's function, its name}, in order, from
    the preprocessed code (__global__ marks them). A kernel template is a kernel only where it is
    instantiated explicitly (``template __global__ void k<float>(float *, int);``), as with nvcc,
    each instantiation an entry of its own, named by its C++ mangled name (module.py)."""
    code, entries, templates = without_strings(preprocessed_user_code), {}, set()
    for m in _GLOBAL.finditer(code):
        if _TEMPLATE_HEAD.search(code[_statement_start(code, m.start()):m.start()]):
            templates.add(m.group(1))
        else:
            entries.setdefault(f"&{m.group(1)}", m.group(1))
    for m in _INSTANTIATION.finditer(code):
        name, arguments, params = m.group(1), m.group(2) or "", m.group(3)
        if name in templates:
            entries[f"static_cast<void (*)({params})>(&{name}{arguments})"] = name
    return entries


# A kernel template's head or an explicit instantiation, before __global__; an instantiation.
_TEMPLATE_HEAD = re.compile(r"\btemplate\b")
_INSTANTIATION = re.compile(r"\btemplate\s+(?:__sim_global__\s+)?void\s+([A-Za-z_]\w*)\s*"
                            r"(<[^;{}()]*(?:\([^;{}()]*\)[^;{}()]*)*>)?\s*\(([^;{}]*)\)\s*;")


def _statement_start(code, end):
    """Where the declaration that reaches code[end] starts: after the last ;, { or } before."""
    return max(code.rfind(c, 0, end) for c in ";{}") + 1


def uses_fibers(preprocessed_user_code):
    return bool(_USES_FIBERS.search(preprocessed_user_code))


_LOOP = re.compile(r"\b(for|while|do)\b")


def loop_free_kernels(preprocessed_user_code):
    """The kernels whose body holds no loop (for, while, do): a plain module's block loop is
    vectorised across the threads of those only (include/sim_launch.h: run_block_vectorised)."""
    code = without_strings(preprocessed_user_code)
    return {name for name, body in kernel_bodies(code).items()
            if body and not _LOOP.search(code[body[0]:body[1]])}


def without_strings(code):
    """The code with each string and character literal made empty (""): no brace, keyword or
    name inside one is read as code."""
    return re.sub(r'"(\\.|[^"\\])*"|\'(\\.|[^\'\\])*\'', '""', code)


def kernel_bodies(preprocessed_user_code):
    """{kernel: (start, end) of its body's text, braces included; None for a name defined more
    than once}. A declaration without a body is passed over: its definition is matched too."""
    code, found = preprocessed_user_code, {}
    for m in _GLOBAL.finditer(code):
        end = _closing(code, m.end() - 1, "(", ")")
        body_start = re.compile(r"[{;]").search(code, end) if end >= 0 else None
        if body_start is None or body_start.group() == ";":
            continue
        body = (body_start.start(), _closing(code, body_start.start(), "{", "}"))
        found[m.group(1)] = None if m.group(1) in found or body[1] < 0 else body
    return found


def _closing(code, start, opening, closing):
    """The index after the bracket that closes the one at code[start], or -1."""
    depth = 0
    for i in range(start, len(code)):
        depth += (code[i] == opening) - (code[i] == closing)
        if depth == 0:
            return i + 1
    return -1


def defines_device_functions(preprocessed_user_code):
    """Whether the code declares a __device__ function (not only __device__ variables)."""
    return bool(_DEVICE_FUNCTION.search(preprocessed_user_code))


def translation_unit(body, kernels, instrumented_as=None, vectorised=(), split=(), bounds=None):
    """The prelude (and sim_prelude_end.h, which a precompiled prelude cannot hold), the learner's
    code, and the table of its kernels (``kernels``: kernels_in's entries). An instrumented build (helpers/sim/microscope/instrumented.py) names
    the code around the learner's after the file `instrumented_as`, so that none of it is taken
    for the learner's, and ends the learner's __shared__ arrays with bytes of no array
    (include/sim_traced.h). The kernels named in ``vectorised`` (loop_free_kernels) run their
    blocks on the loop the compiler may vectorise across threads, where the module has one; those
    in ``split``, rewritten by split.py, run once a block."""
    runner = {f"&{k}": 2 if k in split else int(k in vectorised) for k in kernels.values()}
    entries = "".join(f'    __sim_entry<{function}, {runner.get(function, 0)}>("{k}"),\n'
                      for function, k in kernels.items()) or "    {},\n"
    most = ", ".join(str((bounds or {}).get(k, 0)) for k in kernels.values()) or "0"
    generated = f'#line 1 "{instrumented_as}"\n' if instrumented_as else ""
    guard = "__SIM_SHARED_GUARD(shared_guard_before)\n" if instrumented_as else ""
    return (f"{generated}{PRELUDE}{body}\n{generated}{guard}"
            f"extern \"C\" __SIM_CONSTINIT const __sim_kernel_entry __sim_kernel_table[] = {{\n{entries}}};\n"
            f'extern "C" const int __sim_kernel_table_size = {len(kernels)};\n'
            f'extern "C" const int __sim_kernel_max_threads[] = {{{most}}};\n')


# ---- extern __shared__ ------------------------------------------------------------------------------
def _brace_depth(text):
    """Brace depth at the end of text, with comments and string literals left out."""
    text = re.sub(r'//[^\n]*|/\*.*?\*/|"(\\.|[^"\\])*"|\'(\\.|[^\'\\])*\'', "", text, flags=re.S)
    return text.count("{") - text.count("}")


def _dynamic_shared(source):
    """`extern __shared__ T name[];` has no C++ meaning: inside a function it becomes a pointer to
    this block's dynamic shared memory (sized by the launch's shared=, ending at a guard page);
    at file scope, a macro for that pointer. Line numbers are kept."""
    def replace(m):
        c_type, name = m.group(1), m.group(2)
        pointer = f"(({c_type} *)__sim_dynamic_shared())"
        if _brace_depth(source[:m.start()]) > 0:
            return f"{c_type} *const {name} = {pointer};"
        return f"\n#define {name} {pointer}\n#line {_line_of(source, m.start())}\n"

    return EXTERN_SHARED.sub(replace, source)


def _line_of(text, offset):
    line = 1
    for m in re.finditer(r'^\s*#line\s+(\d+)[^\n]*$|\n', text[:offset], flags=re.M):
        if m.group(1):
            line = int(m.group(1)) - 1
        else:
            line += 1
    return line
