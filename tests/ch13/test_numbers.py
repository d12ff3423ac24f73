"""helpers.ch13.numbers: bfloat16 and TF32 rounding against their definitions, and the formats'
figures against NumPy's float16 and float32."""

import numpy as np

from helpers.ch13 import numbers


def test_bfloat16_rounds_to_nearest_ties_to_even():
    step = 2.0**-7
    x = np.array([1 + step / 2, 1 + 3 * step / 2, 1 + step / 2 + 2.0**-20, -(1 + step / 4), np.inf],
                 np.float32)
    assert np.array_equal(numbers.to_bfloat16(x), [1.0, 1 + 2 * step, 1 + step, -1.0, np.inf])
    assert numbers.bfloat16_bits(np.float32(1.0)) == 0x3F80


def test_tf32_rounds_ties_away_from_zero_and_a_tensor_core_drops_the_low_bits():
    step = 2.0**-10
    x = np.array([1 + step / 2, -(1 + step / 2), 1 + step / 2 - 2.0**-23, np.nan], np.float32)
    assert np.array_equal(numbers.to_tf32(x)[:3], [1 + step, -(1 + step), 1.0])
    assert np.isnan(numbers.to_tf32(x)[3])
    assert numbers.tf32_read(np.float32(1 + step / 2 + step / 4)) == 1.0


def test_the_formats_figures_are_numpys_where_numpy_has_the_format():
    for name, np_type in (("float16", np.float16), ("float32", np.float32)):
        info, mine = np.finfo(np_type), numbers.describe(name)
        assert mine["largest"] == float(info.max) and mine["epsilon"] == float(info.eps)
        assert mine["smallest normal"] == float(info.smallest_normal)
    assert numbers.describe("bfloat16")["largest"] == float(numbers.bfloat16_value(0x7F7F))
