"""The house's size rules (tools/sizes.py) hold for the course's own code: no Python module over
400 lines and no function over 60 in bench/, helpers/, tools/ and tests/; and the tool finds
what breaks them."""

import sys

from kernel_sources import ROOT

sys.path.insert(0, str(ROOT / "tools"))
import sizes  # noqa: E402


def test_no_module_or_function_of_the_course_is_over_its_size():
    assert sizes.oversized([sizes.ROOT / d for d in sizes.DEFAULT_PATHS]) == []


def test_a_long_function_and_a_long_module_are_found(tmp_path):
    long = tmp_path / "long.py"
    long.write_text("def f():\n" + "    x = 1\n" * 60 + "\n" * 340)
    assert sizes.oversized([long]) == [f"{long}: module, 401 lines", f"{long}:f:1-61 (61 lines)"]
