"""NVIDIA's tools, run from a notebook: compute-sanitizer and Nsight Compute (``ncu``), each on a
small Python program in a process of its own, and what they print, trimmed to what a reader
needs.

Why a process of its own: both tools must start the program they watch, and the program may
end its CUDA context for good (an illegal address does, notebook 09 shows it), which must not
happen to the notebook's own. The same helper runs a program without a tool, for the "plain
run" of a bug on a GPU.

    run = sanitize(["-m", "helpers.ch09.bug_gallery", "missing_guard"], "memcheck")
    print(trim_sanitizer(run.output)); sanitizer_summary(run.output)
    run = profile(["-m", "helpers.ch09.gpu_tools", "gray", "8192"], "rgb_to_gray")
    figures = parse_ncu(run.output)

``python -m helpers.ch09.gpu_tools gray SIDE`` is the program ncu profiles in notebook 09: notebook
04's two grayscale kernels, one launch each on a SIDE x SIDE image, checked against NumPy.
"""

from __future__ import annotations

import dataclasses
import os
import re
import shutil
import signal
import subprocess
import sys

from helpers import course, settings

PREFIX = "========="  # how compute-sanitizer starts each of its lines


@dataclasses.dataclass
class Run:
    """One program run: the command as a person would type it, what it printed (stdout and
    stderr together), its exit status (None when it was stopped at the time limit)."""
    command: str
    output: str
    returncode: int | None

    @property
    def timed_out(self) -> bool:
        return self.returncode is None


def available(tool: str) -> bool:
    """True when ``tool`` (compute-sanitizer, ncu) is on PATH."""
    return shutil.which(tool) is not None


def run_python(args, tool=(), timeout=120, backend=None) -> Run:
    """``python ARGS`` from the course's folder, with this ``helpers`` importable, under ``tool`` (the tool's command, a list)
    when given, in a new process group that is killed whole at the time limit (a hung kernel
    must not outlive its notebook cell). ``backend``: CUDA_COURSE_BACKEND for the program
    (default: the one this process uses)."""
    if backend is None:
        from helpers.backend import BACKEND as backend
    root = course.root()
    path = os.pathsep.join(p for p in (str(course.PACKAGE_PARENT), os.environ.get("PYTHONPATH"))
                           if p)
    env = {**os.environ, "PYTHONPATH": path, settings.BACKEND: backend}
    env.pop(settings.REFERENCE_OUT, None)  # only the notebook itself records figures
    command = [*tool, sys.executable, *args]
    shown = " ".join([*tool, "python", *args])
    proc = subprocess.Popen(command, cwd=root, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True, start_new_session=True)
    try:
        output, _ = proc.communicate(timeout=timeout)
        return Run(shown, output, proc.returncode)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        output, _ = proc.communicate()
        return Run(shown, output + f"\n(stopped after {timeout} s: the program did not finish)",
                   None)


# ---- compute-sanitizer -----------------------------------------------------------------------------
def sanitize(args, tool: str, timeout=120) -> Run:
    """``compute-sanitizer --tool TOOL python ARGS`` (host backtraces left out: a Python
    program's are dozens of frames of the interpreter)."""
    return run_python(args, ["compute-sanitizer", "--tool", tool, "--show-backtrace", "no"],
                      timeout, backend="pycuda")


def _reports(lines):
    """compute-sanitizer's output as a list of items: ("report", [lines]) for each error report
    (a headline, its indented lines), ("line", line) for everything else."""
    items, current = [], None
    for line in lines:
        body = line[len(PREFIX):] if line.startswith(PREFIX) else None
        if body is None or body.strip() == "" or "SUMMARY" in body or "COMPUTE-SANITIZER" in body:
            current = None
            if body is None or body.strip():
                items.append(("line", line))
        elif body.startswith("     ") and current is not None:
            current.append(line)
        else:
            current = [line]
            items.append(("report", current))
    return items


def _kind(report):
    """A report's headline with its numbers left out: reports of one kind share it."""
    return re.sub(r"0x[0-9a-f]+|\d+", "#", report[0])


def trim_sanitizer(text: str, reports: int = 1) -> str:
    """compute-sanitizer's output with only the first ``reports`` error reports of each kind (a
    bug in every thread of a block gives one report a thread) and a line saying how many were
    left out."""
    out, seen, left = [], {}, 0
    for kind, item in _reports(text.splitlines()):
        if kind == "line":
            out.append(item)
            continue
        seen[_kind(item)] = seen.get(_kind(item), 0) + 1
        if seen[_kind(item)] <= reports:
            out.extend(item)
        else:
            left += 1
    if left:
        at = next((i for i, line in enumerate(out) if "SUMMARY" in line), len(out))
        out.insert(at, f"{PREFIX} ... {left} more report{'s' * (left != 1)} like these left out")
    return "\n".join(out)


def _headline(report):
    return report[0][len(PREFIX):].strip().removeprefix("Error: ")


