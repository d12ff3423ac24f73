"""Building a simulator module: the same .cu source, compiled by the host C++ compiler into a
shared library (`compiler.SourceModule` loads it).

The source goes behind the prelude `include/cuda_sim.h` (CUDA's keywords and built-ins) inside
`extern "C" { }` as PyCUDA puts it, and a table of its kernels is appended (`source.py`). The
kernels' names come from the preprocessor (the prelude marks `__global__` functions while it looks
for them); their parameter types come from the compiled kernels themselves
(`include/sim_launch.h`). Floats are computed as nvcc computes them, with fused multiply-adds
(`toolchain.py`). What the compiler and linker say is turned into messages about the learner's
file (`messages.py`).

Built libraries are cached per user (`cache.py`), keyed by a hash of everything that goes into
them, and written atomically, so two notebooks compiling the same source at once cannot corrupt
the cache; a module already cached is found without running the compiler at all.
"""

import contextlib
import functools
import hashlib
import platform
import re
import subprocess
import sys
import tempfile
import warnings
from pathlib import Path

from . import cache as module_cache
from . import capabilities, device_calls, prebuilt, sites, source as unit, split, toolchain, warned
from . import device_rules, diagnosed, launch_bounds, learner_text, messages as compiler_messages
from ..errors import CompileError
from ..settings import settings
from .lines import PARSED
from .source import INCLUDE_DIR, INCLUDE_IN_LINE_TABLES, anywhere

# Raised with every change to what a built module does, so no cached build outlives it (git: why).
SIM_VERSION = "32"
CXX_FLAGS = ["-std=c++17", "-O2", "-fPIC", "-pthread", "-fno-strict-aliasing",
             # the learner's __device__ functions may be inlined, as nvcc inlines them, although
             # -fPIC lets another library stand in for a global function (the link's -Bsymbolic
             # rules that out anyway): a product returned by one and added by its caller is then
             # fused, as on a GPU (tests/kernels/test_kernels_compile.py)
             "-fno-semantic-interposition",
             "-U_FORTIFY_SOURCE", "-D_FORTIFY_SOURCE=0", "-fsanitize=bounds",
             "-fstack-clash-protection",  # a huge local array faults below its stack, not beyond
             # no stack guards in the runners, whatever the distribution's default (Ubuntu's g++
             # plants them unasked); the learner's code gets its own (OPERATOR_CHECKS)
             "-fno-stack-protector",
             "-Wno-unused-result", "-Wno-attributes", "-Wformat", "-Wno-format-zero-length"]
# x86-64's default code model reaches data within 2 GiB of the code: a __device__ array of 2 GiB
# (nvcc builds one) pushed the runtime's own variables out of reach ("relocation truncated to
# fit"). The medium model puts every array of 64 KiB or more after the rest (.lbss, .ldata), so
# that only they are addressed with 64 bits. Arm64's reaches 4 GiB, and has no medium model.
X86_64 = platform.machine() in ("x86_64", "AMD64")
CXX_FLAGS += ["-mcmodel=medium"] if X86_64 else []
# The learner's code only (the runners are built without): a float-to-integer conversion of NaN or
# out of range, a shift by the operand's width or more, a write through a pointer past a local
# array's end (object-size) call the runtime's handlers (sim_grid.h), which stop the launch.
OPERATOR_CHECKS = ["-fsanitize=float-cast-overflow,shift-exponent,object-size",
                   # a guard word below each return address of a function with local arrays: a
                   # write past their end is caught at the function's end (sim_grid.h's
                   # __stack_chk_fail), not left to wherever it lands in the compiler's frame
                   # (g++ 12 put smash's return address there, g++ 13 did not:
                   # tests/sim/run/test_return_overwritten.py)
                   "-fstack-protector-strong",
                   "-fcheck-new",  # a kernel's new may give NULL (sim_grid.h), as CUDA's does
                   # a local variable read before anything was written to it, where g++ can tell
                   # (issue 27): a warning in the learner's words (messages.learner_warnings);
                   # nvcc says nothing, and a GPU reads what its registers last held; on some
                   # paths only (a vote set under if (i < n)), where g++ places a read inside the
                   # prelude's macros at their header with the learner's declaration in a note
                   "-Wuninitialized", toolchain.MAYBE_UNINITIALISED,
                   # if (i < n); ends the if at its semicolon, __syncthreads; calls nothing, C
                   # reads 0 <= i < n as (0 <= i) < n, !x < w as (!x) < w, and an unsigned b >= 0
                   # is always true (nvcc warns too; warned.py's records)
                   "-Wempty-body", "-Waddress", "-Wparentheses", "-Wlogical-not-parentheses",
                   "-Wtype-limits", "-Werror=vla",  # float buf[n]; nvcc: "must have a constant value"
                   # a local variable read before anything was written to it holds a pattern
                   # (0xFE bytes: a float of -1.7e38, an int of -16843010), not the 0 that a fresh
                   # stack gives by luck: on a GPU it holds what its registers held last
                   toolchain.PATTERN_LOCALS]
