"""Chapter 09 (debugging and profiling): the bug gallery, sticky errors, and the GPU tools
(compute-sanitizer, Nsight Compute) run from a notebook cell.
"""
