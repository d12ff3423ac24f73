"""What device code may call: the built object's undefined symbols against an allow-list.

On a GPU a kernel can call only what CUDA gives device code: `printf`, `malloc` and `free`,
`memcpy` and `memset`, `assert`, `new` and `delete`, the math library, and the functions of its
own source. nvcc refuses any other call ("calling a __host__ function from a __global__ function
is not allowed"). The simulator compiles the same source as host C++, where `open`, `write`,
`fork` or `sleep` would compile and run with the learner's (or the grader's) rights. The prelude
turns the C library's best-known host functions into compile errors with advice
(`include/sim_host_only.h`); this module closes the rest: after compiling, every symbol the
object needs from outside is checked against what device code may use and what the simulator's
own prelude and runtime use, and any other is refused with the `.cu` line that calls it. An
`asm` statement that makes a system call is refused the same way.

The prelude's own needs (the grid runner's and the trace's functions, the C++ runtime's thread
locals, a few C library functions its inline code calls) are allowed as such: the C library
functions among them (`snprintf`, `strcmp`, ...) are also in the prelude's list of host
functions, so a learner's own call to one is a compile error before this check runs.
"""

import functools
import re
import subprocess

from . import toolchain
from .module import global_symbols, undefined_symbols

# The math library, as CUDA's Math API has it in device code (single and double precision).
_MATH = """acos acosh asin asinh atan atan2 atanh cbrt ceil copysign cos cosh cospi erf erfc
erfcinv erfcx erfinv exp exp10 exp2 expm1 fabs fdim floor fma fmax fmin fmod frexp hypot ilogb
j0 j1 jn ldexp lgamma llrint llround log log10 log1p log2 logb lrint lround modf nan nearbyint
nextafter norm3d norm4d pow rcbrt remainder remquo rhypot rint rnorm3d rnorm4d round rsqrt
scalbln scalbn sin sincos sincospi sinh sinpi sqrt tan tanh tgamma trunc y0 y1 yn""".split()
_C_LIBRARY = {"printf", "vprintf", "malloc", "free", "memcpy", "memset", "abs", "labs", "llabs",
              "clock", "__assert_fail", "__assert_perror_fail"}
# What the prelude's inline code and the C++ runtime need (include/*.h): printf's stream, the
# fibers' switch, the messages it formats, clock64's clock, the rounding modes of __fadd_rz and
# friends, thread-local storage.
_PRELUDE = {"snprintf", "strcmp", "strncpy", "siglongjmp", "clock_gettime",
            "fegetround", "fesetround",
            "getcontext", "makecontext", "swapcontext",  # the portable fiber switch (sim_switch.h)
            "_GLOBAL_OFFSET_TABLE_", "__tls_get_addr", "__stack_chk_fail", "__stack_chk_guard",
            "__dso_handle",
            "__cxa_guard_acquire", "__cxa_guard_release", "__cxa_guard_abort", "__cxa_atexit",
            "__cxa_thread_atexit", "__cxa_thread_atexit_impl", "__cxa_pure_virtual",
            # <iostream>'s static initialiser (std::ios_base::Init), the one a header brings
            "_ZNSt8ios_base4InitC1Ev", "_ZNSt8ios_base4InitD1Ev"}
# C99's complex functions, which <complex> and PyCUDA's complex header call.
_COMPLEX = """cabs cacos cacosh carg casin casinh catan catanh ccos ccosh cexp cimag clog conj cpow
cproj creal csin csinh csqrt ctan ctanh""".split()
ALLOWED = frozenset({*(f + suffix for f in _MATH + _COMPLEX for suffix in ("", "f", "l")),
                     *_C_LIBRARY, *_PRELUDE})
# The simulator's own runtime (also whatever the prebuilt runners define: operator new and delete
# among them, a kernel's from the device heap), GCC's instrumentation callbacks, and libgcc's
# arithmetic helpers.
_ALLOWED_PATTERN = re.compile(
    r"^(_ZN3sim|__sim_|__tsan_|__ubsan_handle_|__sanitizer_cov_trace_pc$|"
    r"__(mul|div|pow|mod|umod|udiv|popcount|clz|ctz|ffs|parity|bswap|ashl|"
    r"ashr|lshr|fix|float|extend|trunc)\w*[1-9]$|__\w*_finite$)")
# Instructions that enter the operating system (x86-64, x86, Arm64).
_SYSTEM_CALL = re.compile(r"^\s*[0-9a-f]+:\s+(syscall|sysenter|int\s+\$0x80|svc\s)", re.M)
SYSTEM_CALL = "syscall"  # the name a system call in the learner's object is refused under
# Code run when the library loads or unloads, before and after any check. The simulator's own
# object runs none (its table of kernels is constant-initialised), so any entry in .init_array
# is the learner's: a constructor or destructor function, or a variable whose constructor runs
# code, however the source spelled it; but for <iostream>'s static object (g++ before 13 gives
# each unit that includes it one initialiser) and, in an instrumented build, ThreadSanitizer's.
STARTUP_CODE = "constructor"
_STARTUP_TABLES = re.compile(r"^\.(init_array|preinit_array|fini_array|ctors|dtors)\b")
_STARTUP_CODE = re.compile(r"^\.text\.(startup|exit)\b")
# What those two initialisers refer to: the static object (local: its section), ios_base::Init's
# constructor and destructor and the call that registers the destructor; ThreadSanitizer's start,
# and the memory trace's callback (instrumented.py), which it puts in every function.
_IOSTREAM_INIT = frozenset({".bss", "_ZStL8__ioinit", "_ZNSt8ios_base4InitC1Ev",
                            "_ZNSt8ios_base4InitD1Ev", "__dso_handle", "__cxa_atexit"})
