"""Notebook 09's gallery of bugs: every kernel in cuda_src/bugs/ gives its named verdict on the
simulator; on a GPU (CUDA_COURSE_BACKEND=pycuda) with compute-sanitizer, each bug's tool says
what the notebook says it says, and an illegal address or a failed assert breaks the context
for every later call (in a process of its own). Also: how compute-sanitizer's and Nsight
Compute's outputs are trimmed and read."""

import re
import shutil
from pathlib import Path

import pytest

from helpers.ch09 import bug_gallery, gpu_tools, sticky_errors
from helpers.backend import BACKEND

BUGS_DIR = Path(__file__).resolve().parents[2] / "cuda_src" / "bugs"
ON_GPU_WITH_SANITIZER = pytest.mark.skipif(
    BACKEND != "pycuda" or not shutil.which("compute-sanitizer"),
    reason="needs a GPU (CUDA_COURSE_BACKEND=pycuda) and compute-sanitizer on PATH")


def test_the_gallery_holds_every_file_in_cuda_src_bugs():
    assert sorted(p.stem for p in BUGS_DIR.glob("*.cu")) == sorted(bug_gallery.BUGS)
    for bug in bug_gallery.BUGS.values():
        assert f"void {bug.kernel}(" in (BUGS_DIR / f"{bug.name}.cu").read_text()


@pytest.mark.parametrize("name", sorted(bug_gallery.BUGS))
def test_each_bug_gives_its_named_verdict_on_the_simulator(name):
    result = bug_gallery.on_simulator(name)
    assert result.verdict == bug_gallery.BUGS[name].verdict, result.text


def test_without_their_checks_a_race_and_an_uninitialised_read_raise_nothing():
    from helpers.sim import driver, gpuarray
    from helpers.sim.settings import settings

    right = {}
    for name in ("racy_increment", "uninitialised_read"):
        kernel = bug_gallery._simulator_module().get_function(bug_gallery.BUGS[name].kernel)
        with settings.changed(racecheck=False, initcheck=False):
            right[name], _ = bug_gallery.BUGS[name].scenario(
                bug_gallery.Api(driver, gpuarray, kernel))
    assert right["uninitialised_read"]  # the simulator's fresh memory is zero: right by luck


