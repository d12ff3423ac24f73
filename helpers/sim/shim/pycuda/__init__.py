"""`pycuda` on the course's CPU simulator.

This folder is put first on sys.path by `python -m helpers.sim` or `import helpers.sim.as_pycuda`
when no working PyCUDA and GPU are found, so that unmodified PyCUDA code imports the simulator's
modules under PyCUDA's names: `pycuda.driver` is helpers.sim.driver, `pycuda.gpuarray` is
helpers.sim.gpuarray, and so on (the same module objects, so their classes and errors are one).
"""

VERSION = (2026, 1)
VERSION_STATUS = ""
VERSION_TEXT = ".".join(str(x) for x in VERSION) + VERSION_STATUS
SIMULATOR = True  # real PyCUDA has no such name: `getattr(pycuda, "SIMULATOR", False)` tells
