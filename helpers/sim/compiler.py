"""`SourceModule` for the CPU simulator: the same .cu source, compiled by the host C++ compiler.

The source goes behind the prelude `include/cuda_sim.h` (CUDA's keywords and built-ins) inside
`extern "C" { }` as PyCUDA puts it, and a table of its kernels is appended. The kernels' names come
from the preprocessor (the prelude marks `__global__` functions while it looks for them); their
parameter types come from the compiled kernels themselves (`include/sim_launch.h`).

Built libraries are cached per user, keyed by a hash of everything that goes into them, and written
atomically, so two notebooks compiling the same source at once cannot corrupt the cache.
"""

import contextlib
import functools
import hashlib
import os
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

from . import driver
from .launch import Function
from .module import Module
from .settings import settings

SIM_VERSION = "2"
INCLUDE_DIR = Path(__file__).parent / "include"
# -fstack-clash-protection: a frame larger than a page touches each page as it grows, so local
# arrays larger than the thread's stack fault on its guard page instead of jumping over it.
CXX_FLAGS = ["-std=c++17", "-O2", "-fPIC", "-pthread", "-fno-strict-aliasing",
             "-U_FORTIFY_SOURCE", "-D_FORTIFY_SOURCE=0", "-fsanitize=bounds",
             "-fstack-clash-protection", "-Wno-unused-result", "-Wno-attributes"]

# nvcc options that mean nothing on a CPU: accepted and ignored, so notebook code stays PyCUDA's.
_IGNORED_OPTIONS = re.compile(
    r"^(-{1,2}use_fast_math|-lineinfo|-G|-g|-O\d|--?ptxas-options.*|-Xptxas.*|-arch.*|"
    r"--?gpu-architecture.*|-code.*|-rdc.*|--?maxrregcount.*|-w|--?extended-lambda|"
    r"--?expt-relaxed-constexpr|-keep|--?restrict|-ftz.*|-prec-.*)$")
_PASSED_OPTIONS = re.compile(r"^(-[DUI].*|-std=.*|--std=.*|-W.*)$")

# What g++ says about CUDA features the simulator does not have, and what to tell the learner.
_UNSUPPORTED = {
    "texture": "texture references", "tex1Dfetch": "textures", "tex2D": "textures",
    "tex3D": "textures", "surf2Dwrite": "surfaces", "cooperative_groups": "cooperative groups",
    "__half": "half precision", "cuda_fp16.h": "half precision", "cuda_bf16.h": "bfloat16",
    "__nv_bfloat16": "bfloat16", "wmma": "tensor-core wmma", "cudaMalloc": "device-side runtime calls",
}

_GLOBAL = re.compile(r"__sim_global__[^;{(]*?\b([A-Za-z_]\w*)\s*\(")
_USES_FIBERS = re.compile(r"\bsim::(block_barrier|sync_block|sync_block_reduce|warp_meet|sync_warp|"
                          r"shfl|vote|active_mask)\b")
_USER_MARK = "__sim_user_code_starts_here__"


@functools.lru_cache(maxsize=None)
def find_compiler():
    """The host C++ compiler: $CXX, else g++, else c++; with its version line for the cache key."""
    for name in filter(None, [os.environ.get("CXX"), "g++", "c++", "clang++"]):
        path = shutil.which(name)
        if path:
            out = subprocess.run([path, "--version"], capture_output=True, text=True)
            return path, out.stdout.splitlines()[0] if out.stdout else name
    raise driver.CompileError(
        "the CPU simulator needs a C++ compiler and none was found (tried $CXX, g++, c++, "
        "clang++). Install one: `sudo apt install g++` on Debian/Ubuntu, `xcode-select --install` "
        "on macOS, or `conda install -c conda-forge cxx-compiler`.", None)


def cache_dir():
    """The folder compiled modules are kept in (settings.cache_dir, else the user's cache)."""
    root = settings.cache_dir
    if not root:
        base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
        root = os.path.join(base, "cuda-course")
    path = Path(root) / f"sim-v{SIM_VERSION}"
    path.mkdir(parents=True, exist_ok=True)
    return path


@functools.lru_cache(maxsize=1)
def _prelude_digest():
    h = hashlib.sha256()
    for header in sorted(INCLUDE_DIR.glob("*.h")):
        h.update(header.name.encode() + b"\0" + header.read_bytes())
    return h.hexdigest()


