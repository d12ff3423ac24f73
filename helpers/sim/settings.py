"""The simulator's settings: read from the environment once, changeable from Python.

    from helpers.sim.settings import settings
    settings.workers              # CUDA_SIM_WORKERS: worker threads that run blocks
    with settings.changed(workers=1, racecheck=True):
        ...                       # these values inside the block, the old ones after it

Every module of the simulator reads its settings here, never from ``os.environ``, so that a
benchmark or a test can change one for a while without touching the process's environment. (The
one variable read elsewhere is PyCUDA's own: ``tools.make_default_context`` reads CUDA_DEVICE when
it is called, as pycuda.tools does.)

| attribute   | environment variable  | meaning                                               |
|-------------|-----------------------|-------------------------------------------------------|
| workers     | CUDA_SIM_WORKERS      | CPU threads that run blocks (default: the CPUs this    |
|             |                       | process may use)                                      |
| racecheck   | CUDA_SIM_RACECHECK    | check every launch for races (default off)            |
| initcheck   | CUDA_SIM_INITCHECK    | check every launch for reads of device memory that    |
|             |                       | nothing wrote since it was allocated (default off;    |
|             |                       | it sees the allocations made while it is on), and of  |
|             |                       | shared memory no thread of the block wrote            |
| cache_dir   | CUDA_COURSE_CACHE_DIR | where compiled modules are kept (default: the user's  |
|             |                       | cache folder, ~/.cache/cuda-course)                   |
| time_limit  | CUDA_SIM_TIME_LIMIT   | seconds a launch may run before it is stopped with    |
|             |                       | LaunchError (default: none; the exercise checkers set |
|             |                       | one, so that an endless loop is a verdict)            |
| cxx         | CXX                   | the host C++ compiler (default: g++, else c++, else   |
|             |                       | clang++)                                              |
| home        | HOME                  | the user's home, where the cache folder goes           |
| xdg_cache_home | XDG_CACHE_HOME     | the user's cache folder, when not ~/.cache            |
| device_memory | CUDA_SIM_MEMORY     | bytes of simulated device memory, e.g. 4G or 512M      |
|             |                       | (default: a quarter of the memory the process may use:|
|             |                       | RAM, or its cgroup's or ulimit -v's limit if lower)   |
| compute_capability | CUDA_SIM_COMPUTE_CAPABILITY | the simulated GPU's compute capability, |
|             |                       | e.g. 8.6 (default 9.0, an H200's)                     |
| devices     | CUDA_SIM_DEVICES      | how many devices the simulator presents, each with    |
|             |                       | its own memory and contexts (default 1; devices.py)   |

Every allocation is charged against `device_memory`; running out raises `drv.MemoryError`,
as on a GPU, long before the machine itself runs out (which would kill a Jupyter kernel).
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import re
import resource
from pathlib import Path


def _cpus() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:
        return os.cpu_count() or 1


def _flag(text: str | None) -> bool:
    return (text or "").strip().lower() not in ("", "0", "false", "no", "off")


def _physical_memory() -> int:
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        return 8 << 30


def _cgroup_limit(proc_cgroup="/proc/self/cgroup", root="/sys/fs/cgroup"):
    """The memory limit of the cgroup this process runs in (a container's, a JupyterHub
    spawner's), v2 or v1; None when there is none."""
    try:
        lines = Path(proc_cgroup).read_text().splitlines()
    except OSError:
        return None
    limits = []
    for line in lines:
        _, controllers, path = line.split(":", 2)
        relative = path.lstrip("/")
        if controllers == "":  # cgroup v2: the limit of this group and of every group above it
            folder = Path(root, relative)
            while True:
                limits.append(_read_limit(folder / "memory.max"))
                if folder == Path(root):
                    break
                folder = folder.parent
        elif "memory" in controllers.split(","):
            limits.append(_read_limit(Path(root, "memory", relative, "memory.limit_in_bytes")))
    limits = [n for n in limits if n]
    return min(limits) if limits else None


def _read_limit(path):
    try:
        text = Path(path).read_text().strip()
    except OSError:
        return None
    # "max" (v2) or a huge number (v1's "no limit", 2^63 rounded to pages) mean none
    return int(text) if text.isdigit() and int(text) < 1 << 60 else None


def _address_space_limit():
    soft, _ = resource.getrlimit(resource.RLIMIT_AS)
    return None if soft == resource.RLIM_INFINITY else soft


def usable_memory() -> int:
    """The memory this process may use: the machine's RAM, or less where the process's cgroup
    (memory.max, memory.limit_in_bytes) or its address-space limit (ulimit -v) allow less."""
    limits = [_physical_memory(), _cgroup_limit(), _address_space_limit()]
    return min(n for n in limits if n)


def default_device_memory() -> int:
    """A quarter of the memory this process may use (usable_memory), in whole MiB: room for the
    host's copies of the arrays and for everything else the machine runs. A budget the machine
    can give keeps a large array a MemoryError, not the kernel's death by the OOM killer."""
    return usable_memory() // 4 >> 20 << 20


_UNITS = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}


