"""Kernel sources for the exercise tests: a solution as shipped, variants of it with a mistake
written in, and all of an exercise's variants compiled as one module (one compile, not one a
variant)."""

import fcntl
import hashlib
import os
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

import numpy as np
import pytest

from helpers.backend import BACKEND
from helpers.sim.compile import cache

ROOT = Path(__file__).resolve().parent.parent
SOLUTIONS = ROOT / "cuda_src" / "solutions"


def simulator_only(params, reasons):
    """``params`` (names, or tuples whose first item is the name) as pytest's parameters, those
    whose name ``reasons`` holds ({name: why}) skipped on a GPU with that reason: a mistake whose
    outcome there depends on a race, on garbage, or on an illegal address that breaks the
    context."""
    def param(p):
        values = p if isinstance(p, tuple) else (p,)
        skip = pytest.mark.skipif(BACKEND != "simulator", reason=reasons.get(values[0], ""))
        return pytest.param(*values, id=values[0], marks=[skip] if values[0] in reasons else [])
    return [param(p) for p in params]


def solution(name):
    """The text of cuda_src/solutions/<name>."""
    return (SOLUTIONS / name).read_text()


def variant(source, *replacements):
    """source with each (old, new) replaced; every old must occur, so a typo fails loudly."""
    for old, new in replacements:
        assert old in source, f"variant: {old!r} not in the kernel"
        source = source.replace(old, new)
    return source


def renamed(source, kernel, name):
    """source with its kernel ``kernel`` called ``name`` instead (a __launch_bounds__(...)
    between void and the name kept)."""
    pattern = r"(__global__\s+void\s+(?:__launch_bounds__\s*\([^()]*\)\s*)?)" + re.escape(kernel) \
        + r"(\s*\()"
    text, count = re.subn(pattern, r"\g<1>" + name + r"\g<2>", source)
    assert count == 1, f"renamed: no single __global__ void {kernel}( in the source"
    return text


def compile_variants(kernel, sources, source_module=None):
    """Compile every source of ``sources`` (name -> text, each defining ``kernel``) as one
    module, each kernel renamed ``<kernel>__<name>``; return name -> compiled kernel.
    ``source_module``: the SourceModule to compile with (the backend's by default)."""
    if source_module is None:
        from helpers.backend import SourceModule as source_module

    groups = {}   # one module a set of extern __shared__ declarations: nvcc takes the arrays
    for name, text in sources.items():   # of one name for one entity, and refuses two types
        groups.setdefault(frozenset(_EXTERN_SHARED.findall(text)), []).append(name)
    compiled = {}
    for names in groups.values():
        module = source_module("\n".join(renamed(sources[name], kernel, f"{kernel}__{name}")
                                         for name in names))
        compiled.update({name: module.get_function(f"{kernel}__{name}") for name in names})
    return {name: compiled[name] for name in sources}


_EXTERN_SHARED = re.compile(r"extern\s+__shared__\s+([^;\[]+?)\s*\[")


def compile_variant_pairs(kernel, sources, no_extern_c=False):
    """name -> (kernel on this backend, the same source compiled by the simulator), for the
    checkers that run the race check on the simulator whatever the backend (on the simulator
    the two are one kernel). ``no_extern_c``: the sources declare their kernels extern "C"
    themselves (they include a C++ header: mma.h, cuda_fp16.h)."""
    from helpers.backend import BACKEND
    from helpers.backend import SourceModule as run_module
    from helpers.sim.compiler import SourceModule

    run = compile_variants(kernel, sources, lambda text: run_module(text, no_extern_c=no_extern_c))
    sim = run if BACKEND == "simulator" else compile_variants(
        kernel, sources, lambda text: SourceModule(text, no_extern_c=no_extern_c))
    return {name: (run[name], sim[name]) for name in sources}


# A folder whose path is the same in every test run of this checkout (and differs between
# checkouts, which may run their tests at the same time).
STABLE = Path(tempfile.gettempdir()) / (
    f"cuda-course-tests-{os.getuid()}-{hashlib.sha1(str(ROOT).encode()).hexdigest()[:8]}")


def stable_file(name, text):
    """Write ``text`` to a file whose path is the same in every test run, so that the compile
    cache (keyed by the source, which names the file in its #line) hits the second time. The
    write is atomic."""
    STABLE.mkdir(exist_ok=True)
    path = STABLE / name
    if not path.is_file() or path.read_text() != text:
        part = path.with_name(f".{name}.{os.getpid()}")
        part.write_text(text)
        os.replace(part, path)
    return str(path)


def stable_dir(name):
    """An empty folder at a path that is the same in every test run (see stable_file), so that
    what is compiled from it stays cached. Run pytest-xdist with --dist loadscope, as make test
    does: without it, two workers may build one module-scoped fixture in it at once (on the H200
    machine, two graders wrote one grades.csv)."""
    path = STABLE / name
    shutil.rmtree(path, ignore_errors=True)
    path.mkdir(parents=True)
    return path


def assert_refused_and_named(check, exercise, name, replacements, expected):
    """``check`` (an exercise's checker) on its solution changed by ``replacements`` (variant),
    a file the compiler refuses: NOT YET, saying it does not compile, with ``expected`` ({field:
    words}) in the verdict's fields (the mistake named from the simulator's records); returns
    the verdict."""
    verdict = check(stable_file(f"{exercise}_{name}.cu",
                                variant(solution(f"{exercise}.cu"), *replacements)))
    assert verdict.passed is False and "does not compile" in verdict.problem, verdict
    for field, words in expected.items():
        assert words in getattr(verdict, field), verdict
    return verdict