_FMAD = {"--fmad=false": "-ffp-contract=off", "-fmad=false": "-ffp-contract=off",
         "--fmad=true": "-ffp-contract=fast", "-fmad=true": "-ffp-contract=fast"}


def _translate_options(options):
    flags = []
    for opt in options or []:
        if opt in _FMAD:  # fused multiply-add: the host compiler's equivalent switch
            flags.append(_FMAD[opt])
        elif _PASSED_OPTIONS.match(opt):
            flags.append(opt.replace("--std=", "-std="))
        elif not _IGNORED_OPTIONS.match(opt):
            raise ValueError(
                f"SourceModule option {opt!r} has no meaning on the CPU simulator. Options it "
                "understands: -D, -U, -I, -std=; GPU-only ones such as -use_fast_math, -lineinfo "
                "and -arch are accepted and ignored.")
    return flags


_EXTERN_SHARED = re.compile(r"\bextern\s+__shared__\s+([^;\[\]]*?)\s*\b([A-Za-z_]\w*)\s*\[\s*\]\s*;")


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
        pointer = f"(({c_type} *)sim::dynamic_shared())"
        if _brace_depth(source[:m.start()]) > 0:
            return f"{c_type} *const {name} = {pointer};"
        return f"\n#define {name} {pointer}\n#line {_line_of(source, m.start())}\n"

    return _EXTERN_SHARED.sub(replace, source)


def _line_of(text, offset):
    line = 1
    for m in re.finditer(r'^\s*#line\s+(\d+)[^\n]*$|\n', text[:offset], flags=re.M):
        if m.group(1):
            line = int(m.group(1)) - 1
        else:
            line += 1
    return line


def _user_source(source, no_extern_c):
    # PyCUDA names the file kernel.cu; a source read by helpers.backend.compile_cu starts with a
    # #line directive naming its .cu file, so compiler messages point at the learner's file.
    if not source.lstrip().startswith("#line"):
        source = '#line 1 "kernel.cu"\n' + source
    source = _dynamic_shared(source)
    return source if no_extern_c else 'extern "C" {\n' + source + "\n}\n"


def _run(cmd, what):
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        raise driver.CompileError(_compile_message(what, proc.stderr), cmd, proc.stdout,
                                  proc.stderr)
    return proc.stdout


def _compile_message(what, stderr):
    """The first error in the learner's file, as 'file:line: error: message', then notes."""
    lines = [ln for ln in stderr.splitlines() if ": error:" in ln or "fatal error:" in ln]
    user = [ln for ln in lines if "/cuda_sim" not in ln and "/sim_" not in ln] or lines
    msg = f"simulator compilation of {what} failed"
    if user:
        msg += "\n" + user[0].strip()
    for name, feature in _UNSUPPORTED.items():
        if re.search(rf"\b{re.escape(name)}\b", stderr):
            msg += (f"\nnote: {name} ({feature}) is a CUDA feature that the course's CPU simulator "
                    "does not provide; run this on a GPU with CUDA_COURSE_BACKEND=pycuda.")
            break
    return msg


def _source_name(source):
    m = re.match(r'\s*#line\s+\d+\s+"([^"]+)"', source)
    return m.group(1) if m else "kernel.cu"


