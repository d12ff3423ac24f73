"""The number formats of the tensor cores, in NumPy: what a float becomes in each.

NumPy has float16 (IEEE binary16, CUDA's ``__half``) but neither bfloat16 nor TF32. A bfloat16
is a float's top 16 bits (8 bits of exponent, 7 of fraction), a float rounds to it to nearest,
ties to even (``__float2bfloat16``); a TF32 is a float whose low 13 bits are 0 (10 bits of
fraction), a float rounds to it to nearest, ties away from zero (``__float_to_tf32``,
``cvt.rna.tf32.f32``), and a tensor core reading a float as TF32 drops those bits. Here each is
kept as a float32 holding the rounded value, so that NumPy can compute with it.
"""

from __future__ import annotations

import numpy as np

# name: (bits of exponent, bits of fraction)
FORMATS = {"float32": (8, 23), "tf32": (8, 10), "bfloat16": (8, 7), "float16": (5, 10)}


def bfloat16_bits(x):
    """The bfloat16 nearest each float (ties to even), as its 16 bits."""
    u = np.asarray(x, np.float32).view(np.uint32).astype(np.uint64)
    return ((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype(np.uint16)


def bfloat16_value(bits):
    """The floats that 16-bit bfloat16 patterns stand for."""
    return (np.asarray(bits, np.uint16).astype(np.uint32) << 16).view(np.float32)


def to_bfloat16(x):
    """Each float rounded to bfloat16, as a float32."""
    return bfloat16_value(bfloat16_bits(x))


def to_tf32(x):
    """__float_to_tf32: the nearest float with 10 bits of fraction, ties away from zero;
    infinities and NaN as they are."""
    u = np.asarray(x, np.float32).view(np.uint32).astype(np.uint64)
    special = (u & 0x7F800000) == 0x7F800000
    return np.where(special, u, (u + 0x1000) & 0xFFFFE000).astype(np.uint32).view(np.float32)


def tf32_read(x):
    """What a tensor core reads of a float given as TF32: its low 13 bits dropped."""
    return (np.asarray(x, np.float32).view(np.uint32) & np.uint32(0xFFFFE000)).view(np.float32)


def to_float16(x):
    """Each float rounded to float16 (infinity past 65,504), as a float32."""
    with np.errstate(over="ignore"):
        return np.asarray(x, np.float32).astype(np.float16).astype(np.float32)


ROUND = {"float32": lambda x: np.asarray(x, np.float32), "tf32": to_tf32, "bfloat16": to_bfloat16,
         "float16": to_float16}


def describe(name):
    """{largest, smallest normal, epsilon (the step after 1), decimal digits} of a format."""
    exponent, fraction = FORMATS[name]
    bias = 2 ** (exponent - 1) - 1
    largest = (2 - 2.0**-fraction) * 2.0**bias
    return {"largest": largest, "smallest normal": 2.0 ** (1 - bias), "epsilon": 2.0**-fraction,
            "digits": fraction * np.log10(2)}