# Every symbol must be defined when the library is linked, not when it is loaded: a function
# declared but never defined is then a compile error that names it.
LINK_FLAGS = ["-shared", "-pthread"] + (["-Wl,-z,defs", "-Wl,-Bsymbolic"] if sys.platform.startswith("linux") else [])
# Line tables in DWARF 4, for the builds that must name lines (a link error to explain, a fault to
# place: build(lines=True), and the instrumented builds). The plain build has none: they made it
# 10 to 25% slower to compile (0.05 to 0.1 s of 0.3 to 0.5 s a module with g++ 12), and GCC's code
# does not depend on -g, so a fault's instruction is found at the same address in a build with
# them (compile/lines.py). With DWARF 5's, binutils 2.40 (Debian 12's ld and addr2line) names the
# compiled file (module.cpp) instead of the learner's #line file when the learner's code is the
# first code in the unit.
# The prelude's headers are named INCLUDE_IN_LINE_TABLES there, wherever this copy of the course
# is: a library or precompiled prelude built in one copy (a second checkout, a student release)
# is read in another, whose folder would not be the runtime's (sites.py tells the learner's
# accesses and lines from the runtime's by the file).
LINE_TABLES = ["-g1", "-gdwarf-4", f"-fdebug-prefix-map={INCLUDE_DIR}={INCLUDE_IN_LINE_TABLES}"]
# The instrumented builds, made only when a trace, the race check or the init check asks for one:
# every load and store of the learner's code calls the runtime (include/sim_trace.h, through GCC's
# ThreadSanitizer instrumentation without its library; prebuilt once and linked in), which knows the
# thread; -g1 lets helpers/sim/compile/sites.py map each call to its source line. No vectorising and
# no splitting of structs, so that each access stays one access as on a GPU (a uint4 is one 16-byte
# load); no tail calls, so that each callback's return address is in the code that called it. The
# "blocks" build also calls the runtime at each basic block, to measure divergence; without
# exceptions (device code has none), since a call in each block keeps alive the empty clean-ups that
# GCC would otherwise drop, and a clean-up needs the C++ runtime's personality routine, which device
# code may not call (device_calls.py; a cooperative group alive across a barrier makes one).
INSTRUMENT_FLAGS = {
    "memory": ["-DSIM_TRACE", *LINE_TABLES, "-fsanitize=thread", "--param=tsan-instrument-func-entry-exit=0",
               "-Wno-tsan", "-fno-tree-vectorize", "-fno-tree-sra", "-fno-ipa-sra",
               "-fno-optimize-sibling-calls"]}
INSTRUMENT_FLAGS["blocks"] = [*INSTRUMENT_FLAGS["memory"], "-DSIM_TRACE_BLOCKS",
                              "-fsanitize-coverage=trace-pc", "-fno-exceptions"]