def parse_bytes(name: str, text) -> int:
    """A size such as 4G, 512M, 4GiB, 1.5G or 1048576 (bytes), as a whole number of bytes."""
    m = re.fullmatch(r"\s*(\d+(?:\.\d*)?)\s*([KMGT]?)(?:i?B)?\s*", str(text), flags=re.I)
    if not m or float(m.group(1)) <= 0:
        raise ValueError(f"{name}={text!r}: give a size such as 4G, 512M or a number of bytes")
    return int(float(m.group(1)) * _UNITS[m.group(2).upper()])


def parse_compute_capability(name: str, text) -> tuple[int, int]:
    """'9.0' or (9, 0) -> (9, 0)."""
    if isinstance(text, tuple):
        text = "%d.%d" % text
    m = re.fullmatch(r"\s*(\d+)\.(\d)\s*", str(text))
    if not m:
        raise ValueError(f"{name}={text!r}: give major.minor, e.g. {name}=8.6")
    return int(m.group(1)), int(m.group(2))


def _positive_int(name: str, text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise ValueError(f"{name}={text!r}: give a whole number, e.g. {name}=2") from None
    if value < 1:
        raise ValueError(f"{name}={text!r}: give a number of at least 1")
    return value


@dataclasses.dataclass
class Settings:
    workers: int
    racecheck: bool = False
    initcheck: bool = False
    cache_dir: str | None = None
    time_limit: float | None = None
    cxx: str | None = None
    home: str | None = None
    xdg_cache_home: str | None = None
    device_memory: int = dataclasses.field(default_factory=default_device_memory)
    compute_capability: tuple[int, int] = (9, 0)
    devices: int = 1

    @classmethod
    def from_environ(cls, environ=None) -> Settings:
        env = os.environ if environ is None else environ
        workers = env.get("CUDA_SIM_WORKERS", "").strip()
        memory = env.get("CUDA_SIM_MEMORY", "").strip()
        cc = env.get("CUDA_SIM_COMPUTE_CAPABILITY", "").strip()
        devices = env.get("CUDA_SIM_DEVICES", "").strip()
        return cls(workers=_positive_int("CUDA_SIM_WORKERS", workers) if workers else _cpus(),
                   devices=_positive_int("CUDA_SIM_DEVICES", devices) if devices else 1,
                   racecheck=_flag(env.get("CUDA_SIM_RACECHECK")),
                   initcheck=_flag(env.get("CUDA_SIM_INITCHECK")),
                   cache_dir=env.get("CUDA_COURSE_CACHE_DIR") or None,
                   time_limit=float(env["CUDA_SIM_TIME_LIMIT"]) if env.get("CUDA_SIM_TIME_LIMIT")
                   else None,
                   cxx=env.get("CXX") or None, home=env.get("HOME"),
                   xdg_cache_home=env.get("XDG_CACHE_HOME") or None,
                   device_memory=(parse_bytes("CUDA_SIM_MEMORY", memory) if memory
                                  else default_device_memory()),
                   compute_capability=(parse_compute_capability("CUDA_SIM_COMPUTE_CAPABILITY", cc)
                                       if cc else (9, 0)))

    def update(self, **values) -> None:
        """Change settings by name; an unknown name is an error, not a silent no-op."""
        names = {f.name for f in dataclasses.fields(self)}
        for name, value in values.items():
            if name not in names:
                raise AttributeError(f"the simulator has no setting {name!r}; its settings are "
                                     + ", ".join(sorted(names)))
            if name in ("workers", "devices"):
                value = _positive_int(name, str(value))
            elif name == "device_memory":
                value = parse_bytes("device_memory", value)
            elif name == "compute_capability":
                value = parse_compute_capability("compute_capability", value)
            setattr(self, name, value)

    @contextlib.contextmanager
    def changed(self, **values):
        """The given settings inside the ``with`` block, the previous ones after it."""
        saved = dataclasses.asdict(self)
        self.update(**values)
        try:
            yield self
        finally:
            self.update(**saved)


settings = Settings.from_environ()