def assert_mistake_named(verdict, out, name, expected):
    """A checker's verdict on the known-wrong variant ``name``: not passed, printed as NOT YET,
    with each of the ``expected`` phrases (the hint that names the mistake) in what it printed."""
    assert verdict.passed is False, f"{name} passed the checker:\n{out}"
    assert out.startswith("NOT YET:"), out
    for words in expected:
        assert words in out, f"{name}: expected {words!r} in\n{out}"


# ---- nvcc, where the CUDA toolkit is installed ----------------------------------------------
ARCH = "sm_90"
LOWEST_ARCH = "sm_75"  # a T4 (Colab's free GPU), the lowest GPU learners have


def find_nvcc():
    path = shutil.which("nvcc")
    if path:
        return path
    fallback = Path("/usr/local/cuda/bin/nvcc")
    return str(fallback) if os.access(fallback, os.X_OK) else None


# nvcc's verdict is kept, as the simulator keeps a compiled module: a file in the compile cache
# named for everything nvcc was given (tests/kernels/test_nvcc.py says why).
def nvcc_accepted(nvcc):
    """(folder of nvcc's earlier verdicts, what names this nvcc: its path and version)."""
    version = subprocess.run([nvcc, "--version"], capture_output=True, text=True, timeout=60)
    folder = cache.folder() / "nvcc-accepted"
    cache.make_private(folder)
    return folder, f"{nvcc}\0{version.stdout}"


def nvcc_verdict(nvcc, accepted, text, folder, arches=(ARCH,)):
    """None when nvcc accepts text for each of ``arches`` (now, or this nvcc the same text
    before), else what it said. ``folder``: a new folder of the test's own for nvcc's files.
    Several architectures are one nvcc run (one fat binary)."""
    kept, this_nvcc = accepted
    named = ",".join(arches)
    verdict = kept / hashlib.sha256(f"{this_nvcc}\0{named}\0{text}".encode()).hexdigest()
    # One process at a time compiles a text: test_nvcc.py and test_skeletons.py give nvcc the
    # same stubs, from two pytest-xdist workers at once on a cold run; the second waits for the
    # first's verdict instead of compiling it again (a rejection is not kept: it compiles).
    with open(verdict.with_name(f".{verdict.name}.lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        return None if verdict.is_file() else _nvcc_compiles(nvcc, text, folder, arches, verdict)


def _nvcc_compiles(nvcc, text, folder, arches, verdict):
    wrapped = folder / "kernel.cu"
    wrapped.write_text(text, encoding="utf-8")
    targets = [f"-gencode=arch=compute_{a[3:]},code={a}" for a in arches]
    cmd = [nvcc, *targets, "--fatbin", "-o", str(folder / "kernel.fatbin"), "-x", "cu",
           str(wrapped)]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    if p.returncode != 0 or (folder / "kernel.fatbin").stat().st_size == 0:
        return p.stdout + p.stderr or "an empty binary"
    part = verdict.with_name(f".{verdict.name}.{os.getpid()}")
    part.write_text(text)
    os.replace(part, verdict)                   # whole or absent, whoever reads it
    return None


# ---- floats: an accumulation that nvcc fuses into a chain of FMAs -------------------------------
ACCUMULATE = r"""
__global__ void accumulate(const float *a, const float *b, float *loop, float *chain, int n,
                           int len) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float sum = 0.0f, explicit_sum = 0.0f;
    for (int k = 0; k < len; k++)
        sum += a[i * len + k] * b[k];        // nvcc: a chain of FMAs through sum
    for (int k = 0; k < len; k++)
        explicit_sum = fmaf(a[i * len + k], b[k], explicit_sum);
    loop[i] = sum;
    chain[i] = explicit_sum;
}
"""


def accumulated(source_module, arrays, options=()):
    """(sum += a*b in a loop, the same with fmaf) for 256 rows of 16 products, as source_module
    compiles ACCUMULATE with options (PyCUDA's or the simulator's, arrays its gpuarray)."""
    n, length = 256, 16
    rng = np.random.default_rng(3)
    a = rng.uniform(-1, 1, n * length).astype(np.float32)
    b = rng.uniform(-1, 1, length).astype(np.float32)
    gpu = source_module(ACCUMULATE, options=list(options)).get_function("accumulate")
    loop, chain = arrays.empty(n, np.float32), arrays.empty(n, np.float32)
    gpu(arrays.to_gpu(a), arrays.to_gpu(b), loop, chain, np.int32(n), np.int32(length),
        block=(128, 1, 1), grid=(2, 1))
    return loop.get(), chain.get()


# A block sum in dynamic shared memory: the machine tests run it with many workers and stacks.
REDUCE = r"""
__global__ void block_sum(const int *in, int *out) {
    extern __shared__ int s[];
    int t = threadIdx.x;
    s[t] = in[blockIdx.x * blockDim.x + t];
    __syncthreads();
    for (int stride = blockDim.x / 2; stride > 0; stride /= 2) {
        if (t < stride) s[t] += s[t + stride];
        __syncthreads();
    }
    if (t == 0) out[blockIdx.x] = s[0];
}
"""


def moving_average(x, radius):
    """Notebook 06's NumPy reference of the stencil: the 2R + 1 shifted copies of the edge-padded
    signal added in the kernels' order, so that the results are equal to the bit."""
    padded = np.pad(x, radius, mode="edge")
    total = np.zeros_like(x)
    for k in range(2 * radius + 1):
        total += padded[k:k + x.size]
    return total * (np.float32(1) / np.float32(2 * radius + 1))
