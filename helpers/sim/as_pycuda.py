"""Plain PyCUDA code on a laptop: `import pycuda...` gets the simulator when no GPU answers.

A notebook's first cell:

    import helpers.sim.as_pycuda  # PyCUDA on a GPU; the course's CPU simulator without one

A program, unchanged (what follows `-m helpers.sim` is what would follow `python`):

    python -m helpers.sim script.py [arguments]
    python -m helpers.sim -m pytest test_gpuarray.py

Where PyCUDA imports and finds a device (CUDA_COURSE_BACKEND=auto|pycuda, see helpers.backend),
nothing changes: the real PyCUDA runs. Otherwise the folder shim/ goes first on sys.path, so
`import pycuda.autoinit`, `pycuda.driver`, `pycuda.compiler`, `pycuda.gpuarray`,
`pycuda.elementwise`, ... import the simulator's modules. It never shadows a PyCUDA that works.
"""

from .shim_install import install

BACKEND = install()
