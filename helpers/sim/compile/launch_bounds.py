"""A kernel's ``__launch_bounds__(maxThreadsPerBlock[, minBlocks[, maxBlocksPerCluster]])``.

nvcc keeps the first number with the kernel: cuFuncGetAttribute's MAX_THREADS_PER_BLOCK is it,
and a launch of more threads a block fails ("too many resources requested for launch"). The
simulator's scan (builder._preprocess, ``-DSIM_SCAN``) writes each ``__launch_bounds__(...)`` as
a ``__sim_launch_bounds__(...)`` mark with its macros expanded; ``split_off`` takes the marks out
of the scanned code (which then reads as it did with the bounds defined away) and reads the
number, and the table after the learner's code (source.translation_unit) keeps it in the
library, where a cached module finds it too. A bound the simulator cannot read as a number (a
template's parameter, a constexpr variable) is left out: such a kernel's launches are checked
against the device's limit only.
"""

import ast
import re

MARK = "__sim_launch_bounds__"
_MARK = re.compile(rf"\b{MARK}\s*\(")
_KERNEL_NAME = re.compile(r"\b(?!__attribute__\b|__sim_global__\b)([A-Za-z_]\w*)\s*\(")
_INTEGER_SUFFIX = re.compile(r"\b(\d+|0[xX][0-9a-fA-F]+)[uUlL]+\b")


def split_off(scanned):
    """(the scanned code without the marks, {kernel name: its bound}) where a bound reads as a
    whole number."""
    kept, bounds, pos = [], {}, 0
    for m in _MARK.finditer(scanned):
        if m.start() < pos:
            continue
        end = _closing(scanned, m.end() - 1)
        if end < 0:
            break
        kept.append(scanned[pos:m.start()])
        pos = end
        name, bound = _KERNEL_NAME.search(scanned, end), _first_number(scanned[m.end():end - 1])
        if name is not None and bound is not None:
            bounds[name.group(1)] = bound
    return "".join(kept) + scanned[pos:], bounds


def _closing(code, start):
    """The index after the ) that closes the ( at code[start], or -1."""
    depth = 0
    for i in range(start, len(code)):
        depth += (code[i] == "(") - (code[i] == ")")
        if depth == 0:
            return i + 1
    return -1


def _first_number(arguments):
    """The value of the first of the comma-separated ``arguments`` (256, 16 * 16, (1 << 8),
    256u), an integer constant expression; None where it is anything else."""
    depth, first = 0, arguments
    for i, c in enumerate(arguments):
        depth += (c == "(") - (c == ")")
        if c == "," and depth == 0:
            first = arguments[:i]
            break
    try:
        value = _value(ast.parse(_INTEGER_SUFFIX.sub(r"\1", first.strip()), mode="eval").body)
    except (SyntaxError, ValueError, ZeroDivisionError):
        return None
    return value if value is not None and value > 0 else None


_OPERATORS = {ast.Add: int.__add__, ast.Sub: int.__sub__, ast.Mult: int.__mul__,
              ast.FloorDiv: int.__floordiv__, ast.Div: int.__floordiv__, ast.Mod: int.__mod__,
              ast.LShift: int.__lshift__, ast.RShift: int.__rshift__}


def _value(node):
    """A non-negative integer expression's value, read from its syntax tree, never run (a shift
    by 64 or more, or a negative operand, is None)."""
    if isinstance(node, ast.Constant) and type(node.value) is int:
        return node.value
    if not (isinstance(node, ast.BinOp) and type(node.op) in _OPERATORS):
        return None
    left, right = _value(node.left), _value(node.right)
    if left is None or right is None or isinstance(node.op, (ast.LShift, ast.RShift)) and right >= 64:
        return None
    return _OPERATORS[type(node.op)](left, right)
