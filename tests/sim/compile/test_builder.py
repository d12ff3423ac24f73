"""The simulator's compiler driver: a learner's macros and options, its messages, and a cache that
cannot be turned against its user. These run the simulator whatever backend is chosen (the
GPU-side counterparts, where a GPU defines the behaviour, are in tests/kernels/test_kernels_compile.py)."""

import os
import shutil
import stat
import subprocess
import sys
import tempfile
import textwrap
import uuid
import warnings
from pathlib import Path

import numpy as np
import pytest

from helpers.sim.compile import cache, toolchain
from helpers.sim import driver as drv, gpuarray
from helpers.sim.compile.builder import build, translate_options
from helpers.sim.compiler import SourceModule
from helpers.sim.settings import settings

from caches import seeded

ROOT = Path(__file__).resolve().parents[3]


def unique(body="x[0] = 1;"):
    return f"__global__ void k(int *x) {{ {body} /* {uuid.uuid4()} */ }}"


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """(source, library) compiled once for the file: the tests that need a library already in
    their cache start from a copy of it, not from a compile of their own."""
    src = unique("x[0] = 7;")
    with settings.changed(cache_dir=str(seeded(tmp_path_factory.mktemp("built")))):
        return src, build(src)


def cached_copy(built):
    """(source, its library copied into the cache now in use), as a later run finds it."""
    src, library = built
    target = cache.folder() / library.name
    shutil.copy2(library, target)
    return src, target


def mode(path):
    return stat.S_IMODE(os.stat(path).st_mode)


# ---- a learner's macros ------------------------------------------------------------------------------
BARRIERS_AND_WARPS = r"""
__global__ void macro_proof(const float *in_, float *out_, unsigned *bins_) {
    extern __shared__ float dyn_[];
    int t_ = threadIdx.x;
    dyn_[t_] = in_[t_];
    __syncthreads();
    float s_ = dyn_[31 - t_] + __shfl_xor_sync(0xffffffff, dyn_[t_], 1);
    assert(t_ < 32);
    atomicAdd(bins_, 1u);
    out_[t_] = s_ + (float)__ballot_sync(0xffffffff, 1 > 0) * 0.0f;
}
"""
LETTERS = [c for c in "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvw"]
WORDS = ["TILE", "BLOCK_SIZE", "block", "thread", "frame", "sim", "std", "Site", "value", "mask",
         "kind", "entry", "Kernel", "KernelEntry", "Tuple", "fill", "args", "name", "count",
         "SIM_SITE", "SIM_KERNEL", "SIM_EXPORT", "SIM_FIBERS", "sim_kernel_table"]


@pytest.mark.parametrize("how", ["options", "source"])
def test_no_short_macro_name_breaks_the_simulator(how):
    names = LETTERS + WORDS
    if how == "options":
        mod = SourceModule(BARRIERS_AND_WARPS, options=[f"-D{n}=7" for n in names])
    else:
        mod = SourceModule("".join(f"#define {n} 7\n" for n in names) + BARRIERS_AND_WARPS)
    x = np.arange(32, dtype=np.float32)
    out, bins = gpuarray.empty(32, np.float32), gpuarray.zeros(1, np.uint32)
    mod.get_function("macro_proof")(gpuarray.to_gpu(x), out, bins, block=(32, 1, 1), shared=128)
    assert np.array_equal(out.get(), x[::-1] + (np.arange(32) ^ 1)) and bins.get()[0] == 32


@pytest.mark.usefixtures("private_cache")
def test_the_preludes_macros_are_the_learners_after_it_precompiled_or_not():
    """GCC defines the command line's macros again after a precompiled prelude (SIM_FIBERS):
    a learner who defines one is not warned, with the prelude precompiled or not."""
    for _ in range(2):  # the second module with these flags reads a precompiled prelude
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            SourceModule("#define SIM_FIBERS 7\n#define SIM_UCONTEXT 7\n" + unique())


def test_standard_headers_included_after_the_prelude_still_compile():
    """The prelude's host-function macros (exit, rand, ...) and math macros (floor, ...) must not
    reach a header's own code (<algorithm> calls std::rand, <chrono> has a floor of its own):
    every header that uses them is included before them."""
    headers = ["algorithm", "functional", "iostream", "random", "regex", "valarray", "vector",
               "cstdlib", "cstdio", "ctime", "stdio.h", "stdlib.h", "unistd.h", "wchar.h",
               "complex", "chrono"]
    src = "".join(f"#include <{h}>\n" for h in headers)
    SourceModule(src + 'extern "C" __global__ void k(float *x) { x[0] = 1; }\n', no_extern_c=True)


def test_ndebug_turns_assert_off():
    f = SourceModule("__global__ void k(int *x) { assert(x[0] == 1); x[0] = 2; }",
                     options=["-DNDEBUG"]).get_function("k")
    x = gpuarray.zeros(1, np.int32)
    f(x, block=(1, 1, 1))
    assert x.get()[0] == 2


