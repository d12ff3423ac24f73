"""helpers.ch12.opencl and helpers.ch12.oclgrind: the ICD setup that makes NVIDIA's OpenCL findable, the
platform choice, messages that name the .cl file and line, and Oclgrind's checks captured."""

import os
import subprocess
import sys

import numpy as np
import pytest

from helpers.ch12 import oclgrind, opencl

cl = opencl.cl


# ---- finding NVIDIA's OpenCL ---------------------------------------------------------------------

@pytest.fixture
def machine(tmp_path):
    """A fake machine: a library folder, a system vendors folder, a cache folder."""
    lib = tmp_path / "lib"
    system = tmp_path / "etc-vendors"
    lib.mkdir()
    system.mkdir()
    return lib, system, tmp_path / "cache"


def test_no_nvidia_library_changes_nothing(machine):
    lib, system, cache = machine
    env = {}
    note = opencl.setup_icd(env, system, opencl.find_nvidia_library([lib]), cache)
    assert "no NVIDIA OpenCL library" in note and env == {} and not cache.exists()


def test_a_registered_nvidia_library_changes_nothing(machine):
    lib, system, cache = machine
    (lib / opencl.NVIDIA_LIBRARY).write_text("")
    (system / "nvidia.icd").write_text("libnvidia-opencl.so.1\n")
    env = {}
    note = opencl.setup_icd(env, system, opencl.find_nvidia_library([lib]), cache)
    assert "registered" in note and env == {} and not cache.exists()


def test_an_unregistered_nvidia_library_gets_a_vendors_folder(machine):
    lib, system, cache = machine
    (lib / opencl.NVIDIA_LIBRARY).write_text("")
    (system / "intel.icd").write_text("libintelocl.so\n")
    env = {}
    library = opencl.find_nvidia_library([lib])
    assert library == str(lib / opencl.NVIDIA_LIBRARY)
    note = opencl.setup_icd(env, system, library, cache)
    assert env["OCL_ICD_VENDORS"] == str(cache) and "OCL_ICD_VENDORS" in note
    assert opencl.icd_libraries(cache) == {"intel.icd": "libintelocl.so", "nvidia.icd": library}
    assert not [p for p in cache.iterdir() if p.name.endswith(".tmp")]


def test_the_vendors_folder_goes_into_the_courses_cache_by_default(machine):
    from helpers.sim.settings import settings

    lib, system, cache = machine
    (lib / opencl.NVIDIA_LIBRARY).write_text("")
    env = {}
    with settings.changed(cache_dir=str(cache)):
        opencl.setup_icd(env, system, opencl.find_nvidia_library([lib]))
    assert env["OCL_ICD_VENDORS"] == str(cache / "opencl-vendors")
    assert "nvidia.icd" in opencl.icd_libraries(cache / "opencl-vendors")


def test_a_users_ocl_icd_vendors_is_left_alone(machine):
    lib, system, cache = machine
    (lib / opencl.NVIDIA_LIBRARY).write_text("")
    env = {"OCL_ICD_VENDORS": "/somewhere"}
    note = opencl.setup_icd(env, system, opencl.find_nvidia_library([lib]), cache)
    assert env == {"OCL_ICD_VENDORS": "/somewhere"} and "is set" in note


def test_pyopencls_own_icd_files_are_still_read_with_a_vendors_folder(machine):
    # The folder replaces /etc/OpenCL/vendors only: PyOpenCL's loader still finds Oclgrind
    # through the ICD file in PyOpenCL's own folder, even when nvidia.icd names no library.
    lib, system, cache = machine
    opencl.write_vendors_folder(cache, str(lib / opencl.NVIDIA_LIBRARY), system)
    code = "import pyopencl as cl; print([p.name for p in cl.get_platforms()])"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env=dict(os.environ, OCL_ICD_VENDORS=str(cache)), timeout=120)
    assert "Oclgrind" in out.stdout, out.stdout + out.stderr


