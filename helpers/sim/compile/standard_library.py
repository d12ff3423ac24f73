"""What of the C++ standard library device code may use, as nvcc has it: <cmath>'s functions
(std::sqrt, and std::log2f but not std::sinf, as <cmath> has them; not CUDA's own exp10 or
sinpi), std::move and std::forward, the C functions device code has (std::memcpy, std::printf),
and its types and constants (std::size_t, std::is_same<A, B>::value). Its other functions and
its classes are host code (std::vector, std::swap, std::numeric_limits<float>::max()): nvcc
refuses them in device code ("calling a __host__ function from a __global__ function is not
allowed"), and g++ cannot know. Read from the learner's code after the preprocessor
(compile/device_rules.py), with what to write instead.
"""

import re

# std::min and std::max, and the math functions CUDA lacks (std::isless), are the compiler's to
# refuse (include/sim_math_args.h), with advice of their own.
DEVICE = set("""abs acos acosh asin asinh atan atan2 atanh cbrt ceil copysign cos cosh erf erfc
exp exp2 expm1 fabs fdim floor fma fmax fmin fmod frexp hypot ilogb isfinite isinf isnan ldexp
lgamma llrint llround log log10 log1p log2 logb lrint lround modf nan nearbyint nextafter pow
remainder remquo rint round scalbln scalbn signbit sin sinh sqrt tan tanh tgamma trunc labs llabs
move forward memcpy memset printf malloc free min max""".split()) | {f + "f" for f in """acosh asinh
atanh cbrt copysign erf erfc exp2 expm1 fdim fma fmax fmin hypot ilogb lgamma llrint llround log1p
log2 logb lrint lround nearbyint nextafter remainder rint round scalbn tgamma trunc""".split()}
# (with the float spellings of C++11's functions, which <cmath> brings into std: std::log2f, but
# not std::sinf)
_ADVICE = [  # (the names, what to do instead)
    ({"vector", "array", "string", "map", "unordered_map", "set", "list", "deque", "pair", "tuple",
      "complex", "optional", "span", "string_view", "function", "unique_ptr", "shared_ptr"},
     "use a plain array of a constant size (float v[3];), or an array the host allocates and "
     "passes to the kernel"),
    ({"numeric_limits"}, "use the constants of <cfloat> and <climits>: FLT_MAX (and -FLT_MAX), "
     "INFINITY, INT_MAX"),
    ({"swap", "exchange"}, "swap through a variable of your own: float t = a; a = b; b = t;"),
    ({"clamp"}, "clamp with CUDA's own functions: fminf(fmaxf(x, lo), hi)"),
]


def refused(tokens, i):
    """What tokens[i] starts, std::name (and ::member, template arguments left out), where it
    calls a function of the standard library that device code lacks or constructs one of its
    classes (std::vector<float> v(3), std::swap(a, b), std::numeric_limits<float>::max()); None
    for its device functions (std::sqrt), its types (std::size_t) and its constants
    (std::is_same<A, B>::value)."""
    if tokens[i].text != "std" or i + 2 >= len(tokens) or tokens[i + 1].text != "::" \
            or i > 0 and tokens[i - 1].text == "::":
        return None
    names, j = [], i + 1
    while j + 1 < len(tokens) and tokens[j].text == "::" and tokens[j + 1].kind == "word":
        names.append(tokens[j + 1].text)
        j = _past_template_arguments(tokens, j + 2)
    if not names or j >= len(tokens):
        return None
    function = re.sub(r"^__sim_(math_)?", "", names[-1])  # as written, before the prelude's macros
    device = len(names) == 1 and function in DEVICE or names[-1].startswith("__sim_host_") \
        or function.endswith("_t")  # std::int64_t(3), a cast
    called = tokens[j].text == "(" and not device
    constructed = len(names) == 1 and (tokens[j].text == "{" or tokens[j].kind == "word") \
        and not names[0].endswith(("_t", "_v")) and names[0] != "byte"
    return "std::" + "::".join(names[:-1] + [function]) if called or constructed else None


def _past_template_arguments(tokens, j):
    """The index past the <...> that starts at tokens[j], or j where none does."""
    if j >= len(tokens) or tokens[j].text != "<":
        return j
    depth = 0
    for k in range(j, len(tokens)):
        depth += tokens[k].text.count("<") - tokens[k].text.count(">")
        if depth <= 0:
            return k + 1
        if tokens[k].text in (";", "{"):
            break
    return j


def library_advice(name):
    """What to write in device code in place of ``name``, std::vector or std::swap."""
    first = name.split("::")[1] if "::" in name else name
    return next((advice for names, advice in _ADVICE if first in names),
                "write it as a loop or an expression of your own, or do that work on the host")