# In an instrumented build, the code around the learner's is named as the simulator's own, so
# that its accesses are never counted as the learner's.
GENERATED = INCLUDE_DIR / "sim_module.cpp"

# nvcc options that mean nothing on a CPU: accepted and ignored, so notebook code stays PyCUDA's.
_IGNORED_OPTIONS = re.compile(
    r"^(-{1,2}use_fast_math|-lineinfo|-G|-g|-O\d|--?ptxas-options.*|-Xptxas.*|-arch.*|"
    r"--?gpu-architecture.*|-code.*|-rdc.*|--?maxrregcount.*|-w|--?extended-lambda|"
    r"--?expt-relaxed-constexpr|-keep|--?restrict|-ftz.*|-prec-.*)$")
# Warning options only: -Wp, -Wa and -Wl hand their arguments to the preprocessor, assembler and
# linker (which could write any file), so they are not warning options and are refused.
_PASSED_OPTIONS = re.compile(r"^(-I.+|-std=.*|--std=.*|-W(?:no-)?[a-z][a-z0-9+=-]*)$")
# -D and -U become #define lines after the prelude, except for the switches the prelude itself
# reads (NDEBUG turns assert off; SIM_* are the simulator's own, for its tests).
_MACRO_OPTION = re.compile(r"^-[DU][A-Za-z_]\w*(\([^)]*\))?(=.*)?$", re.S)
_PRELUDE_SWITCH = re.compile(r"^-[DU](NDEBUG|SIM_\w+)\b")


def translate_options(options):
    """(compiler flags, -D/-U options for the source) from SourceModule's nvcc options."""
    flags, macros = toolchain.float_flags(options), []
    for opt in options or []:
        if toolchain.is_fmad_option(opt):
            continue
        if _MACRO_OPTION.match(opt):
            (flags if _PRELUDE_SWITCH.match(opt) else macros).append(opt)
        elif _PASSED_OPTIONS.match(opt):
            flags.append(opt.replace("--std=", "-std="))
        elif not _IGNORED_OPTIONS.match(opt):
            raise ValueError(
                f"SourceModule option {opt!r} has no meaning on the CPU simulator. Options it "
                "understands: -D, -U, -I, -std=, --fmad=, and warning options -W...; GPU-only "
                "ones such as -use_fast_math, -lineinfo and -arch are accepted and ignored.")
    return flags, macros


@functools.lru_cache(maxsize=1)
def _prelude_digest():
    h = hashlib.sha256()
    # .h: the prelude; .hpp: PyCUDA's headers; .cpp: the grid runner, linked into every module
    # (and cooperative_groups/: the headers a kernel includes itself)
    for header in sorted([*INCLUDE_DIR.rglob("*.h*"), *INCLUDE_DIR.glob("*.cpp")]):
        h.update(header.relative_to(INCLUDE_DIR).as_posix().encode() + b"\0" + header.read_bytes())
    return h.hexdigest()


def _digest(*parts):
    return hashlib.sha256("\0".join(parts).encode()).hexdigest()


def _run(cmd, what, message=compiler_messages.compile_error):
    """Run a compiler or linker command; when it fails, raise the CompileError that ``message``
    makes of its output, with the command and the output attached."""
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        err = message(what, proc.stderr)
        err.command_line, err.stdout, err.stderr = cmd, proc.stdout, proc.stderr
        raise err
    return proc


def source_name(source):
    m = re.match(r'\s*#line\s+\d+\s+"([^"]+)"', source)
    return m.group(1) if m else "kernel.cu"