# ---- options ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("opt", ["-Wl,-rpath,/tmp", "-Wp,-MD,/tmp/x.d", "-Wa,-adhln=/tmp/x.s", "-W"])
def test_only_warning_options_pass_through_w(opt):
    with pytest.raises(ValueError, match="no meaning on the CPU simulator"):
        SourceModule(unique(), options=[opt])


def test_warning_options_pass_through():
    flags, _ = translate_options(["-Wall", "-Wno-unused-variable", "-Werror=format"])
    assert {"-Wall", "-Wno-unused-variable", "-Werror=format"} <= set(flags)


def test_fused_multiply_add_follows_the_cpu_and_is_part_of_the_cache_key(private_cache,
                                                                         monkeypatch):
    src = unique()
    first = SourceModule(src).path
    assert ("-mfma" in translate_options([])[0]) == (toolchain.cpu_has_fma() and
                                                     "x86" in os.uname().machine)
    has_fma = toolchain.cpu_has_fma()
    monkeypatch.setattr(toolchain, "cpu_has_fma", lambda: not has_fma)
    assert SourceModule(src).path != first or "x86" not in os.uname().machine


# ---- messages ----------------------------------------------------------------------------------------
def test_a_freed_allocation_passed_to_a_kernel_names_the_kernel_and_the_parameter():
    f = SourceModule("__global__ void copy(const float *a, float *b) { b[0] = a[0]; }") \
        .get_function("copy")
    a, b = drv.mem_alloc(16), gpuarray.zeros(4, np.float32)
    a.free()
    with pytest.raises(drv.LogicError, match=r"parameter #0 .*'const float\*'.* kernel 'copy'.*freed"):
        f(a, b, block=(1, 1, 1))


# ---- the cache ---------------------------------------------------------------------------------------
def test_cache_folders_and_libraries_are_private_whatever_the_umask(tmp_path):
    old = os.umask(0)
    try:
        # cache.folder() makes a, a/b and the cache's folder under this umask; the prebuilt parts
        # are linked from the run's cache (building them in an empty cache took 1.5 s)
        with settings.changed(cache_dir=str(seeded(tmp_path / "a" / "b"))):
            path = SourceModule(unique()).path
    finally:
        os.umask(old)
    for p in (tmp_path / "a", tmp_path / "a" / "b", path.parent, path):
        assert mode(p) == 0o700, (p, oct(mode(p)))


@pytest.mark.parametrize("where", ["cache_dir", "setting"])
def test_a_cache_folder_others_may_write_is_refused(tmp_path, where):
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o777)
    with pytest.raises(cache.UnsafeCacheError, match=r"may be written by other users.*chmod 700"):
        if where == "cache_dir":
            SourceModule(unique(), cache_dir=str(shared))
        else:
            with settings.changed(cache_dir=str(shared)):
                SourceModule(unique())


def test_a_cache_folder_or_library_of_another_user_is_refused(private_cache, built):
    if os.geteuid() != 0:
        pytest.skip("giving a file to another user needs root")
    src, path = cached_copy(built)
    os.chown(path, 12345, 12345)
    with pytest.raises(cache.UnsafeCacheError, match="belongs to another user"):
        SourceModule(src)
    os.chown(path.parent, 12345, 12345)
    with pytest.raises(cache.UnsafeCacheError, match="cache folder .* belongs to another user"):
        SourceModule(unique())


def test_a_cached_library_others_may_write_is_refused(private_cache, built):
    src, path = cached_copy(built)
    path.chmod(0o777)
    with pytest.raises(cache.UnsafeCacheError, match="cached library .* delete it"):
        SourceModule(src)


