"""The simulator's settings: read from the environment once, changeable from Python.

    from helpers.sim.settings import settings
    settings.workers              # CUDA_SIM_WORKERS: worker threads that run blocks
    with settings.changed(workers=1, racecheck=True):
        ...                       # these values inside the block, the old ones after it

Every module of the simulator reads its settings here, never from ``os.environ``, so that a
benchmark or a test can change one for a while without touching the process's environment.

| attribute   | environment variable  | meaning                                               |
|-------------|-----------------------|-------------------------------------------------------|
| workers     | CUDA_SIM_WORKERS      | CPU threads that run blocks (default: the CPUs this    |
|             |                       | process may use)                                      |
| racecheck   | CUDA_SIM_RACECHECK    | check every launch for races (default off)            |
| cache_dir   | CUDA_COURSE_CACHE_DIR | where compiled modules are kept (default: the user's  |
|             |                       | cache folder, ~/.cache/cuda-course)                   |
| time_limit  | CUDA_SIM_TIME_LIMIT   | seconds a launch may run before it is stopped with    |
|             |                       | LaunchError (default: none; the exercise checkers set |
|             |                       | one, so that an endless loop is a verdict)            |
| cxx         | CXX                   | the host C++ compiler (default: g++, else c++, else   |
|             |                       | clang++)                                              |
| home        | HOME                  | the user's home, where the cache folder goes           |
| xdg_cache_home | XDG_CACHE_HOME     | the user's cache folder, when not ~/.cache            |
| devices     | CUDA_SIM_DEVICES      | how many devices the simulator presents, each with    |
|             |                       | its own memory and contexts (default 1; devices.py)   |
"""

from __future__ import annotations

import contextlib
import dataclasses
import os


def _cpus() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:
        return os.cpu_count() or 1


def _flag(text: str | None) -> bool:
    return (text or "").strip().lower() not in ("", "0", "false", "no", "off")


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
    cache_dir: str | None = None
    time_limit: float | None = None
    cxx: str | None = None
    home: str | None = None
    xdg_cache_home: str | None = None
    devices: int = 1

    @classmethod
    def from_environ(cls, environ=None) -> Settings:
        env = os.environ if environ is None else environ
        workers = env.get("CUDA_SIM_WORKERS", "").strip()
        devices = env.get("CUDA_SIM_DEVICES", "").strip()
        return cls(workers=_positive_int("CUDA_SIM_WORKERS", workers) if workers else _cpus(),
                   devices=_positive_int("CUDA_SIM_DEVICES", devices) if devices else 1,
                   racecheck=_flag(env.get("CUDA_SIM_RACECHECK")),
                   cache_dir=env.get("CUDA_COURSE_CACHE_DIR") or None,
                   time_limit=float(env["CUDA_SIM_TIME_LIMIT"]) if env.get("CUDA_SIM_TIME_LIMIT")
                   else None,
                   cxx=env.get("CXX") or None, home=env.get("HOME"),
                   xdg_cache_home=env.get("XDG_CACHE_HOME") or None)

    def update(self, **values) -> None:
        """Change settings by name; an unknown name is an error, not a silent no-op."""
        names = {f.name for f in dataclasses.fields(self)}
        for name, value in values.items():
            if name not in names:
                raise AttributeError(f"the simulator has no setting {name!r}; its settings are "
                                     + ", ".join(sorted(names)))
            if name in ("workers", "devices"):
                value = _positive_int(name, str(value))
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
