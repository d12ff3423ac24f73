"""Benchmarks that print figures (not tests): run the scripts, read their tables.

Scripts (each runs as ``python bench/<script>.py``; ``--help`` lists its options):

- ``course_kernels.py`` (``make bench``): every course kernel against the device's ceilings and
  against its peers (NumPy, CuPy, PyTorch on a GPU; serial C++, NumPy, Numba's CUDA simulator on
  the simulator);
- ``simulator.py``: the CPU simulator against its speed targets (Mandelbrot, a tree reduction);
- ``suite_times.py``: the test suite's and each notebook's wall time, against their targets;
- ``microscope.py``: the simulator's memory trace against Nsight Compute's counters on an H200;
- ``float_identity.py``: the simulator's float results, bit for bit, against an H200's.

The pieces they share:

- ``reference``: each computation once, in NumPy and as serial C++ (``serial/*.cpp``);
- ``peers``: the other libraries that run the same operations (CuPy, PyTorch, Numba's simulator);
- ``cases``: the course kernels with their notebooks' launch configurations (notebooks 01 to
  06), and the ceilings; ``sum_histogram`` notebook 07's sums and histograms, ``matmul_cases``
  notebook 08's matrix multiplies, ``tensor_core_cases`` notebook 13's tensor-core ones,
  ``attention_cases`` notebook 14's softmaxes and attentions;
- ``measure``: timing, the machine's load, versions;
- ``results``: the table, CSV and chart, and ``RESULTS.md`` (the measured figures, per machine).

``read_source`` below is the one way the bench reads a ``.cu`` file.
"""

from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BENCH = ROOT / "bench"
CUDA_SRC = ROOT / "cuda_src"


def read_source(path):
    """The text of a .cu file, with a ``#line`` directive naming it so that compiler messages
    point at it: files in cuda_src/ named as ``helpers.backend.compile_cu`` names them, others by
    their path in the repository. The text, and so the compile cache's key, is the same from any
    working directory."""
    path = Path(path).resolve()
    base = CUDA_SRC if path.is_relative_to(CUDA_SRC) else ROOT
    return f'#line 1 "{path.relative_to(base).as_posix()}"\n' + path.read_text()
