"""Chapter 13 (tensor cores and mixed precision): the 16-bit and TF32 number formats in NumPy.
"""