@pytest.mark.parametrize("damage", ["truncated", "empty"])
def test_a_damaged_cached_library_is_built_again(private_cache, built, damage):
    src, path = cached_copy(built)  # built, not loaded: as a later run finds it
    size = path.stat().st_size
    with open(path, "r+b") as f:
        f.truncate(size // 2 if damage == "truncated" else 0)
    mod = SourceModule(src)
    assert mod.path == path and path.stat().st_size == size and cache.looks_whole(path)
    x = gpuarray.zeros(1, np.int32)
    mod.get_function("k")(x, block=(1, 1, 1))
    assert x.get()[0] == 7


def test_a_library_is_on_disk_before_it_is_renamed_into_place(private_cache, monkeypatch):
    events = []
    real_fsync, real_replace = os.fsync, os.replace
    monkeypatch.setattr(cache.os, "fsync", lambda fd: (events.append(("fsync", os.readlink(
        f"/proc/self/fd/{fd}"))), real_fsync(fd))[1])
    monkeypatch.setattr(cache.os, "replace", lambda a, b: (events.append(("replace", a)),
                                                           real_replace(a, b))[1])
    SourceModule(unique())
    replaced = next(i for i, e in enumerate(events) if e[0] == "replace")
    assert ("fsync", events[replaced][1]) in events[:replaced], events


def test_a_cached_module_loads_without_a_compiler(tmp_path):
    src = unique("x[0] = 5;")
    script = textwrap.dedent(f"""
        import numpy as np
        from helpers.sim import gpuarray
        from helpers.sim.compiler import SourceModule
        x = gpuarray.zeros(1, np.int32)
        SourceModule({src!r}).get_function("k")(x, block=(1, 1, 1))
        print(x.get()[0])
    """)
    env = {**os.environ, "CUDA_COURSE_CACHE_DIR": str(seeded(tmp_path)), "PYTHONPATH": str(ROOT)}
    env.pop("CXX", None)
    run = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True)
    assert run.stdout.strip() == "5", run.stderr
    no_compiler = {**env, "PATH": str(tmp_path / "nothing-here")}
    run = subprocess.run([sys.executable, "-c", script], env=no_compiler, capture_output=True,
                         text=True)
    assert run.stdout.strip() == "5", run.stderr
    other = script.replace("x[0] = 5;", "x[0] = 6;")
    run = subprocess.run([sys.executable, "-c", other], env=no_compiler, capture_output=True,
                         text=True)
    assert "needs a C++ compiler" in run.stderr


@pytest.mark.parametrize("home, says", [("", "HOME is empty"), (None, "HOME is not set")])
def test_without_a_home_the_cache_goes_to_a_private_temporary_folder(home, says):
    cache._temporary_root.cache_clear()
    with settings.changed(home=home, xdg_cache_home=None, cache_dir=None), \
            pytest.warns(UserWarning, match=says):
        # The same text every run: the temporary root, shared by every run, keeps one module,
        # not one more each run.
        path = SourceModule("__global__ void k(int *x) { x[0] = 1; }").path
    root = Path(tempfile.gettempdir()) / f"cuda-course-{os.getuid()}"
    assert path.parent.parent == root and mode(root) == 0o700


def test_an_option_only_a_gpu_compiler_knows_is_refused():
    with pytest.raises(ValueError, match="no meaning on the CPU simulator"):
        SourceModule("__global__ void k() {}", options=["--some-gpu-flag"])


def test_options_reach_the_compiler():
    mod = SourceModule("__global__ void k(int *x) { x[0] = VALUE; }",
                       options=["-DVALUE=42", "-use_fast_math"])
    x = gpuarray.zeros(1, np.int32)
    mod.get_function("k")(x, block=(1, 1, 1))
    assert x.get()[0] == 42


def test_shared_memory_limits_are_a_gpus():
    big = ("__global__ void k(float *x) { __shared__ float s[12289]; s[threadIdx.x] = 1; "
           "__syncthreads(); x[0] = s[1]; }")
    with pytest.raises(drv.CompileError, match="too much shared data"):
        SourceModule(big)
    mod = SourceModule("__global__ void k(float *x) { __shared__ float s[8192]; "
                       "s[threadIdx.x] = 1; __syncthreads(); x[0] = s[1]; }")
    assert mod.module.kernels["k"].static_shared == 8192 * 4
    x = gpuarray.zeros(1, np.float32)
    mod.get_function("k")(x, block=(32, 1, 1), shared=16 * 1024)
    with pytest.raises(drv.LogicError, match="more than the 49152 bytes"):
        mod.get_function("k")(x, block=(32, 1, 1), shared=16 * 1024 + 4)


def test_the_portable_fiber_switch_gives_the_same_results():
    """Where the assembly switch is not built (not Linux x86-64 or Arm64), swapcontext is used."""
    src = r"""
    __global__ void block_sum(const int *in, int *out) {
        __shared__ int s[128];
        s[threadIdx.x] = in[blockIdx.x * 128 + threadIdx.x];
        __syncthreads();
        for (int stride = 64; stride > 0; stride /= 2) {
            if (threadIdx.x < stride) s[threadIdx.x] += s[threadIdx.x + stride];
            __syncthreads();
        }
        int lane0 = __shfl_sync(0xffffffff, (int)threadIdx.x % 32, 0);  // 0 in every lane
        if (threadIdx.x == 0) out[blockIdx.x] = s[0] + lane0;
    }
    """
    x = np.arange(8 * 128, dtype=np.int32)
    out = gpuarray.zeros(8, np.int32)
    SourceModule(src, options=["-DSIM_UCONTEXT"]).get_function("block_sum")(
        gpuarray.to_gpu(x), out, block=(128, 1, 1), grid=(8, 1))
    assert np.array_equal(out.get(), x.reshape(8, 128).sum(1))
