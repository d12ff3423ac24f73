"""What of the C++ standard library device code may use (compile/standard_library.py), read from
tokens as the learner's code has them after the preprocessor: the name it refuses, as the learner
wrote it, or None; and what to write instead. tests/sim/compile/test_device_rules.py compiles the
same calls with nvcc."""

import pytest

from helpers.sim.compile.kernel_text import read_tokens
from helpers.sim.compile.standard_library import library_advice, refused


def _first_refused(code):
    tokens = read_tokens(code, 0, len(code))
    return next((name for i in range(len(tokens)) if (name := refused(tokens, i))), None)


@pytest.mark.parametrize("code, name", [
    ("std::vector<float> v(3);", "std::vector"),
    ("std::vector<std::vector<int>> v;", "std::vector"),
    ("auto p = std::pair<int, float>{1, 2.f};", "std::pair"),
    ("std::swap(a, b);", "std::swap"),
    ("x = std::numeric_limits<float>::max();", "std::numeric_limits::max"),
    ("x = std::__sim_sinf(y);", "std::sinf"),           # std::sinf, after the prelude's macro
    ("x = std::__sim_math_sqrt(y);", None),              # std::sqrt
    ("x = std::abs(y) + std::fmax(y, 1.f);", None),
    ("std::size_t n = 3; x = std::int64_t(n);", None),
    ("x = std::is_same<float, T>::value + std::is_same_v<int, T>;", None),
    ("float y = std::move(x);", None),
    ("x = std::min(a, b);", None),                       # the compiler's to refuse, with its advice
    ("x = ::std::vector<int>(3)[0];", None),             # ::std is not read: nothing is refused
])
def test_the_refused_name_is_the_one_the_learner_wrote(code, name):
    assert _first_refused(code) == name


@pytest.mark.parametrize("name, words", [
    ("std::vector", "a plain array of a constant size"),
    ("std::numeric_limits::infinity", "FLT_MAX (and -FLT_MAX), INFINITY"),
    ("std::swap", "float t = a; a = b; b = t;"),
    ("std::accumulate", "write it as a loop"),
])
def test_the_advice_is_what_device_code_has_in_its_place(name, words):
    assert words in library_advice(name)
