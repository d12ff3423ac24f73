"""Figures measured on an NVIDIA H200, kept in the repository, for the runs that cannot show them.

On the CPU simulator some of what the notebooks teach cannot happen: page-locked memory is
ordinary memory, nothing overlaps, a byte load costs a CPU what a 16-byte one does. So that a
learner without a GPU still sees the effect, a notebook draws its own figures ("this machine")
beside the ones an H200 measured running the same cells ("H200 (stored)"). Those live in
``helpers/data/h200_reference.json``, one entry a measurement, each with where it came from.

In a notebook::

    h200 = reference.beside("05.copy_sweep", {"sizes": sizes, ...})   # this run's figures
    if h200:                                                          # None on a GPU
        ax.plot(h200["sizes"], ...)

``beside(key, figures)`` returns the stored H200 figures on the simulator and None on a GPU (whose
own figures are the real thing). When ``CUDA_COURSE_REFERENCE_OUT`` names a file, it also records
``figures`` there: ``tools/store_outputs.py --reference`` sets it on the GPU machine, so that one
run of the notebooks both stores their outputs and refreshes the data file.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from helpers import settings

PATH = Path(__file__).resolve().parent / "data" / "h200_reference.json"
RECORD_TO = settings.REFERENCE_OUT
"""The environment variable that, when set, names the file ``beside`` records figures in."""


def stored(key: str) -> dict | None:
    """The stored H200 figures of measurement ``key`` (a dict), or None when there are none yet
    (a measurement added since the data file was last refreshed)."""
    entry = load(PATH)["figures"].get(key)
    return None if entry is None else entry["values"]


def source(key: str) -> str:
    """Where the stored figures of ``key`` came from (a run, a date, a file)."""
    entry = load(PATH)["figures"].get(key)
    return entry["source"] if entry else "no stored figures"


def device() -> str:
    """The device the stored figures were measured on, by name ("NVIDIA H200")."""
    return (load(PATH)["device"] or "a GPU").split(" (")[0]


def beside(key: str, figures: dict) -> dict | None:
    """Record ``figures`` when asked to (see the module's docstring), and return the stored H200
    figures of ``key`` to draw beside them on the simulator; None on a GPU."""
    from helpers.backend import BACKEND

    target = settings.get(RECORD_TO)
    if target:
        record(Path(target), key, figures)
    return stored(key) if BACKEND == "simulator" else None


def load(path: Path) -> dict:
    """The data file at ``path``: {"device": ..., "figures": {key: {"source", "values"}}}."""
    try:
        return json.loads(Path(path).read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {"device": None, "figures": {}}


def record(path: Path, key: str, figures: dict, source_text: str = "") -> None:
    """Put ``figures`` under ``key`` in the data file at ``path``, written atomically."""
    data = load(path)
    data["figures"][key] = {"source": source_text, "values": _plain(figures)}
    save(path, data)


def save(path: Path, data: dict) -> None:
    """Write ``data`` to ``path`` as JSON, through a temporary file and ``os.replace``."""
    path = Path(path)
    part = path.with_name(f".{path.name}.{os.getpid()}.part")
    part.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    os.replace(part, path)


def _plain(value):
    """``value`` with NumPy scalars and arrays turned into Python numbers and lists."""
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if hasattr(value, "tolist"):          # a NumPy scalar or array
        return _plain(value.tolist())
    return value
