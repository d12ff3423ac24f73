"""Which CUDA the notebooks run on: PyCUDA on an NVIDIA GPU, or the course's CPU simulator.

    from helpers.backend import drv, gpuarray, SourceModule, compile_cu, describe_backend, BACKEND

`drv`, `gpuarray` and `SourceModule` are PyCUDA's own on a GPU and the simulator's stand-ins
without one, so notebook code reads as plain PyCUDA either way. `CUDA_COURSE_BACKEND` chooses:
`pycuda`, `simulator`, or `auto` (the default: PyCUDA when it imports and finds a device).
`CUDA_SRC` is the course's cuda_src/ (helpers/course.py says where it is looked for), found when
it is asked for: the backend itself needs no course.
"""

import sys

from helpers import course, settings

__all__ = ["BACKEND", "REASON", "SourceModule", "compile_cu", "describe_backend", "device_summary",
           "drv", "gpuarray", "read_cu", "CUDA_SRC"]  # noqa: F822 (CUDA_SRC: __getattr__ below)

CHOICES = ("auto", "pycuda", "simulator")


def choose_backend(requested=None):
    """(backend, reason): the backend to use and why, without initialising anything else."""
    requested = (requested or settings.get(settings.BACKEND, "auto")).strip().lower()
    if requested not in CHOICES:
        raise ValueError(f"CUDA_COURSE_BACKEND={requested!r}: choose one of {', '.join(CHOICES)}")
    if requested == "simulator":
        return "simulator", "CUDA_COURSE_BACKEND=simulator"
    try:
        import pycuda.driver as cuda
        cuda.init()
        count = cuda.Device.count()
    except ImportError as e:
        problem = f"PyCUDA is not installed ({e})"
    except Exception as e:  # PyCUDA's own errors: no driver, no device, wrong CUDA version
        problem = f"PyCUDA found no usable GPU ({type(e).__name__}: {e})"
    else:
        if count > 0:
            return "pycuda", f"PyCUDA found {count} CUDA device(s)"
        problem = "PyCUDA found no CUDA device"
    if requested == "pycuda":
        raise RuntimeError(f"CUDA_COURSE_BACKEND=pycuda, but {problem}. Run "
                           "`python -m helpers.doctor` to see what is missing.")
    return "simulator", f"{problem}; using the CPU simulator"


BACKEND, REASON = choose_backend()



def wait_for_printf_at_each_cells_end(ipython):
    """On a GPU a kernel's printf lines reach fd 1 when the host synchronises, and in Jupyter a
    thread of ipykernel forwards fd 1 into the running cell: on a busy machine after the cell has
    ended, so that the lines show in the next cell (the simulator waits for that thread after
    each launch: helpers.sim.run.printed). Each cell of ``ipython`` waits for it at its end."""
    from helpers.sim.run import printed

    ipython.events.register("post_run_cell", lambda result: printed.wait_until_forwarded())


if BACKEND == "pycuda":
    import pycuda.autoprimaryctx  # noqa: F401  (device 0's primary context, shared with PyTorch or CuPy)
    import pycuda.driver as drv
    import pycuda.gpuarray as gpuarray
    from pycuda.compiler import SourceModule

    _ipython = sys.modules["IPython"].get_ipython() if "IPython" in sys.modules else None
    if _ipython is not None:   # a notebook's kernel, or IPython's shell
        wait_for_printf_at_each_cells_end(_ipython)
else:
    from helpers.sim import driver as drv
    from helpers.sim import gpuarray
    from helpers.sim.compiler import SourceModule


def device_summary():
    """A dict describing the device the notebook runs on."""
    dev = drv.Context.get_device()
    attr = drv.device_attribute
    info = {"backend": BACKEND, "device": dev.name(),
            "multiprocessors": dev.get_attribute(attr.MULTIPROCESSOR_COUNT)}
    if BACKEND == "pycuda":
        info["compute_capability"] = "%d.%d" % dev.compute_capability()
        info["memory_gib"] = round(dev.total_memory() / 2**30, 1)
    else:
        info["workers"] = info.pop("multiprocessors")
    return info


def describe_backend():
    """Print which backend and device this notebook runs on."""
    info = device_summary()
    if BACKEND == "pycuda":
        print(f"Backend: PyCUDA on {info['device']} (compute capability "
              f"{info['compute_capability']}, {info['multiprocessors']} multiprocessors, "
              f"{info['memory_gib']} GiB)")
    else:
        print(f"Backend: CPU simulator on {info['device'].removeprefix('CPU simulator (')[:-1]}, "
              f"{info['workers']} worker thread(s). Results match a GPU's; timings are the CPU's.")
        print(f"(Why the simulator: {REASON}.)")
    return info


def __getattr__(name):
    """``CUDA_SRC``, looked for when a notebook imports it (PEP 562's module attribute)."""
    if name == "CUDA_SRC":
        return course.cuda_src()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def list_cu_files(cuda_src):
    return sorted(str(p.relative_to(cuda_src)) for p in cuda_src.rglob("*.cu"))


def read_cu(name):
    """The text of cuda_src/<name>, with a #line directive so errors name the file."""
    cuda_src = course.cuda_src()
    path = cuda_src / name
    if not path.is_file():
        raise FileNotFoundError(f"no file {name!r} in {cuda_src}. The .cu files there are: "
                                + ", ".join(list_cu_files(cuda_src)))
    return f'#line 1 "{name}"\n' + path.read_text()


def compile_cu(name, **options):
    """Compile cuda_src/<name> with this backend's SourceModule (options as SourceModule's).
    What the compiler says about the file is printed as text (helpers.plain_warnings)."""
    from helpers.plain_warnings import printed_plainly

    with printed_plainly():
        return SourceModule(read_cu(name), **options)