class _Build:
    """One module to build: its text, flags and name in the cache."""

    def __init__(self, source, options, no_extern_c, include_dirs, instrument=None, lines=False):
        self.instrument, self.lines = instrument, lines
        self.flags, macros = translate_options(options)
        macros += capabilities.macros(source, settings.compute_capability)  # for this device
        self.flags += [f"-I{d}" for d in include_dirs]
        self.body = unit.user_source(learner_text.checked(source), macros, no_extern_c)
        # kernels with barriers as loops (split.py) where they can be; -DSIM_NO_SPLIT keeps the
        # fibers (tests and benchmarks compare the two)
        self.split = not instrument and "-DSIM_NO_SPLIT" not in self.flags
        self.what, self.records = source_name(source), ()  # records: warned.CompilerWarning
        # With headers of the learner's own, the preprocessed text is the key (it needs the
        # compiler); without, the source itself is, and a cached library needs no compiler.
        self.local_headers = bool(include_dirs) or bool(re.search(r'#\s*include\s*"', source))

    def stem(self, text):
        """The part of the library's name that the source, flags and prelude decide (not where
        the course is: LINE_TABLES name the prelude's folder the same in every copy)."""
        extra = [*INSTRUMENT_FLAGS[self.instrument], f"sites-v{sites.TABLE_VERSION}"] \
            if self.instrument else [*LINE_TABLES, str(self.lines)] if self.lines else []
        return _digest(SIM_VERSION, split.VERSION, _prelude_digest(), *CXX_FLAGS, *OPERATOR_CHECKS,
                       *LINK_FLAGS, warned.VERSION,
                       *self.flags, *map(anywhere, extra), text)[:32]


def _compiler_tag(cxx):
    path, version = cxx
    return _digest(path, version)[:12]


def _cached(folder, stem, cxx):
    """A usable library for stem in folder: the one this compiler built, or (without a
    compiler) one that any compiler built."""
    if cxx is not None:
        target = folder / f"{stem}-{_compiler_tag(cxx)}.so"
        return target if module_cache.usable(target) else None
    for candidate in sorted(folder.glob(f"{stem}-*.so")):
        if module_cache.usable(candidate):
            return candidate
    return None


def build(source, options=None, no_extern_c=False, include_dirs=(), cache=None, keep=False,
          instrument=None, lines=False):
    """Compile (or find in the cache) the shared library for source; returns its path.

    ``cache`` is the folder to keep it in (None: the user's cache; False: none, a fresh temporary
    folder each time, as PyCUDA's ``cache_dir=False``). ``keep`` keeps the generated C++ files and
    prints where they are, as PyCUDA's ``keep=True`` does. ``instrument`` ("memory" or
    "blocks") makes a build that the memory trace and the race check run (INSTRUMENT_FLAGS).
    ``lines`` makes the plain build's twin with line tables, read (never loaded) to name the line
    of a fault in the plain one (compile/lines.py): True reads the precompiled prelude where
    there is one, as a plain build does; PARSED parses it, as the first plain build with its
    flags did (prebuilt.prelude_folder)."""
    job = _Build(source, options, no_extern_c, include_dirs, instrument, lines)
    folder = Path(tempfile.mkdtemp(prefix="cuda-sim-module-")) if cache is False else (
        module_cache.folder(cache))
    cxx = toolchain.find_compiler(required=job.local_headers)
    if not job.local_headers:
        found = _cached(folder, job.stem(job.body), cxx)
        if found is not None:
            return found
    cxx = toolchain.find_compiler()
    with _build_dir(keep) as tmp, diagnosed.read_against(job.body):  # errors read as records
        user_code, job.bounds = launch_bounds.split_off(_preprocess(job, cxx, Path(tmp)))
        device_rules.check(user_code, job.body, job.what)  # what nvcc refuses and g++ cannot know
        stem = job.stem(user_code if job.local_headers else job.body)
        target = folder / f"{stem}-{_compiler_tag(cxx)}.so"
        if job.local_headers and module_cache.usable(target):
            return target
        obj = _compile(job, cxx, Path(tmp), user_code, debug=bool(job.lines),
                       prelude=job.lines != PARSED)

        def write(partial):
            _link(job, cxx, Path(tmp), user_code, obj, partial)
            # after the link: a function of the learner's own that has no body is named by it
            _check_device_calls(job, cxx, Path(tmp), user_code, obj)
            if job.instrument:  # its site table; the calls outside the learner's code patched out
                sites.prepare(partial, target)

        module_cache.install(write, target)
    return target