# ---- the platform --------------------------------------------------------------------------------

def test_auto_picks_nvidia_when_present_and_oclgrind_otherwise():
    platform, reason = opencl.choose_platform("auto")
    nvidia = opencl.find_platform(opencl.is_nvidia)
    assert platform.name == (nvidia.name if nvidia else "Oclgrind"), reason


@pytest.mark.skipif(opencl.find_nvidia_library() is None, reason="no NVIDIA OpenCL library here")
def test_nvidias_opencl_is_found_where_its_library_is():
    assert opencl.find_platform(opencl.is_nvidia), opencl.ICD_SETUP
    assert opencl.choose_platform()[0].name == opencl.find_platform(opencl.is_nvidia).name


def test_oclgrind_can_be_asked_for_and_a_bad_choice_is_explained():
    assert opencl.choose_platform("oclgrind")[0].name == "Oclgrind"
    with pytest.raises(ValueError, match="auto, nvidia, oclgrind"):
        opencl.choose_platform("intel")


def test_list_platforms_names_oclgrind(capsys):
    opencl.list_platforms()
    out = capsys.readouterr().out
    assert "Oclgrind" in out and "Oclgrind Simulator" in out


# ---- messages name the file and line -------------------------------------------------------------

def test_read_cl_keeps_the_files_line_numbers(tmp_path):
    (tmp_path / "k.cl").write_text("// a comment\nline two\n")
    assert opencl.read_cl(str(tmp_path / "k.cl")).splitlines()[1] == "line two"
    (tmp_path / "k.cl").write_text("line one\n")
    text = opencl.read_cl(str(tmp_path / "k.cl"))
    assert text.startswith("#line 1 ") and text.splitlines()[1] == "line one"
    with pytest.raises(FileNotFoundError, match="vector_add.cl"):
        opencl.read_cl("no_such.cl")


def test_a_build_error_names_the_files_line(tmp_path):
    # (Oclgrind's compiler calls every source input.cl; its run-time reports use the name.)
    (tmp_path / "broken.cl").write_text("// broken\n__kernel void k(__global int *x)\n"
                                        "{\n    x[0] = 1\n}\n")
    ctx = oclgrind.context()
    with pytest.raises(cl.RuntimeError, match=r"\.cl:4:\d+: error"):
        opencl.build(ctx, str(tmp_path / "broken.cl"))


# ---- Oclgrind's checks ---------------------------------------------------------------------------

def run_reverse(ctx, source, n=128, group=64):
    queue = cl.CommandQueue(ctx)
    kernel = cl.Kernel(cl.Program(ctx, source).build(), "reverse_groups")
    data = np.arange(n, dtype=np.float32)
    mf = cl.mem_flags
    src = cl.Buffer(ctx, mf.READ_ONLY | mf.COPY_HOST_PTR, hostbuf=data)
    dst = cl.Buffer(ctx, mf.WRITE_ONLY, data.nbytes)
    out = np.empty_like(data)

    def run():
        kernel(queue, (n,), (group,), src, dst)
        cl.enqueue_copy(queue, out, dst)
        queue.finish()
    messages = oclgrind.captured(run)
    return out, messages


def test_a_missing_barrier_is_a_race_that_oclgrind_names_with_its_lines():
    source = opencl.read_cl("reverse_groups.cl")
    right = np.arange(128, dtype=np.float32).reshape(2, 64)[:, ::-1].ravel()
    out, messages = run_reverse(oclgrind.context(data_races=True), source)
    assert np.array_equal(out, right) and messages == []
    racy = source.replace("barrier(CLK_LOCAL_MEM_FENCE);", "")
    _, messages = run_reverse(oclgrind.context(data_races=True), racy)
    assert messages and {m.kind for m in messages} == {"Read-write data race (local memory)"}
    text = str(messages[0])
    assert "of reverse_groups.cl:" in text and "tile[k] = in[i];" in text, text
    # Without data_races, the same kernel runs unreported: the check is per context.
    _, messages = run_reverse(oclgrind.context(), racy)
    assert messages == []


