#!/usr/bin/env python3
"""Store real GPU outputs in the notebooks (maintainers, run ON THE GPU machine).

    python tools/store_outputs.py                      # every notebooks/*.ipynb
    python tools/store_outputs.py notebooks/01_hello_cuda.ipynb
    python tools/store_outputs.py --strip              # remove outputs (for committing)
    python tools/store_outputs.py --format             # only rewrite in the canonical format
    python tools/store_outputs.py --reference          # store outputs, and refresh the figures
                                                       # the simulator draws beside its own

Executes each notebook top to bottom in one fresh kernel of this Python environment, with
notebooks/ as the working directory, and writes it back in place with its outputs. The
notebook's metadata gets "cuda_course": {"backend", "device", "executed_at", "pycuda"}.
Any cell error (or any stored error output) stops the tool with a non-zero exit, and the
notebook is left untouched. Without a GPU (backend "simulator") it refuses unless
--allow-simulator is given: stored outputs are meant to come from a real GPU.

With --reference (GPU only), the figures each notebook hands to ``helpers.reference.beside``
during the run are also written into helpers/data/h200_reference.json, each with the notebook,
device and date it came from (entries no notebook measured this time are kept).

Every notebook is written as nbformat writes it (JSON, indent 1, sorted keys, trailing
newline); tests/notebooks/test_notebook_format.py checks exactly that format.
"""

from __future__ import annotations

import argparse
import datetime as _dt
import os
import re
import sys
import time
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = ROOT / "notebooks"


def canonical_text(nb) -> str:
    """The exact text a notebook file must have (see tests/notebooks/test_notebook_format.py)."""
    text = nbformat.writes(nb, version=4)
    return text if text.endswith("\n") else text + "\n"


def write(nb, path: Path) -> None:
    nbformat.validate(nb)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(canonical_text(nb), encoding="utf-8")
    os.replace(tmp, path)


def strip(nb) -> None:
    for cell in nb.cells:
        if cell.cell_type == "code":
            cell.outputs = []
            cell.execution_count = None
        for key in ("execution", "ExecuteTime"):  # run timestamps (nbclient, JupyterLab)
            cell.metadata.pop(key, None)
    nb.metadata.pop("cuda_course", None)
    # A run fills language_info with this machine's Python version; keep only the language.
    if "language_info" in nb.metadata:
        nb.metadata.language_info = {"name": nb.metadata.language_info.get("name", "python")}


def current_env_kernel_manager():
    """A kernel manager that runs this interpreter, whatever kernelspecs are installed."""
    import ipykernel.kernelspec
    from jupyter_client.kernelspec import KernelSpecManager
    from jupyter_client.manager import KernelManager

    class CurrentEnv(KernelSpecManager):
        def get_kernel_spec(self, kernel_name):
            return self.kernel_spec_class(resource_dir=ipykernel.kernelspec.RESOURCES,
                                          **ipykernel.kernelspec.get_kernel_dict())

    return KernelManager(kernel_name="python3", kernel_spec_manager=CurrentEnv())


def execute(nb, path: Path, timeout: int) -> None:
    from nbclient import NotebookClient

    strip(nb)
    km = current_env_kernel_manager()
    client = NotebookClient(nb, km=km, timeout=timeout, allow_errors=False, record_timing=False,
                            resources={"metadata": {"path": str(NOTEBOOKS)}})
    started = {}   # each cell's wall time, printed as it ends: where a slow notebook spends it
    client.on_cell_start = lambda cell, cell_index: started.update(t=time.perf_counter())
    client.on_cell_executed = lambda cell, cell_index, **_: print(
        f"  cell {cell_index} ({cell.get('id', '?')}): {time.perf_counter() - started['t']:.1f} s",
        flush=True)
    try:
        client.execute()  # raises CellExecutionError on the first failing cell
    finally:
        if km.has_kernel:  # nbclient leaves a kernel it did not create running
            km.shutdown_kernel(now=True)
    problems = unfit_outputs(nb)
    if problems:
        raise SystemExit(f"{path.name}: outputs a reader should never see (cell index, what): "
                         f"{problems}; fix the notebook")


# In a stored output: a traceback, a folder of the machine that ran it, or a Python warning (it
# names the file that raised it). compute-sanitizer's own "========= Warning:" is no Python one.
_UNFIT = {"a traceback": re.compile(r"Traceback \(most recent call last\)"),
          "a machine path": re.compile(r"(?<![\w.~])/(tmp|work|home|root|opt|usr|var|mnt|srv)/|"
                                       r"site-packages"),
          "a Python warning": re.compile(r"\b\w+Warning: ")}