def _preprocess(job, cxx, tmp):
    """The learner's code after the preprocessor, where the kernels are found."""
    scan_file = tmp / "scan.cpp"
    scan_file.write_text(unit.scan_unit(job.body))
    flags = ["-DSIM_SCAN", "-std=c++17", f"-I{INCLUDE_DIR}",
             *toolchain.for_compiler(job.flags, cxx)]
    # -fpch-preprocess: the prelude's macros come from its precompiled copy, not its text
    pre = _run_with_prelude(cxx, flags, ["-E", "-P", str(scan_file)], job.what,
                            pch_options=["-fpch-preprocess"])
    return learner_text.named_by_macros(unit.after_mark(pre.stdout), job.what)


def _compile(job, cxx, tmp, user_code, debug=False, prelude=True):
    rewritten = split.plan(job.body, user_code) if job.split else split.Plan(job.body, frozenset())
    unit_file = tmp / "module.cpp"
    unit_file.write_text(unit.translation_unit(rewritten.body, unit.kernels_in(user_code),
                                               GENERATED if job.instrument else None,
                                               unit.loop_free_kernels(user_code),
                                               rewritten.kernels, job.bounds))
    obj = tmp / "module.o"
    extra = INSTRUMENT_FLAGS[job.instrument] if job.instrument else LINE_TABLES if debug else []
    flags = [*CXX_FLAGS, *toolchain.for_compiler(OPERATOR_CHECKS, cxx), *extra, _fibers_switch(user_code),
             *_indices_switch(user_code, cxx), f"-I{INCLUDE_DIR}", *toolchain.for_compiler(job.flags, cxx)]
    rest = ["-c", "-o", str(obj), str(unit_file)]
    # A build with line tables (a link error to explain, a fault to place) reads the same
    # precompiled prelude as the plain one (it is made with line tables, which a build without
    # them may read): g++ 13's code was not the same byte for byte with the prelude parsed.
    try:
        proc = _run_with_prelude(cxx, flags, rest, job.what) if prelude else \
            _run([cxx[0], *flags, *rest], job.what)
    except CompileError:
        if not rewritten.kernels:
            raise
        # the learner's own mistake, or a text split.py misread: the compiler's messages are
        # those of the text as written, and so is the module
        job.split = False
        return _compile(job, cxx, tmp, user_code, debug, prelude)
    job.records = warned.of_output(proc.stderr)
    said = compiler_messages.learner_warnings(proc.stderr)
    if said and not debug:
        warnings.warn(f"The simulator's C++ compiler succeeded, but said the following:\n{said}",
                      stacklevel=4)
    return obj


def _check_device_calls(job, cxx, tmp, user_code, obj):
    """Device code calls only what CUDA allows (device_calls.py): else the CompileError of code
    run at load, or a HostFunctionError naming the line of the first call (built with lines)."""
    refused = device_calls.refused(obj, _runners(job, cxx, user_code), job.instrument)
    if not refused:
        return
    if refused[0] == device_calls.STARTUP_CODE:
        raise compiler_messages.startup_code_error(job.what)
    where = device_calls.calling_lines(_compile(job, cxx, tmp, user_code, debug=True), refused)
    file, _, line = where.get(refused[0], "").rpartition(":")
    name = device_calls.readable(refused[0])
    raise compiler_messages.host_function_error(job.what, name, file or None, int(line) if line
                                                else None, device_calls.group(name))