def sanitizer_summary(text: str) -> str:
    """A few words for the table: the first report about a kernel, without addresses; or, when
    there is none, what the tool's own summary line says."""
    heads = [_headline(item) for kind, item in _reports(text.splitlines()) if kind == "report"]
    kernel = [h for h in heads if not h.startswith(("Program hit", "Target application"))]
    if kernel:
        return re.sub(r" at \S.*? in (\S+:\d+)", r" (\1)", kernel[0])
    if heads:
        n = len(heads)
        return f"nothing reported about the kernel ({n} report{'s' * (n != 1)} about CUDA calls)"
    summary = [line for line in text.splitlines() if "SUMMARY" in line]
    return f"nothing reported ({summary[-1][len(PREFIX):].strip()})" if summary else "no output"


# ---- Nsight Compute ----------------------------------------------------------------------------------
NCU_SECTIONS = ("SpeedOfLight", "Occupancy", "WarpStateStats")
STALL_METRICS = r"regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio"


def profile(args, kernels: str, timeout=300) -> Run:
    """``ncu`` on ``python ARGS``: the kernels whose names match the regular expression
    ``kernels``, with the sections NCU_SECTIONS and the stall reasons per issued instruction."""
    options = ["ncu", "--kernel-name", f"regex:{kernels}", "--metrics", STALL_METRICS]
    for section in NCU_SECTIONS:
        options += ["--section", section]
    return run_python(args, options, timeout, backend="pycuda")


_KERNEL = re.compile(r"^  (\w+)\s*\(\d+, \d+, \d+\)x\(\d+, \d+, \d+\)")
_METRIC = re.compile(r"^\s{4}(\S(?:.*?\S)?)\s{2,}(\S+)\s{2,}(-?[\d,]*\.?\d+)\s*$")
_RULE = re.compile(r"^\s{4}(OPT|WRN|INF|ERR)\s{2,}(.*)$")


def parse_ncu(text: str) -> dict:
    """{kernel: {"metrics": {name: (unit, value)}, "rules": [advice, ...]}} from ncu's text
    output (its details page). The rules are the paragraphs ncu writes under a section."""
    kernels, current, rule = {}, None, None
    for line in text.splitlines():
        if line.startswith("==PROF==") or line.startswith(PREFIX):
            continue
        head = _KERNEL.match(line)
        if head:
            current = kernels.setdefault(head.group(1), {"metrics": {}, "rules": []})
            rule = None
            continue
        if current is None:
            continue
        metric, advice = _METRIC.match(line), _RULE.match(line)
        if metric:
            name, unit, value = metric.groups()
            current["metrics"][name] = (unit, float(value.replace(",", "")))
            rule = None
        elif advice:
            rule = f"{advice.group(1)}: {advice.group(2).strip()}"
            current["rules"].append(rule)
        elif rule is not None and line.startswith("          ") and line.strip():
            current["rules"][-1] = rule = f"{rule} {line.strip()}"
        else:
            rule = None
    return kernels


# ---- the program ncu profiles -------------------------------------------------------------------------
def launch_gray(side: int) -> None:
    """Notebook 04's two grayscale kernels, one launch each on a side x side image (its launch
    configurations), each checked against NumPy."""
    import numpy as np

    from helpers.backend import compile_cu, drv, gpuarray

    rng = np.random.default_rng(4)
    rgb = rng.integers(0, 256, (side, side, 3), dtype=np.uint8)
    want = np.floor(rgb @ np.array([0.299, 0.587, 0.114]) + 0.5)
    mod = compile_cu("grayscale.cu", options=["-lineinfo"])
    rgb_gpu, gray_gpu = gpuarray.to_gpu(rgb), gpuarray.empty((side, side), np.uint8)
    npix = side * side
    mod.get_function("rgb_to_gray")(rgb_gpu, gray_gpu, np.int32(side), np.int32(side),
                                    block=(32, 8, 1), grid=(-(-side // 32), -(-side // 8)))
    drv.Context.synchronize()
    naive_ok = np.abs(gray_gpu.get() - want).max() <= 1
    gray_gpu.fill(0)
    threads = npix // 16 + 1
    mod.get_function("rgb_to_gray_x16")(rgb_gpu, gray_gpu, np.int32(npix), block=(256, 1, 1),
                                        grid=(-(-threads // 256), 1))
    drv.Context.synchronize()
    fast_ok = np.abs(gray_gpu.get() - want).max() <= 1
    print(f"{side} x {side} image: rgb_to_gray matches NumPy: {naive_ok}, "
          f"rgb_to_gray_x16 matches NumPy: {fast_ok}")


if __name__ == "__main__":
    if len(sys.argv) != 3 or sys.argv[1] != "gray":
        sys.exit("usage: python -m helpers.ch09.gpu_tools gray SIDE")
    launch_gray(int(sys.argv[2]))
