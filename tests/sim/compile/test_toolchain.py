"""The host's C++ compiler and CPU as the simulator uses them (helpers/sim/compile/toolchain.py):
which compiler is found, the flags that make its float arithmetic nvcc's, and binutils. These
run the simulator whatever backend is chosen; all but one need no compile."""

import os
import platform

import numpy as np
import pytest

from helpers.sim import errors, gpuarray
from helpers.sim.compile import toolchain
from helpers.sim.compile.builder import translate_options
from helpers.sim.compiler import SourceModule
from helpers.sim.settings import settings


def test_compilers_are_looked_for_in_order_the_setting_first():
    conda = [toolchain.conda_prefix() + n for n in ("g++", "c++")] if toolchain.conda_prefix() \
        else []
    assert toolchain.candidates("clang++-17") == ["clang++-17", "g++", "c++", "clang++", *conda]
    assert toolchain.candidates("") == ["g++", "c++", "clang++", *conda]
    with settings.changed(cxx=""):  # the order alone (a machine may set CXX to another g++)
        path, version = toolchain.find_compiler()
    with settings.changed(cxx="no-such-compiler-here"):  # not on PATH: the next one is found
        assert toolchain.find_compiler() == (path, version)


def test_without_a_compiler_the_error_says_how_to_install_one(monkeypatch):
    monkeypatch.setattr(toolchain, "which", lambda name: None)
    with settings.changed(cxx="a-compiler-nobody-has"):
        assert toolchain.find_compiler(required=False) is None
        with pytest.raises(errors.CompileError, match="apt install g[+][+]"):
            toolchain.find_compiler()
    with pytest.raises(errors.CompileError, match="binutils' objdump"):
        toolchain.binutils("objdump", "the test")


def _tools(folder, names):
    """Stand-ins for the programs ``names`` in ``folder``: each prints a GCC-like version."""
    folder.mkdir(parents=True, exist_ok=True)
    for name in names:
        tool = folder / name
        tool.write_text("#!/bin/sh\necho \"${0##*/} (conda-forge gcc 13.2.0-3) 13.2.0\"\n"
                        "echo 'Copyright (C) 2023 Free Software Foundation, Inc.'\n")
        tool.chmod(0o755)
    return folder


@pytest.fixture
def only(tmp_path, monkeypatch):
    """A PATH that holds only the folder it gives, and a Python elsewhere; compilers looked for
    afresh."""
    path = tmp_path / "path"
    path.mkdir()
    monkeypatch.setenv("PATH", str(path))
    monkeypatch.setattr(toolchain.sys, "executable", str(tmp_path / "env" / "bin" / "python"))
    toolchain._find.cache_clear()
    yield path
    toolchain._find.cache_clear()


@pytest.mark.skipif(not toolchain.conda_prefix(), reason="conda-forge's prefixed names: Linux")
def test_conda_forges_prefixed_compiler_and_binutils_are_found_on_path(only):
    prefix = toolchain.conda_prefix()
    assert prefix.endswith("-conda-linux-gnu-")
    _tools(only, [f"{prefix}{name}" for name in ("c++", "objdump", "addr2line", "c++filt")])
    with settings.changed(cxx=None):
        path, version = toolchain.find_compiler()
    assert path == str(only / f"{prefix}c++") and toolchain.is_gcc((path, version))
    for name in ("objdump", "addr2line", "c++filt"):
        assert toolchain.binutils(name, "the test") == str(only / f"{prefix}{name}")
    _tools(only, ["objdump"])                 # a plain one comes first
    assert toolchain.binutils("objdump", "the test") == str(only / "objdump")


@pytest.mark.skipif(not toolchain.conda_prefix(), reason="conda-forge's prefixed names: Linux")
def test_an_environment_not_on_path_is_searched_beside_its_python(only, tmp_path):
    env = _tools(tmp_path / "env" / "bin", [f"{toolchain.conda_prefix()}{name}"
                                             for name in ("g++", "objdump")])
    with settings.changed(cxx=None):
        assert toolchain.find_compiler()[0] == str(env / f"{toolchain.conda_prefix()}g++")
    assert toolchain.binutils("objdump", "the test") == str(env / f"{toolchain.conda_prefix()}objdump")
    with pytest.raises(errors.CompileError, match="binutils' addr2line"):
        toolchain.binutils("addr2line", "the test")


def test_cxx_comes_first_and_the_error_names_every_compiler_tried(only):
    _tools(only, ["g++", "my-c++"])
    with settings.changed(cxx="my-c++"):
        assert toolchain.find_compiler()[0] == str(only / "my-c++")
    (only / "g++").unlink()
    with settings.changed(cxx="no-such-c++"):
        assert toolchain.find_compiler(required=False) is None
        with pytest.raises(errors.CompileError) as caught:
            toolchain.find_compiler()
    assert all(name in str(caught.value) for name in toolchain.candidates("no-such-c++"))


def test_float_flags_follow_fmad_and_the_cpu():
    fused = toolchain.float_flags([])
    assert fused[:2] == ["-ffp-contract=fast", toolchain.FUSE_CHAINS]
    assert toolchain.float_flags(["-O3", "--fmad=false"])[0] == "-ffp-contract=off"
    assert toolchain.FUSE_CHAINS not in toolchain.float_flags(["-fmad=false"])
    x86 = platform.machine().lower() in ("x86_64", "amd64")
    assert ("-mfma" in fused) == (toolchain.cpu_has_fma() and x86)
    assert toolchain.is_fmad_option("--fmad=true") and toolchain.is_fmad_option("-fmad=false")
    assert not toolchain.is_fmad_option("--fmad=maybe")


def test_gccs_own_flag_goes_to_gcc_only_and_the_cache_key_does_not_depend_on_it(tmp_path):
    clang = tmp_path / "clang++"
    clang.write_text("#!/bin/sh\necho 'clang version 17.0.6'\n")
    clang.chmod(0o755)
    flags, _ = translate_options([])
    assert toolchain.FUSE_CHAINS in flags     # the same library name whichever compiler is found
    assert not toolchain.is_gcc((str(clang), "clang"))
    assert toolchain.FUSE_CHAINS not in toolchain.for_compiler(flags, (str(clang), "clang"))
    assert toolchain.FUSE_CHAINS not in translate_options(["--fmad=false"])[0]


def test_a_compiler_tuned_against_fma_chains_still_fuses_them_as_nvcc(tmp_path, private_cache):
    """GCC leaves a loop's accumulation unfused where its tuning avoids FMA chains (AMD Zen's
    here, generic in newer GCCs: on an H200 machine's g++ 13.3 the tiled matmul of
    bench/float_identity.py matched the GPU on 22% of its elements). A compiler that always
    tunes so must still fuse as nvcc does."""
    from kernel_sources import accumulated

    if not (toolchain.cpu_has_fma() and toolchain.is_gcc(toolchain.find_compiler(False))
            and "x86" in os.uname().machine):
        pytest.skip("needs GCC on an x86-64 CPU with FMA")
    tuned = tmp_path / "g++-tuned"
    tuned.write_text(f'#!/bin/sh\nexec {toolchain.find_compiler()[0]} -mtune=znver3 "$@"\n')
    tuned.chmod(0o755)
    with settings.changed(cxx=str(tuned)):
        loop, chain = accumulated(SourceModule, gpuarray)
    assert np.array_equal(loop, chain), f"{(loop != chain).sum()} of {loop.size} sums unfused"
