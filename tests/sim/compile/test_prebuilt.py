"""What every module of the simulator shares, built once (helpers/sim/compile/prebuilt.py): the runners
linked into each module, and the precompiled prelude."""

import os
import shutil
import subprocess
import time

import numpy as np
import pytest
from test_builder import mode, unique

from helpers.sim.compile import cache, prebuilt, toolchain
from helpers.sim import gpuarray
from helpers.sim.compile.builder import build
from helpers.sim.compiler import SourceModule
from helpers.sim.microscope.trace import trace


@pytest.mark.slow
@pytest.mark.usefixtures("private_cache")
@pytest.mark.parametrize("runner, instrument", [("grid", None), ("trace", "memory")])
def test_a_runner_is_compiled_once_and_linked_into_every_module_of_its_kind(runner, instrument):
    for prebuilt_runner in cache.folder().glob(f"{runner}-*"):  # the other parts stay prebuilt
        shutil.rmtree(prebuilt_runner)
    build(unique("x[0] = 1;"), instrument=instrument)
    build(unique("x[0] = 2;"), instrument=instrument)
    [runner_object] = cache.folder().glob(f"{runner}-*/*.o")  # one for both modules
    assert mode(runner_object) == 0o700
    with open(runner_object, "r+b") as f:  # damaged (a full disk): compiled again
        f.truncate(64)
    x = gpuarray.zeros(1, np.int32)
    with trace() as traced:  # the launch runs the module's instrumented build
        SourceModule(unique("x[0] = 7;")).get_function("k")(x, block=(1, 1, 1), grid=(1, 1))
    assert x.get()[0] == 7 and cache.looks_whole(runner_object)
    assert traced["k"].global_st.requests == 1


def tiny_prelude(folder, text):
    """A stand-in for include/cuda_sim.h, quick to precompile."""
    folder.mkdir(exist_ok=True)
    (folder / "cuda_sim.h").write_text(text)
    return folder


@pytest.fixture
def gcc():
    cxx = toolchain.find_compiler()
    if not toolchain.is_gcc(cxx):
        pytest.skip("the prelude is precompiled for GCC only")
    return cxx


@pytest.mark.usefixtures("empty_cache")
def test_the_prelude_is_precompiled_for_the_second_build_with_the_same_flags(tmp_path, gcc):
    include = tiny_prelude(tmp_path / "include", "inline int which() { return 1; }\n")
    stale, building = cache.folder() / "prelude-000000000000-older", cache.folder() / "prelude-222222222222-now"
    for other in (stale, building):
        other.mkdir()
        (other / "cuda_sim.h.gch").write_bytes(b"a prelude of other headers")
    an_hour_ago = time.time() - prebuilt.STALE_AFTER_S - 60
    os.utime(stale, (an_hour_ago, an_hour_ago))
    flags, digest = ["-std=c++17", "-O2", f"-I{include}"], "1" * 64
    assert prebuilt.prelude_folder(gcc, flags, include, digest) is None  # the first: as before
    assert not stale.exists()
    assert building.exists()  # another copy of the course may be building into it now
    folder = prebuilt.prelude_folder(gcc, flags, include, digest)  # the second: precompiled
    assert mode(folder / "cuda_sim.h.gch") == 0o700 and mode(folder) == 0o700
    tiny_prelude(include, "inline int which() { return 2; }\n")
    main = tmp_path / "main.cpp"
    main.write_text('#include "cuda_sim.h"\nint main() { return which(); }\n')
    subprocess.run([gcc[0], f"-I{folder}", *flags, str(main), "-o", str(tmp_path / "main")],
                   check=True)
    assert subprocess.run([tmp_path / "main"]).returncode == 1  # GCC read the precompiled one
    copy = tiny_prelude(tmp_path / "copy", "inline int which() { return 1; }\n")  # same headers
    copy_flags = [*flags[:-1], f"-I{copy}"]
    assert prebuilt.prelude_folder(gcc, copy_flags, copy, digest) == folder  # shared by copies
    # An instrumented build names files by their path: one of its own for each copy's headers.
    traced = prebuilt.prelude_folder(gcc, ["-DSIM_TRACE", *flags], include, digest)
    assert traced is None  # the first: as before
    traced = prebuilt.prelude_folder(gcc, ["-DSIM_TRACE", *flags], include, digest)
    assert traced not in (None, folder) and (traced / "cuda_sim.h.gch").is_file()
    assert prebuilt.prelude_folder(gcc, ["-DSIM_TRACE", *copy_flags], copy, digest) is None
    (folder / "cuda_sim.h.gch").chmod(0o766)
    with pytest.raises(cache.UnsafeCacheError, match="precompiled prelude .* delete it"):
        prebuilt.prelude_folder(gcc, flags, include, digest)