def unfit_outputs(nb) -> list:
    """[(cell index, what)] of the outputs a reader should never see: error outputs, and
    tracebacks, machine paths and Python warnings in any text an output holds."""
    found = []
    for i, cell in enumerate(nb.cells):
        for out in cell.get("outputs", []):
            if out.get("output_type") == "error":
                found.append((i, f"an error ({out.get('ename')})"))
            texts = [out.get("text", "")] + [v for k, v in out.get("data", {}).items()
                                             if k.startswith("text/")]
            for what, pattern in _UNFIT.items():
                if any(pattern.search(t if isinstance(t, str) else "".join(t)) for t in texts):
                    found.append((i, what))
    return found


def run_facts() -> dict:
    """Backend and device of this machine: what the notebooks' kernels (same env) ran on."""
    sys.path.insert(0, str(ROOT))
    from helpers import backend

    info = backend.device_summary()
    device = info["device"]
    if info.get("compute_capability"):
        device += f" (compute capability {info['compute_capability']})"
    pycuda_version = None
    if backend.BACKEND == "pycuda":
        import pycuda

        pycuda_version = pycuda.VERSION_TEXT
    return {"backend": backend.BACKEND, "device": device, "pycuda": pycuda_version}


def execute_recording(nb, path: Path, timeout: int, facts: dict, found: dict) -> None:
    """Execute ``nb`` with helpers.reference recording into a file of its own; add what it
    recorded to ``found`` ({key: entry}), each entry naming the notebook, device and date."""
    import tempfile

    from helpers import reference

    with tempfile.TemporaryDirectory(prefix="cuda-course-reference-") as tmp:
        target = Path(tmp) / "figures.json"
        os.environ[reference.RECORD_TO] = str(target)   # the notebook's kernel inherits it
        try:
            execute(nb, path, timeout)
        finally:
            del os.environ[reference.RECORD_TO]
        recorded = reference.load(target)["figures"]
    when = _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")
    for key, entry in recorded.items():
        found[key] = {"source": f"notebooks/{path.name}, run by tools/store_outputs.py "
                                f"--reference on {facts['device']}, {when} (PyCUDA "
                                f"{facts['pycuda']})", "values": entry["values"]}


def write_reference(found: dict, facts: dict) -> None:
    """Merge the figures ``found`` into helpers/data/h200_reference.json (atomically)."""
    from helpers import reference

    data = reference.load(reference.PATH)
    data["device"] = facts["device"]
    data["figures"].update(found)
    reference.save(reference.PATH, data)
    print(f"wrote {reference.PATH.relative_to(ROOT)}: {len(found)} measurements refreshed "
          f"({', '.join(sorted(found)) or 'none'})")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("notebooks", nargs="*", type=Path,
                    help="notebooks to process (default: notebooks/*.ipynb)")
    mode = ap.add_mutually_exclusive_group()
    mode.add_argument("--strip", action="store_true", help="remove outputs instead of storing")
    mode.add_argument("--format", action="store_true", help="only rewrite in canonical format")
    mode.add_argument("--reference", action="store_true",
                      help="store outputs and refresh helpers/data/h200_reference.json (GPU only)")
    ap.add_argument("--allow-simulator", action="store_true",
                    help="store outputs even when the backend is the simulator (testing only)")
    ap.add_argument("--timeout", type=int, default=600, help="seconds per cell (default 600)")
    args = ap.parse_args(argv)

    paths = [p.resolve() for p in args.notebooks] or sorted(NOTEBOOKS.glob("*.ipynb"))
    if not paths:
        print(f"no notebooks in {NOTEBOOKS}", file=sys.stderr)
        return 1

    facts = None
    if not (args.strip or args.format):
        facts = run_facts()
        if facts["backend"] != "pycuda" and not args.allow_simulator:
            print(f"backend is {facts['backend']!r} on this machine: stored outputs must come "
                  "from a GPU run (use --allow-simulator only to test this tool)",
                  file=sys.stderr)
            return 1
        if args.reference and facts["backend"] != "pycuda":
            print("--reference needs a GPU: the data file holds a GPU's figures",
                  file=sys.stderr)
            return 1
        print(f"backend {facts['backend']}, device {facts['device']}")

    found: dict = {}
    for path in paths:
        nb = nbformat.read(path, as_version=4)
        if args.strip:
            strip(nb)
        elif not args.format:
            print(f"executing {path.name} ...", flush=True)
            if args.reference:
                execute_recording(nb, path, args.timeout, facts, found)
            else:
                execute(nb, path, args.timeout)
            nb.metadata["cuda_course"] = {
                **facts,
                "executed_at": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
            }
        write(nb, path)
        print(f"wrote {path.relative_to(ROOT) if path.is_relative_to(ROOT) else path}")
    if args.reference:
        write_reference(found, facts)
    return 0


if __name__ == "__main__":
    sys.exit(main())