_INSTRUMENTED_INIT = frozenset({"__tsan_init", "__sanitizer_cov_trace_pc"})
# Where code lies: a section of instructions, or one whose name the linker puts among them.
_CODE_NAME = re.compile(r"^\.(text|init|fini|stub|gnu\.linkonce\.t)\b")

# Advice for a host function by what it is for (messages.py words it): by default "system".
_GROUPS = {"time": re.compile(r"^(sleep|usleep|nanosleep|clock_nanosleep|alarm|time|gettimeofday|"
                              r"clock_gettime)$"),
           "random": re.compile(r"^(rand|random|[dejlmn]rand48|arc4random|getrandom)\w*$")}

def refused(obj, runners=(), instrumented=False):
    """The names of the symbols that ``obj`` (a compiled module) needs and device code may not
    use, in order; SYSTEM_CALL where any of its code enters the operating system, STARTUP_CODE
    where it runs code of its own when it loads or unloads (``_runs_at_load``). ``runners``: the
    prebuilt objects it is linked with, whose definitions it may use."""
    own = set().union(*(_defined(str(r)) for r in runners))
    found = [n for n in undefined_symbols(obj)
             if n not in ALLOWED and n not in own and not _ALLOWED_PATTERN.match(n)]
    sections = _sections(obj)
    code = [name for name, flags in sections if "CODE" in flags or _CODE_NAME.match(name)]
    if code and _SYSTEM_CALL.search(_binutils("objdump", "-D", "--no-show-raw-insn",
                                              *(f"-j{name}" for name in code), str(obj))):
        found.append(SYSTEM_CALL)
    if _runs_at_load(obj, [name for name, _ in sections], instrumented):
        found.append(STARTUP_CODE)
    return found


def _runs_at_load(obj, sections, instrumented):
    """Whether ``obj`` runs code of the learner's when it loads or unloads: an initialiser beyond
    <iostream>'s and an instrumented build's, or one that refers to anything theirs do not."""
    targets = _relocations(obj, [name for name in sections if _STARTUP_CODE.match(name)])
    iostream = "_ZNSt8ios_base4InitC1Ev" in targets
    allowed = (_IOSTREAM_INIT if iostream else set()) | (_INSTRUMENTED_INIT if instrumented else set())
    entries = _relocations(obj, [name for name in sections if _STARTUP_TABLES.match(name)], every=True)
    return len(entries) > bool(instrumented) + iostream or not targets <= allowed


@functools.lru_cache(maxsize=16)
def _defined(runner):
    """What a prebuilt runner defines (its name holds the digest of what it was built from)."""
    return frozenset(global_symbols(runner))


def _sections(obj):
    """[(name, its flags as objdump -h gives them: "CODE", "ALLOC", ...)] of an object."""
    lines = _binutils("objdump", "-h", "-w", str(obj)).splitlines()
    return [(m[1], set(m[2].split(", "))) for m in
            (re.match(r"^\s*\d+\s+(\S+)\s.*?\s\d\*\*\d+\s+(.*)$", line) for line in lines) if m]


def _relocations(obj, sections, every=False):
    """What the relocations of ``obj``'s ``sections`` refer to: a set of names, or (``every``)
    a list with one name a relocation (an .init_array's: one a function it runs)."""
    if not sections:
        return [] if every else set()
    out = _binutils("objdump", "-r", *(f"-j{name}" for name in sections), str(obj))
    names = re.findall(r"^[0-9a-f]+\s+R_\w+\s+([^\s+-]+)", out, re.M)
    return names if every else set(names)


def calling_lines(obj_with_lines, symbols):
    """{symbol: "file:line"} of the first call of each symbol in an object built with line
    tables, read from its disassembly (each relocation after the last line it follows)."""
    out = _binutils("objdump", "-d", "-l", "-r", "--no-show-raw-insn", str(obj_with_lines))
    wanted, where, line = set(symbols), {}, None
    for text in out.splitlines():
        place = re.match(r"^(\S+):(\d+)(?: \(discriminator \d+\))?$", text)
        if place:
            line = f"{place.group(1).rsplit('/', 1)[-1]}:{place.group(2)}"
            continue
        reloc = re.match(r"^\s+[0-9a-f]+:\s+R_\w+\s+([^\s+-]+)", text)
        if reloc and reloc.group(1) in wanted and line and reloc.group(1) not in where:
            where[reloc.group(1)] = line
        elif SYSTEM_CALL in wanted and _SYSTEM_CALL.match(text) and line:
            where.setdefault(SYSTEM_CALL, line)
    return where


def readable(symbol):
    """A symbol as the learner wrote it: C++ names demangled, glibc's 64-bit aliases plain."""
    if symbol.startswith("_Z"):  # without its parameters: the message adds "()"
        symbol = re.sub(r"\(.*\)$", "", _binutils("c++filt", symbol).strip())
    return re.sub(r"64$", "", symbol) if re.match(r"^(open|creat|lseek|mmap|stat)64$", symbol) \
        else symbol


def group(name):
    """What a host function is for, as messages.py gives advice: "time", "random" or
    "system"."""
    return next((g for g, pattern in _GROUPS.items() if pattern.match(name)), "system")


def _binutils(tool, *args):
    path = toolchain.binutils(tool, "the simulator's check of what device code calls")
    return subprocess.run([path, *args], capture_output=True, text=True, check=True).stdout
