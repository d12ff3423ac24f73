#!/usr/bin/env python3
"""Every notebook on the simulator at each compute capability learners' GPUs have: does it run,
and which cells skip because they need a newer GPU.

    python tools/cc_matrix.py                                 # 7.5 8.0 8.6 8.9 9.0, all notebooks
    python tools/cc_matrix.py --cc 7.5,8.6 notebooks/01_hello_cuda.ipynb
    python tools/cc_matrix.py --json matrix.json              # the results as JSON too

A learner's GPU may be a T4 (7.5, Colab's free one), an A100 (8.0), an RTX 30 (8.6), an RTX 40 or
L4 (8.9) or an H100/H200 (9.0). They differ in what a kernel may use (bfloat16 arithmetic and
__reduce_add_sync from 8.0, clusters from 9.0) and in their limits (a block's shared memory: 64 KiB
on 7.5, 163 KiB on 8.0, 99 KiB on 8.6 and 8.9, 227 KiB on 9.0; threads an SM). The simulator
answers as a GPU of CUDA_SIM_COMPUTE_CAPABILITY, so each notebook runs here once a capability, top
to bottom in a fresh Jupyter kernel of this Python, on the simulator, from notebooks/; it stops at
the first error, as Run All does. A cell that needs a newer GPU says so and skips
(helpers/capability.py); the table lists those, from the fields of what they
displayed. The test suite runs every notebook at 7.5 (conftest.py); this runs the others.

Prints one line a notebook and capability (passed; or the cell that failed and its error, or the
NBVAL_CHECK_OUTPUT cells that printed another text than the stored one, as nbval would find it;
the cells skipped; wall and CPU seconds), and exits 1 when any failed.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

import nbformat

sys.path.insert(0, str(Path(__file__).resolve().parent))
import store_outputs  # noqa: E402 - after the path is set

ROOT = store_outputs.ROOT
sys.path.insert(0, str(ROOT))
from helpers.capability import NEEDS_NEWER_GPU  # noqa: E402 - the facts a skipping cell shows

CAPABILITIES = ("7.5", "8.0", "8.6", "8.9", "9.0")


@dataclasses.dataclass
class Run:
    notebook: str
    cc: str
    failed_cell: str | None      # the id of the cell that raised, None when it ran to the end
    error: str | None            # "ename: evalue" of that cell's error
    skipped: list                # [{"cell", "needs", "has", "what"}] of the cells that skipped
    differs: list                # ids of the NBVAL_CHECK_OUTPUT cells that printed another text
    wall_s: float
    cpu_s: float

    @property
    def passed(self) -> bool:
        return self.failed_cell is None and not self.differs

    def line(self) -> str:
        verdict = "passed" if self.passed else \
            f"FAILED at cell {self.failed_cell}: {self.error}" if self.failed_cell else \
            f"FAILED: checked cells {', '.join(self.differs)} print another text than stored"
        skips = "; ".join(f"cell {s['cell']} needs {s['needs']} ({s['what']})" for s in self.skipped)
        return (f"{self.cc}  {self.notebook:38s} {verdict}" + (f"; skipped: {skips}" if skips else "")
                + f"  [{self.wall_s:.1f} s, {self.cpu_s:.1f} CPU-s]")


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def skipped_cells(nb) -> list:
    """The cells that displayed helpers.capability's NEEDS_NEWER_GPU record, with its fields."""
    found = []
    for cell in nb.cells:
        for out in cell.get("outputs", []):
            record = out.get("data", {}).get(NEEDS_NEWER_GPU)
            if record:
                found.append({"cell": cell.get("id"), **record})
    return found


def checked_texts(nb) -> dict:
    """{cell id: what it printed} of the cells whose output nbval compares (NBVAL_CHECK_OUTPUT)."""
    return {cell.get("id"): "".join(o.get("text", "") for o in cell.outputs
                                    if o.get("output_type") == "stream")
            for cell in nb.cells if cell.cell_type == "code"
            and cell.source.lstrip().startswith("# NBVAL_CHECK_OUTPUT")}


def run(path: Path, cc: str, timeout: int = 600) -> Run:
    """Notebook ``path`` run top to bottom on the simulator at compute capability ``cc``."""
    from nbclient import NotebookClient
    from nbclient.exceptions import CellExecutionError

    nb = nbformat.read(path, as_version=4)
    stored = checked_texts(nb)
    store_outputs.strip(nb)
    saved = {k: os.environ.get(k) for k in ("CUDA_SIM_COMPUTE_CAPABILITY", "CUDA_COURSE_BACKEND")}
    os.environ.update(CUDA_SIM_COMPUTE_CAPABILITY=cc, CUDA_COURSE_BACKEND="simulator")
    km = store_outputs.current_env_kernel_manager()
    client = NotebookClient(nb, km=km, timeout=timeout, allow_errors=False,
                            resources={"metadata": {"path": str(path.parent)}})
    failed, error = None, None
    wall, cpu = time.perf_counter(), _children_cpu()
    try:
        # The kernel's own terminal output (kernel printf, which the cell shows too; its
        # warnings) would come between this script's lines.
        client.execute(stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    except CellExecutionError as err:
        cell = next(c for c in nb.cells for o in c.get("outputs", [])
                    if o.get("output_type") == "error")
        failed, error = cell.get("id"), f"{err.ename}: {err.evalue}"
    finally:
        if km.has_kernel:
            km.shutdown_kernel(now=True)
        for k, v in saved.items():
            os.environ.pop(k, None) if v is None else os.environ.__setitem__(k, v)
    printed = checked_texts(nb)
    differs = [] if failed else [i for i, text in stored.items() if printed.get(i) != text]
    return Run(path.name, cc, failed, error, skipped_cells(nb), differs,
               time.perf_counter() - wall, _children_cpu() - cpu)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("notebooks", nargs="*", type=Path)
    parser.add_argument("--cc", default=",".join(CAPABILITIES),
                        help="compute capabilities, separated by commas (default: %(default)s)")
    parser.add_argument("--json", type=Path, help="also write the results here, as JSON")
    args = parser.parse_args(argv)
    paths = [p.resolve() for p in args.notebooks] or sorted(store_outputs.NOTEBOOKS.glob("*.ipynb"))
    runs = []
    for cc in args.cc.split(","):
        for path in paths:
            runs.append(run(path, cc))
            print(runs[-1].line(), flush=True)
    failed = [r for r in runs if not r.passed]
    print(f"{len(runs) - len(failed)} of {len(runs)} runs passed; "
          f"{sum(r.wall_s for r in runs):.0f} s, {sum(r.cpu_s for r in runs):.0f} CPU-s")
    if args.json:
        tmp = args.json.with_name(args.json.name + ".tmp")
        tmp.write_text(json.dumps([dataclasses.asdict(r) for r in runs], indent=1) + "\n")
        os.replace(tmp, args.json)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
