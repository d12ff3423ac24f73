"""helpers/exercises/python_screen.py: what a learner's Python may use, read before any of it
runs. The escapes a red team used or could (a module imported, the checker's insides reached by
an underscore, a generator's frame, a format's field, a module inside numpy, a module's function
replaced) are refused, each named with its line; the stubs and the reference solutions pass."""

import pytest

from kernel_sources import ROOT

from helpers.exercises.learner_code import code_in
from helpers.exercises.python_screen import refusal

HEAD = "def my_split_sum(x, contexts, sums):\n"

# name: (the learner's code, the words the refusal starts with)
ESCAPES = {
    # red-team audit AVB-01: forged the grader's verdict file, then left
    "forged_verdict": ("import json, os, sys\n" + HEAD + "    return 0.0\n",
                       "line 1 of your cell imports json"),
    # red-team audit AVB-02: replaced the checker's function in sys.modules
    "checker_rewritten": ("import sys\nsys.modules['helpers.exercises.split_sum'].x = 0\n",
                          "line 2 of your cell sets or deletes"),
    "generator_frame": (HEAD + "    g = (k for k in x)\n    return g.gi_frame.f_back.f_globals\n",
                        "line 3 of your cell reads .f_globals, which walks Python's frames"),
    "format_with_a_dunder": (HEAD + "    return '{0.__globals__}'.format(sums[0])\n",
                             "line 2 of your cell calls .format on a format whose fields"),
    "module_inside_numpy": (HEAD + "    return np.ctypeslib.as_array(x)\n",
                            "line 2 of your cell reaches np.ctypeslib, a module"),
    "module_as_a_value": (HEAD + "    m = np\n    return m.sum(x)\n",
                          "line 2 of your cell uses the module np as a value"),
    "numpy_patched": (HEAD + "    np.allclose = lambda *a, **k: True\n",
                      "line 2 of your cell sets or deletes np.allclose"),
    "underscore": (HEAD + "    return x.__class__\n", "line 2 of your cell names __class__"),
    "builtin_open": (HEAD + "    return open('/tmp/verdict.json', 'w')\n",
                     "line 2 of your cell calls open, which an exercise's function has no use"),
    "builtin_eval": (HEAD + "    return eval('0')\n", "line 2 of your cell calls eval"),
    "file_written": (HEAD + "    np.save('/tmp/verdict', x)\n", "line 2 of your cell calls .save"),
    "course_module": ("from helpers.exercises import split_sum\n",
                      "line 1 of your cell imports helpers.exercises"),
    "an_underscore_name_not_its_own": (HEAD + "    return _checker_state\n",
                                       "line 2 of your cell names _checker_state"),
    "an_underscore_attribute_of_its_own": (HEAD + "    _x = x\n    return _x._data\n",
                                           "line 3 of your cell names _data"),
    "a_private_import": ("from numpy import _private as _p\n", "line 1 of your cell names _p"),
    "a_future_that_is_not": ("from __future__ import braces\n",
                             "line 1 of your cell imports __future__"),
}


@pytest.mark.parametrize("name", sorted(ESCAPES))
def test_an_escape_is_refused_with_its_line(name):
    source, words = ESCAPES[name]
    problem, hint = refusal(code_in(source, "<my_split_sum>"))
    assert problem.startswith(words), problem
    assert hint


def test_a_refusal_says_what_to_use_instead():
    problem, hint = refusal(code_in(HEAD + "\n\n    return open('x')\n", "<my_split_sum>"))
    assert problem == ("line 4 of your cell calls open, which an exercise's function has no use "
                       "for"), problem
    assert hint == "work with the arrays and values it is given"


ALLOWED = {
    "imports": "import math, time\nimport numpy as np\nimport pycuda.driver as drv\n"
               "from helpers.backend import drv, gpuarray\nfrom helpers.ch11.multigpu import using\n",
    "numpy_s_own_modules": HEAD + "    return np.random.default_rng(0).random(3) + np.linalg.norm(x)\n",
    "a_throwaway_name": HEAD + "    for _ in x:\n        pass\n",
    "a_plain_format": HEAD + "    return float('{:.3f} {}'.format(1.0, 2).split()[0])\n",
    "a_builtin_shadowed": "def my_split_sum(x, contexts, open):\n    return open(x)\n",
    # blind audit AW: right code refused (a future import; a throw-away name of the code's own)
    "a_future_import": "from __future__ import annotations\n" + HEAD + "    return 0.0\n",
    "its_own_underscore_names": HEAD + "    _total = [_share * 2 for _share in sums]\n"
                                "    def _helper(_v):\n        return _v\n"
                                "    return _helper(_total)\n",
}


@pytest.mark.parametrize("name", sorted(ALLOWED))
def test_what_the_exercises_use_passes(name):
    assert refusal(code_in(ALLOWED[name], "<my_split_sum>")) is None


@pytest.mark.parametrize("path", sorted(
    str(p.relative_to(ROOT)) for folder in ("cuda_src/exercises", "cuda_src/solutions",
                                            "helpers/exercises/as_shipped")
    for p in (ROOT / folder).glob("*.py")))
def test_the_stubs_and_the_solutions_pass(path):
    assert refusal(code_in((ROOT / path).read_text(), path)) is None


@pytest.mark.parametrize("path", sorted(p.name for p in (
    ROOT / "helpers" / "exercises" / "solutions").glob("[a-z]*.py")))
def test_the_notebooks_reference_functions_pass(path):
    source = (ROOT / "helpers" / "exercises" / "solutions" / path).read_text()
    assert refusal(code_in(source, path)) is None


def test_of_sys_only_getsizeof_is_read():
    assert refusal(code_in(HEAD + "    import sys\n    return sys.getsizeof(x)\n", "<f>")) is None
    problem, _ = refusal(code_in(HEAD + "    import sys\n    return sys.modules\n", "<f>"))
    assert problem.startswith("line 3 of your cell reads sys.modules"), problem