def test_the_plain_run_prints_what_it_saw_and_a_summary(capsys):
    if BACKEND != "simulator":
        pytest.skip("on a GPU a plain run of a bug belongs in a process of its own")
    assert bug_gallery.main(["off_by_one"]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[-1] == "summary: error: an illegal memory access was encountered"
    assert bug_gallery.main(["no_such_bug"]) == 2


@pytest.mark.parametrize("kind", sticky_errors.KINDS)
def test_what_an_error_does_to_the_later_calls(kind):
    run = gpu_tools.run_python(["-m", "helpers.ch09.sticky_errors", kind], timeout=300)
    summary = [line for line in run.output.splitlines() if line.startswith("summary: ")]
    assert summary, run.output
    if BACKEND == "simulator":  # the faulty launch raises; everything after it works
        assert summary[-1] == ("summary: the error surfaced at call 1; 0 of the 4 calls after "
                               "it failed too"), run.output
    else:  # a sticky error: every call after it fails
        assert summary[-1].endswith("calls after it failed too"), run.output
        later, of = summary[-1].split("; ")[1].split(" of the ")
        assert int(later) == int(of.split()[0]) >= 3, run.output


# ---- on a GPU: what compute-sanitizer says about each bug -----------------------------------------
EXPECTED = {  # bug: words of compute-sanitizer's first report (None: it reports nothing)
    "missing_guard": "Invalid __global__",  # a read of x or a write of y past the end
    "off_by_one": "Invalid __global__",
    "missing_barrier": "Race reported between",
    "barrier_in_branch": "Barrier error detected",
    "racy_increment": None,  # racecheck watches shared memory only
    "uninitialised_read": "Uninitialized __global__ memory read of size 4 bytes",
    "wrong_argument_type": None,  # every access is inside the allocation
}


@ON_GPU_WITH_SANITIZER
@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_compute_sanitizer_says_what_the_notebook_says(name):
    bug = bug_gallery.BUGS[name]
    run = gpu_tools.sanitize(["-m", "helpers.ch09.bug_gallery", name], bug.tool)
    summary = gpu_tools.sanitizer_summary(run.output)
    if EXPECTED[name] is None:
        assert summary.startswith("nothing reported"), run.output  # (about the kernel)
    else:
        assert EXPECTED[name] in summary, run.output


def _access_line(name):
    """file:line of the guard bugs' one access line (y[i] = 2 x[i])."""
    lines = (BUGS_DIR / f"{name}.cu").read_text().splitlines()
    return f"{name}.cu:{next(n for n, text in enumerate(lines, 1) if 'y[i] = 2.0f * x[i]' in text)}"


@pytest.mark.parametrize("name", ["missing_guard", "off_by_one"])
def test_the_simulator_names_the_line_of_an_access_past_the_end(name):
    assert f" at {_access_line(name)}: a " in bug_gallery.on_simulator(name).text


@ON_GPU_WITH_SANITIZER
@pytest.mark.parametrize("name", ["missing_guard", "off_by_one"])
def test_memcheck_names_the_line_the_simulator_names(name):
    run = gpu_tools.sanitize(["-m", "helpers.ch09.bug_gallery", name], "memcheck")
    real = re.search(r"Invalid __global__ \w+ of size \d+ bytes\s*=+\s*at \S+ in (\S+)", run.output)
    assert real and real.group(1) == _access_line(name), run.output


@ON_GPU_WITH_SANITIZER
def test_racecheck_prints_the_line_the_simulator_predicts():
    # the order of the two accesses and racecheck's count (by the byte) of their hazards
    run = gpu_tools.sanitize(["-m", "helpers.ch09.bug_gallery", "missing_barrier"], "racecheck")
    real = re.search(r"Race reported between (Write|Read) access at \S+ in (\S+)\s*=*\s*and "
                     r"(Write|Read) access at \S+ in (\S+) \[(\d+) hazards?\]", run.output)
    predicted = re.search(r"Race reported between (Write|Read) access at (\S+?):\w+ and "
                          r"(Write|Read) access at (\S+?):\w+ \[(\d+) hazards?\]",
                          bug_gallery.on_simulator("missing_barrier").text)
    assert real and predicted and real.groups() == predicted.groups(), run.output


@ON_GPU_WITH_SANITIZER
def test_a_plain_gpu_run_of_a_guard_bug_is_silent():
    run = gpu_tools.run_python(["-m", "helpers.ch09.bug_gallery", "off_by_one"], timeout=120)
    assert "summary: silent" in run.output, run.output


# ---- reading the tools' outputs -----------------------------------------------------------------
MEMCHECK = """\
========= COMPUTE-SANITIZER
y = 2x for every element: True
========= Invalid __global__ write of size 4 bytes
=========     at scale_off_by_one+0x90 in off_by_one.cu:10
=========     by thread (232,0,0) in block (3,0,0)
=========     Address 0x7f3a00000fa0 is out of bounds
=========
========= Invalid __global__ write of size 4 bytes
=========     at scale_off_by_one+0x90 in off_by_one.cu:10
=========     by thread (233,0,0) in block (3,0,0)
=========
========= ERROR SUMMARY: 2 errors
"""


def test_sanitizer_output_is_trimmed_to_its_first_report():
    trimmed = gpu_tools.trim_sanitizer(MEMCHECK)
    assert trimmed.count("Invalid __global__ write") == 1
    assert "thread (232,0,0)" in trimmed and "thread (233,0,0)" not in trimmed
    assert "... 1 more report like these left out" in trimmed
    assert trimmed.splitlines()[-1] == "========= ERROR SUMMARY: 2 errors"
    assert "y = 2x for every element: True" in trimmed  # the program's own lines stay


def test_sanitizer_summary_is_the_first_headline_without_addresses():
    assert gpu_tools.sanitizer_summary(MEMCHECK) == "Invalid __global__ write of size 4 bytes"
    race = ("========= Error: Race reported between Write access at reverse_blocks(const float *, "
            "float *, int)+0x70 in missing_barrier.cu:13\n=========     and Read access at "
            "reverse_blocks+0x80 in missing_barrier.cu:14 [248 hazards]\n=========\n"
            "========= RACECHECK SUMMARY: 1 hazard displayed (1 error, 0 warnings)\n")
    assert gpu_tools.sanitizer_summary(race) == (
        "Race reported between Write access (missing_barrier.cu:13)")
    clean = "========= COMPUTE-SANITIZER\n========= ERROR SUMMARY: 0 errors\n"
    assert gpu_tools.sanitizer_summary(clean) == "nothing reported (ERROR SUMMARY: 0 errors)"
    api = ("========= Program hit CUDA_ERROR_INVALID_CONTEXT (error 201) due to \"invalid device "
           "context\" on CUDA API call to cuCtxPopCurrent.\n=========\n"
           "========= ERROR SUMMARY: 1 error\n")
    assert gpu_tools.sanitizer_summary(api) == (
        "nothing reported about the kernel (1 report about CUDA calls)")
    assert gpu_tools.sanitizer_summary(api + MEMCHECK) == "Invalid __global__ write of size 4 bytes"


NCU = """\
==PROF== Connected to process 4242 (/usr/bin/python3.12)
  rgb_to_gray (256, 1024, 1)x(32, 8, 1), Context 1, Stream 7, Device 0, CC 9.0
    Section: GPU Speed Of Light Throughput
    ----------------------- ----------- ------------
    Metric Name             Metric Unit Metric Value
    ----------------------- ----------- ------------
    DRAM Throughput                   %        31.50
    Duration                         us       201.02
    ----------------------- ----------- ------------

    OPT   This kernel exhibits low compute throughput and memory bandwidth utilization
          relative to the peak performance of this device.
    Section: Command line profiler metrics
    smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio  ratio  12.30
"""


def test_ncu_output_is_read_kernel_by_kernel():
    parsed = gpu_tools.parse_ncu(NCU)
    assert list(parsed) == ["rgb_to_gray"]
    metrics = parsed["rgb_to_gray"]["metrics"]
    assert metrics["DRAM Throughput"] == ("%", 31.5) and metrics["Duration"] == ("us", 201.02)
    assert metrics["smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio"] == (
        "ratio", 12.3)
    assert parsed["rgb_to_gray"]["rules"] == [
        "OPT: This kernel exhibits low compute throughput and memory bandwidth utilization "
        "relative to the peak performance of this device."]


def test_a_program_past_its_time_limit_is_stopped_whole():
    run = gpu_tools.run_python(["-c", "import time; print('started', flush=True); time.sleep(60)"],
                               timeout=2, backend="simulator")
    assert run.timed_out and "started" in run.output and "stopped after 2 s" in run.output


def test_the_program_ncu_profiles_checks_its_kernels():
    run = gpu_tools.run_python(["-m", "helpers.ch09.gpu_tools", "gray", "100"], timeout=300,
                               backend="simulator")
    assert "rgb_to_gray matches NumPy: True, rgb_to_gray_x16 matches NumPy: True" in run.output


@pytest.mark.skipif(BACKEND != "pycuda" or not shutil.which("ncu"),
                    reason="needs a GPU (CUDA_COURSE_BACKEND=pycuda) and ncu on PATH")
def test_ncu_reads_the_counters_the_notebook_explains():
    run = gpu_tools.profile(["-m", "helpers.ch09.gpu_tools", "gray", "2048"], "^rgb_to_gray")
    parsed = gpu_tools.parse_ncu(run.output)
    assert set(parsed) == {"rgb_to_gray", "rgb_to_gray_x16"}, run.output
    for kernel in parsed.values():
        metrics = kernel["metrics"]
        for name in ("Duration", "DRAM Throughput", "Achieved Occupancy",
                     "Warp Cycles Per Issued Instruction"):
            assert name in metrics, (name, run.output)
        assert any(m.startswith("smsp__average_warps_issue_stalled_") for m in metrics), run.output