@pytest.mark.usefixtures("empty_cache")
def test_a_prelude_in_use_is_not_another_copys_stale_folder(tmp_path, gcc):
    """A copy of the course whose headers differ deletes the folders of other headers unused for
    an hour, not one that another copy still builds with (seen: a test run's compile failed on a
    precompiled prelude deleted under it, made more than an hour before by a copy in use)."""
    include = tiny_prelude(tmp_path / "include", "inline int which() { return 1; }\n")
    flags, mine, theirs = ["-std=c++17", "-O2", f"-I{include}"], "3" * 64, "4" * 64
    prebuilt.prelude_folder(gcc, flags, include, mine)            # the first build: wanted
    folder = prebuilt.prelude_folder(gcc, flags, include, mine)   # the second: precompiled
    an_hour_ago = time.time() - prebuilt.STALE_AFTER_S - 60
    os.utime(folder, (an_hour_ago, an_hour_ago))
    assert prebuilt.prelude_folder(gcc, flags, include, mine) == folder   # in use again
    prebuilt.prelude_folder(gcc, flags, include, theirs)          # another copy's headers
    assert (folder / "cuda_sim.h.gch").is_file()


@pytest.mark.usefixtures("private_cache")  # a new module each run: not in the run's cache
def test_a_damaged_precompiled_prelude_is_deleted_and_the_module_built_without(tmp_path, gcc,
                                                                             monkeypatch):
    damaged = []

    def precompiled_then_damaged(cxx, flags, include_dir, digest, debug=()):
        """One built with the command's own flags (so GCC takes it), cut in half."""
        folder = tmp_path / f"prelude-{len(damaged)}"
        folder.mkdir()
        header = tiny_prelude(tmp_path / "header", "struct Prelude {};\n") / "cuda_sim.h"
        subprocess.run([cxx[0], *flags, "-x", "c++-header", str(header), "-o",
                        str(folder / "cuda_sim.h.gch")], check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        gch = folder / "cuda_sim.h.gch"
        with open(gch, "r+b") as f:
            f.truncate(gch.stat().st_size // 2)
        damaged.append(folder)
        return folder

    monkeypatch.setattr(prebuilt, "prelude_folder", precompiled_then_damaged)
    x = gpuarray.zeros(1, np.int32)
    SourceModule(unique("x[0] = 7;")).get_function("k")(x, block=(1, 1, 1), grid=(1, 1))
    assert x.get()[0] == 7
    assert len(damaged) == 2 and not any(f.exists() for f in damaged)  # the scan's, the build's


@pytest.mark.slow
@pytest.mark.usefixtures("private_cache")
def test_barriers_work_in_the_second_module_built_with_the_same_flags():
    """The second module with a flag set is the one a precompiled prelude serves. A module with
    barriers keeps the worker in a register on x86-64, which the unit declares after the
    precompiled prelude (sim_prelude_end.h): one that held the declaration lost the reservation."""
    x = gpuarray.zeros(64, np.int32)
    for n in (1, 2):
        SourceModule(unique("__shared__ int s[64]; s[threadIdx.x] = threadIdx.x; "
                            f"__syncthreads(); x[threadIdx.x] = s[63 - threadIdx.x] + {n};")
                     ).get_function("k")(x, block=(64, 1, 1), grid=(1, 1))
        assert (x.get() == np.arange(63, -1, -1) + n).all()
