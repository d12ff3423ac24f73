"""Chapter 12 (the same kernels in OpenCL): PyOpenCL's platform (NVIDIA's or Oclgrind's)
and Oclgrind's checks.
"""