def build(source, options=None, no_extern_c=False, include_dirs=(), cache=None, keep=False):
    """Compile (or find in the cache) the shared library for source; returns its path.

    ``cache`` is the folder to keep it in (None: ``cache_dir()``; False: none, a fresh temporary
    folder each time, as PyCUDA's ``cache_dir=False``). ``keep`` keeps the generated C++ files and
    prints where they are, as PyCUDA's ``keep=True`` does."""
    cxx, cxx_version = find_compiler()
    flags = _translate_options(options) + [f"-I{d}" for d in include_dirs]
    body = _user_source(source, no_extern_c)
    what = _source_name(source)

    def key_of(*parts):
        text = "\0".join([SIM_VERSION, cxx, cxx_version, _prelude_digest(), *CXX_FLAGS, *flags,
                          *parts])
        return hashlib.sha256(text.encode()).hexdigest()[:32]

    # Without headers of the learner's own, the source itself is the key and a cached library
    # is found without running the compiler at all; with them, their preprocessed text is.
    folder = Path(tempfile.mkdtemp(prefix="cuda-sim-module-")) if cache is False else (
        Path(cache) if cache else cache_dir())
    folder.mkdir(parents=True, exist_ok=True)
    local_headers = bool(include_dirs) or re.search(r'#\s*include\s*"', source)
    if not local_headers:
        target = folder / f"{key_of(body)}.so"
        if target.exists():
            return target

    with _build_dir(keep) as tmp:
        scan_file = Path(tmp) / "scan.cpp"
        scan_file.write_text(f'#include "cuda_sim.h"\n{_USER_MARK}\n{body}')
        pre = _run([cxx, "-E", "-P", "-DSIM_SCAN", "-std=c++17", f"-I{INCLUDE_DIR}", *flags,
                    str(scan_file)], what)
        user_code = pre[pre.index(_USER_MARK) + len(_USER_MARK):]
        if local_headers:
            target = folder / f"{key_of(user_code)}.so"
            if target.exists():
                return target
        kernels = list(dict.fromkeys(_GLOBAL.findall(user_code)))
        fibers = 1 if _USES_FIBERS.search(user_code) else 0

        table = "".join(f"    SIM_KERNEL({k})\n" for k in kernels)
        unit = (f'#include "cuda_sim.h"\n{body}\n#include "sim_launch.h"\n'
                f"static const sim::KernelEntry sim_kernel_table[] = {{\n{table}}};\n"
                f"SIM_EXPORT int sim_kernel_count() {{ return {len(kernels)}; }}\n"
                "SIM_EXPORT const sim::KernelEntry *sim_kernel(int i) "
                "{ return &sim_kernel_table[i]; }\n")
        unit_file = Path(tmp) / "module.cpp"
        unit_file.write_text(unit)
        obj = Path(tmp) / "module.o"
        _run([cxx, "-c", *CXX_FLAGS, f"-DSIM_FIBERS={fibers}", f"-I{INCLUDE_DIR}", *flags,
              "-o", str(obj), str(unit_file)], what)
        fd, partial = tempfile.mkstemp(dir=target.parent, prefix=f".{target.stem}-", suffix=".so")
        os.close(fd)
        try:
            # Linked without -fsanitize: the bounds checks call the runtime's own handler
            # (sim_runtime.h), which reports the file and line, instead of the sanitizer library.
            _run([cxx, "-shared", "-pthread", "-o", partial, str(obj)], what)
            os.replace(partial, target)  # atomic: a reader sees no library or a whole one
        finally:
            if os.path.exists(partial):
                os.unlink(partial)
    return target


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


class SourceModule:
    """pycuda.compiler.SourceModule, for the CPU simulator.

    ``cache_dir`` and ``keep`` mean what they mean in PyCUDA (a folder for the compiled module or
    False for none; keep the intermediate files). ``nvcc``, ``arch`` and ``code`` name the GPU
    compiler and the GPU's architecture, and mean nothing on a CPU."""

    def __init__(self, source, nvcc="nvcc", options=None, keep=False, no_extern_c=False,
                 arch=None, code=None, cache_dir=None, include_dirs=()):
        source = str(source)
        self.path = build(source, options, no_extern_c, include_dirs or (), cache=cache_dir,
                          keep=keep)
        self.module = Module(self.path)
        limit = driver.LIMITS["MAX_SHARED_MEMORY_PER_BLOCK"]
        for kernel in self.module.kernels.values():
            if kernel.static_shared > limit:
                nbytes = kernel.static_shared
                raise driver.CompileError(
                    f"simulator compilation of {_source_name(source)} failed\n"
                    f"ptxas error   : Entry function '{kernel.name}' uses too much shared data "
                    f"(0x{nbytes:x} bytes, 0x{limit:x} max): its __shared__ arrays take {nbytes} "
                    f"bytes, and a block may have {limit} (48 KiB)", None)

    def get_function(self, name):
        kernel = self.module.kernels.get(name)
        if kernel is None:
            known = ", ".join(sorted(self.module.kernels)) or "none"
            raise driver.LogicError(
                f"cuModuleGetFunction failed: named symbol not found: no kernel {name!r} in this "
                f"module (its kernels: {known})")
        return Function(self.module, kernel)

    def get_global(self, name):
        """(device pointer, size in bytes) of a __device__ or __constant__ variable."""
        return self.module.global_symbol(name)

    def get_texref(self, name):
        raise NotImplementedError("textures are not provided by the course's CPU simulator")

    get_surfref = get_texref
