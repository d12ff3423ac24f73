"""The verdict on a math function called on types that CUDA's device code has no version for
(sqrt of an int, fmin of a float and an int, min of an int and a float): nvcc refuses the call,
and so does the simulator (helpers/sim/compile/math_arguments.py), whose record of it
(diagnosed.MATH_ARGUMENT: the function, the arguments' types) is read here."""

from __future__ import annotations

from helpers.exercises.diagnostic_words import a as _a

def refused(d, where, source):
    """sqrt of an int, fmin of a float and an int, min of an int and a float: no device version."""
    from helpers.sim.compile.math_arguments import NUMBER_FIRST

    name, types = (d.names or ("it",))[0], d.types
    call = f"{name}({', '.join(types)})"
    if name in ("min", "max"):
        return (f"{where} calls {call}: CUDA's {name} has no version for {_a(types[0])} with "
                f"{_a(types[-1])}, and nvcc refuses the call as ambiguous",
                f"make both integers or both floating-point: {name}((float)a, b), or "
                f"f{name}f(a, b) for two floats")
    if len(types) == 1 and name in ("ceil", "floor", "round", "trunc"):
        return (f"{where} calls {call}: in device code CUDA's {name} takes a float or a double, "
                f"and nvcc refuses it on {_a(types[0])}; an integer division has already "
                "dropped its fraction before it could be rounded",
                "round up in integers, (n + TILE - 1) / TILE, or divide floats: "
                f"{name}(n / (float)TILE)")
    takes = ("a float or a double" if len(types) == 1 else "a float or a double first"
             if name in NUMBER_FIRST
             else "{0} floats or {0} doubles".format({2: "two", 3: "three"}.get(len(types))))
    return (f"{where} calls {call}: in device code CUDA's {name} takes {takes}, and nvcc "
            "refuses any other type", "convert to float: (float)n for an int variable, 1.0f for "
            "a literal (1 is an int, 1.0 a double)")
