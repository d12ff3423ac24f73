"""Reference solutions of the exercises that are written in Python rather than CUDA C.

(Kernel exercises keep their solutions in ``cuda_src/solutions/``.) Kept apart from the
exercises so that an instructor can hold them back.
"""
