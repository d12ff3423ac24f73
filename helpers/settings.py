"""The course's own settings, read from the environment here and nowhere else (the simulator's,
CUDA_SIM_*, are helpers/sim/settings.py's). Each is read when it is asked for, so that a test or a
program started from a notebook can set it.

| name          | environment variable       | meaning                                          |
|---------------|----------------------------|--------------------------------------------------|
| BACKEND       | CUDA_COURSE_BACKEND        | auto (default), pycuda or simulator (backend.py) |
| CLASS_SIZE    | CUDA_COURSE_CLASS_SIZE     | learners sharing this machine (workload.py)      |
| COURSE_ROOT   | CUDA_COURSE_ROOT           | the course's folder, where the working folder is |
|               |                            | not in one (course.py)                           |
| OPENCL        | CUDA_COURSE_OPENCL         | auto (default), nvidia or oclgrind (opencl.py)   |
| REFERENCE_OUT | CUDA_COURSE_REFERENCE_OUT  | a file to record the notebooks' GPU figures in   |
|               |                            | (reference.py)                                   |
"""

import os

BACKEND = "CUDA_COURSE_BACKEND"
CLASS_SIZE = "CUDA_COURSE_CLASS_SIZE"
COURSE_ROOT = "CUDA_COURSE_ROOT"
OPENCL = "CUDA_COURSE_OPENCL"
REFERENCE_OUT = "CUDA_COURSE_REFERENCE_OUT"


def get(name: str, default: str = "") -> str:
    """The setting ``name`` (one of the names above) as the environment has it now, stripped;
    ``default`` when it is unset or empty."""
    return os.environ.get(name, "").strip() or default