def test_reports_quote_the_source_even_after_pyopencl_cached_the_program(tmp_path, monkeypatch):
    # A program that PyOpenCL loads from its disk cache has no source for Oclgrind to quote.
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    racy = opencl.read_cl("reverse_groups.cl").replace("barrier(CLK_LOCAL_MEM_FENCE);", "")
    caching = cl.Context(devices=oclgrind.platform().get_devices())
    cl.Program(caching, racy).build()                      # now in PyOpenCL's cache
    _, messages = run_reverse(oclgrind.context(data_races=True), racy)
    assert "tile[k] = in[i];" in str(messages[0]), str(messages[0])


def test_accesses_outside_a_buffer_are_reported_not_done(capsys):
    source = opencl.read_cl("vector_add.cl").replace("if (i < n)", "if (1)")
    ctx = oclgrind.context()
    queue = cl.CommandQueue(ctx)
    kernel = cl.Kernel(cl.Program(ctx, source).build(), "vector_add")
    a = cl.Buffer(ctx, cl.mem_flags.READ_WRITE, 4 * 100)

    def run():
        kernel(queue, (128,), (64,), a, a, a, np.int32(100))
        queue.finish()
    messages = oclgrind.captured(run)
    kinds = {m.kind for m in messages}
    assert kinds == {"Invalid read of size 4 (global memory)",
                     "Invalid write of size 4 (global memory)"}, kinds
    assert sorted({m.work_items[0][0] for m in messages}) == list(range(100, 128))
    assert {m.where for m in messages} <= {f"line {n} of vector_add.cl" for n in range(15, 19)}
    oclgrind.summarize(messages)
    out = capsys.readouterr().out
    assert "84 problem(s)" in out and "work-items 100 to 127" in out, out


def test_a_flood_of_messages_does_not_silence_later_checks():
    # Oclgrind writes at most 1000 messages in a process unless the count is set back.
    source = opencl.read_cl("vector_add.cl").replace("if (i < n)", "if (1)")

    def wild(total):
        ctx = oclgrind.context()
        queue = cl.CommandQueue(ctx)
        kernel = cl.Kernel(cl.Program(ctx, source).build(), "vector_add")
        a = cl.Buffer(ctx, cl.mem_flags.READ_WRITE, 4 * 64)
        return oclgrind.captured(lambda: (kernel(queue, (total,), (64,), a, a, a, np.int32(64)),
                                          queue.finish()))
    assert len(wild(2048)) > 1000
    assert len(wild(128)) == 3 * 64


def test_parse_splits_messages_and_keeps_other_text():
    text = ("Invalid write of size 4 at global memory address 0x30\n\tKernel: k\n"
            "\tEntity: Global(7,0,0) Local(7,0,0) Group(0,0,0)\n\tAt line 3 (column 5) of k.cl:\n"
            "\t  x[i] = 0;\n\nWrite-write data race at local memory address 0x10\n\tKernel: k\n")
    first, second = oclgrind.parse(text)
    assert first.kind == "Invalid write of size 4 (global memory)"
    assert first.work_items == [(7, 0, 0)] and first.where == "line 3 of k.cl"
    assert second.kind == "Write-write data race (local memory)" and second.where is None


def test_a_build_log_keeps_what_concerns_the_source_only():
    # NVIDIA's compiler (H200, driver 580) says this of every kernel it builds from a cold cache
    chatter = ("(): Warning: Function sepia is a kernel, so overriding noinline attribute. The "
               "function may be inlined when called.\n")
    warning = "<kernel>:3:9: warning: unused variable 'x'"
    assert opencl.said_of_the_source(chatter) == ""
    assert opencl.said_of_the_source(chatter + warning + "\n" + chatter) == warning