def _run_with_prelude(cxx, flags, rest, what, pch_options=()):
    """Run the compiler with ``flags`` and then ``rest``, reading the precompiled prelude for
    these flags where there is one (prebuilt.py), with ``pch_options`` added. One GCC cannot read
    (damaged: a full disk, a crash) is deleted, and the header parsed itself."""
    folder = prebuilt.prelude_folder(cxx, [f for f in flags if f not in LINE_TABLES],
                                     INCLUDE_DIR, _prelude_digest(), LINE_TABLES)
    if folder is not None:
        try:
            return _run([cxx[0], *pch_options, f"-I{folder}", *flags, *rest], what)
        except CompileError as err:
            if not prebuilt.unreadable(err.stderr):
                raise
            prebuilt.discard(folder)
    return _run([cxx[0], *flags, *rest], what)


def _fibers_switch(user_code):
    """-DSIM_FIBERS=1 when the learner's code uses barriers or warp functions (its threads then
    run as fibers), else =0: the module and its grid runner are built with the same."""
    return f"-DSIM_FIBERS={1 if unit.uses_fibers(user_code) else 0}"


def _indices_switch(user_code, cxx):
    """-DSIM_INDICES_IN_MODULE=1 for a module without fibers that defines no __device__ function:
    its kernels read the built-in variables from variables of the module, not from the Frame.
    =2 with -ffixed-r14 for one that defines __device__ functions, on x86-64 with g++ (clang has
    no such option): the same, but threadIdx.x in a register the module reserves
    (include/sim_runtime.h says why). The runners do not depend on it."""
    if unit.uses_fibers(user_code):
        return []
    if not unit.defines_device_functions(user_code):
        return ["-DSIM_INDICES_IN_MODULE=1"]
    return ["-DSIM_INDICES_IN_MODULE=2", "-ffixed-r14"] if X86_64 and toolchain.is_gcc(cxx) else []


def _runners(job, cxx, user_code):
    """The prebuilt objects this module links with (prebuilt.py): the grid runner of its kind
    (with or without fibers, with the prelude's switches among its options) and, for an
    instrumented build, the memory trace's runtime of the same kind."""
    switches = [f for f in job.flags if _PRELUDE_SWITCH.match(f)]
    flags = [*CXX_FLAGS, _fibers_switch(user_code), *switches, f"-I{INCLUDE_DIR}"]
    kinds = {"grid": flags}
    if job.instrument:
        kinds["trace"] = [*flags, "-DSIM_TRACE"]
    return [str(prebuilt.runner_object(kind, cxx, kind_flags, INCLUDE_DIR, _prelude_digest()))
            for kind, kind_flags in kinds.items()]


def _link(job, cxx, tmp, user_code, obj, output):
    """Link the library with its prebuilt runners, without -fsanitize: the bounds checks call the
    runtime's own handler (sim_grid.h), which reports the file and line, instead of the sanitizer
    library. When a function of the learner's is undefined, the object is built again with line
    tables so the message has lines (not for a C compiler's missing C++ library: no line to
    name, and with gcc that build made a precompiled prelude first, 4 s)."""
    runners = _runners(job, cxx, user_code) + warned.object_file(  # what g++ warned, kept
        job.records, tmp, lambda cpp, o: _run([cxx[0], "-c", "-fPIC", "-o", o, cpp], job.what))
    cmd = [cxx[0], *LINK_FLAGS, "-o", output, str(obj), *runners]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode == 0:
        return
    if compiler_messages.names_lines(proc.stderr):
        with_lines = _compile(job, cxx, tmp, user_code, debug=True)
        cmd = [cxx[0], *LINK_FLAGS, "-o", output, str(with_lines), *runners]
    _run(cmd, job.what, lambda what, stderr: compiler_messages.link_error(what, stderr, cxx[0]))


@contextlib.contextmanager
def _build_dir(keep):
    """A temporary folder for the generated C++ files; kept (and named) when keep is true."""
    if keep:
        path = tempfile.mkdtemp(prefix="cuda-sim-build-")
        print(f"*** compiler output in {path}")
        yield path
    else:
        with tempfile.TemporaryDirectory(prefix="cuda-sim-") as path:
            yield path
