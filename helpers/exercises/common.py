"""What a kernel exercise's launch is made of: its inputs, its poisoned outputs, and a launch
that reports instead of raising.

- ``Input`` is an input array with spare elements of a junk value around it, so that a wrong
  index lands in memory the checker owns (and reads a value that shows) instead of crashing.
- ``Output`` is an output buffer pre-filled with poison (NaN for floats) followed by a guard
  zone, so that a checker can tell "never written" and "written past the end" from "written
  wrong"; ``Output.read`` gives a ``Result``.
- ``launch_failure(launch)`` runs a launch and synchronizes, and returns the error a wrong kernel
  causes instead of raising it (``launch_catching``: the same, in words); ``in_order`` runs its
  blocks one after another on the simulator.
- ``time_limit()``: how long a launch of a checker may run on the simulator.

The runner that puts them together is ``kernel.KernelExercise``. The backend's ``gpuarray`` is
handed in, never imported here, so that the same launch runs on the simulator too (the race check
and the trace, ``microscope.observe``).
"""

from __future__ import annotations

import dataclasses

import numpy as np

LAUNCH_TIME_LIMIT = 10.0
"""Seconds a single launch may run on the simulator before it counts as an endless loop (the
checkers' launches take milliseconds). A shorter CUDA_SIM_TIME_LIMIT wins."""


def time_limit() -> float:
    """The time limit of the checkers' launches on the simulator (read when a check runs)."""
    from helpers.sim.settings import settings

    return min(LAUNCH_TIME_LIMIT, settings.time_limit or LAUNCH_TIME_LIMIT)


GUARD = 64
"""Elements of guard zone after each output buffer: a kernel that forgets its bounds guard
writes into it (the launch rounds the thread count up to a whole number of blocks)."""

INT_POISON = -559038737  # 0xDEADBEEF as a signed 32-bit int; also fits (wrapped) in smaller ints


NEVER_SET = np.array(0xFEFEFEFE, np.uint32).view(np.float32)[()]
"""What a float local holds on the simulator before anything was written to it (0xFE bytes:
-1.7e38; its compiler's -ftrivial-auto-var-init), and what a sum that starts from one comes to."""


def poison_value(dtype) -> object:
    """NaN for floating-point types, 0xDEADBEEF (wrapped to the type's width) for integers."""
    dtype = np.dtype(dtype)
    if dtype.kind == "f":
        return dtype.type(np.nan)
    if dtype.kind in "iu":
        return np.array(INT_POISON).astype(dtype)[()]
    raise TypeError(f"no poison value for dtype {dtype}")


def is_poison(values: np.ndarray, poison=None) -> np.ndarray:
    """Boolean mask: True where ``values`` still holds ``poison`` (by default ``poison_value``):
    never written. Floats are compared by their bits, so that a NaN a kernel computed counts as
    written.

    For 8- and 16-bit integers the poison is a value a kernel could also write (0xEF for uint8):
    treat a match there as "probably never written", after comparing with the expected result.
    """
    poison = np.array(poison_value(values.dtype) if poison is None else poison, values.dtype)
    if values.dtype.kind == "f":
        bits = np.dtype(f"u{values.dtype.itemsize}")
        return values.view(bits) == poison.view(bits)
    return values == poison


@dataclasses.dataclass(frozen=True)
class Input:
    """An input array, copied to the device between ``before`` and ``after`` spare elements of
    ``junk``; the kernel gets a pointer to ``values``' first element."""

    values: np.ndarray
    after: int = 0
    junk: object = 0
    before: int = 0

    def host(self) -> np.ndarray:
        """The array as it is copied to the device: junk, ``values`` (flat), junk."""
        size = self.values.size
        host = np.full(self.before + size + self.after, self.junk, self.values.dtype)
        host[self.before:self.before + size] = self.values.ravel()
        return host

    def device(self, gpuarray):
        buffer = gpuarray.to_gpu(self.host())
        # a view into the buffer keeps it alive
        return buffer[self.before:self.before + self.values.size] if self.before else buffer


@dataclasses.dataclass(frozen=True)
class Result:
    """An output after the launch: ``got`` (its ``shape``), ``past`` (the flat indices past its
    end that were written), ``unwritten`` (True where ``got`` still holds the poison),
    ``differs`` (True when two launches with different poisons wrote different values),
    ``ahead`` (the negative indices, before its start, that were written) and ``runs`` (each
    launch's ``got``, the first being ``got``)."""

    got: np.ndarray
    past: np.ndarray
    unwritten: np.ndarray
    differs: bool = False
    ahead: np.ndarray = dataclasses.field(default_factory=lambda: np.zeros(0, int))
    runs: tuple = ()


@dataclasses.dataclass(frozen=True)
class Output:
    """An output buffer of ``shape`` followed by ``guard`` spare elements (and preceded by
    ``before``: the kernel gets a pointer past them), all ``poison`` (by default
    ``poison_value(dtype)``), except that ``start``, where given, is what the output itself holds
    before the launch (0 for a sum). With several ``poisons`` the kernel runs once with each:
    where any value can be a right answer (a byte), an element that holds each run's poison
    after it was never written. ``held``: whether the runner looks for a kernel that adds to the
    output (``helpers.exercises.held``): False where the exercise's detectors read what it held
    themselves, or a ``(problem, hint)`` pair that words the addition."""

    shape: int | tuple
    dtype: object = np.float32
    guard: int = GUARD
    poisons: tuple = (None,)
    start: object = None
    before: int = 0
    held: object = True

    @property
    def size(self) -> int:
        return int(np.prod(self.shape))

    def device(self, gpuarray, run: int = 0):
        """The buffer for launch number ``run``."""
        poison = self.poisons[run % len(self.poisons)]
        dtype = np.dtype(self.dtype)
        host = np.full(self.before + self.size + self.guard,
                       poison_value(dtype) if poison is None else poison, dtype)
        if self.start is not None:
            host[self.before:self.before + self.size] = self.start
        buffer = gpuarray.to_gpu(host)
        return buffer[self.before:] if self.before else buffer  # the view keeps it alive

    def fetch(self, array) -> np.ndarray:
        """The whole buffer (``before`` and ``guard`` too) behind ``array``, which ``device``
        made, copied back."""
        return (array.base if self.before else array).get()

    def read(self, hosts) -> Result:
        """The ``Result`` of the buffers ``hosts`` (``fetch``'s) copied back, one per run."""
        never = np.logical_and.reduce([is_poison(h, self.poisons[k % len(self.poisons)])
                                       for k, h in enumerate(hosts)])
        first, start, end = hosts[0], self.before, self.before + self.size
        differs = (np.logical_or.reduce([h != first for h in hosts]) & ~never).any()
        shape = (self.shape,) if np.isscalar(self.shape) else tuple(self.shape)
        runs = tuple(h[start:end].reshape(shape) for h in hosts)
        return Result(runs[0], np.flatnonzero(~never[end:]) + self.size,
                      never[start:end].reshape(shape), bool(differs),
                      np.flatnonzero(~never[:start]) - start, runs)


def one_further(array: str, item: str, past, unwritten, hint: str):
    """The mistake of a kernel that stored each element one further on (``out[i + 1]`` for
    ``out[i]``), its guard right: the first element alone never written, and the one just past
    the end written (a guard off by one writes that one too, but the first as well)."""
    unwritten = np.asarray(unwritten).ravel()
    if (np.asarray(past).ravel().tolist() == [unwritten.size]
            and np.flatnonzero(unwritten).tolist() == [0]):
        yield (f"{array}[0] was never written and the {item} just past the end of {array} was: "
               "the store's index is one too far, the guard is right", hint)


def halves(rng, shape, top: int = 4) -> np.ndarray:
    """float32 multiples of 0.5 in [-top, top], none 0: their products, and sums of them below
    2^22, are exact in float32, so that a sum's model holds to the last bit however it is added."""
    values = rng.integers(1, 2 * top + 1, shape) * rng.choice((-0.5, 0.5), shape)
    return values.astype(np.float32)


def whole_sums(terms) -> np.ndarray:
    """What an accumulator declared int holds after adding ``terms[..., 0]``, ``terms[..., 1]``,
    ... in turn, ``s += t``: each add's float result cut toward 0 to a whole number."""
    terms = np.asarray(terms, np.float32)
    s = np.zeros(terms.shape[:-1], np.float32)
    for k in range(terms.shape[-1]):
        s = np.trunc(s + terms[..., k])
    return s


def declared_int(got, whole, exact, name: str, element: str, decl: str):
    """(problem, hint) where ``got`` (the kernel's output on ``halves``) is ``whole``, the sums
    an accumulator ``name`` declared int gives (``whole_sums``), and not the float sums
    ``exact``: ``element`` names the output's element at an index, where the first differs. For
    a checker whose cases' elements lie in (-1, 1) and whose output there was all zeros."""
    got, whole, exact = (np.asarray(v, np.float64) for v in (got, whole, exact))
    if got.shape != whole.shape or not np.array_equal(got, whole) or np.allclose(whole, exact):
        return
    i = np.unravel_index(int(np.argmax(~np.isclose(whole, exact))), whole.shape)
    yield (f"{name} is declared int: each add's result is cut toward 0 to a whole number, so "
           "with the cases' elements in (-1, 1), where no product reaches 1, it stayed 0; on "
           f"elements that are multiples of 0.5 up to 4, {element.format(*i)} = {got[i]:g}, "
           f"the int's sum, where the float sum is {exact[i]:g}",
           f"declare {name} float, as the values it adds are: {decl}")


def close(got: np.ndarray, want: np.ndarray, rtol: float = 1e-5, atol: float = 1e-6) -> bool:
    """Whether ``got`` has ``want``'s shape and its values to float32's rounding."""
    return got.shape == want.shape and bool(np.allclose(got, want, rtol=rtol, atol=atol))


def device_arguments(args, gpuarray, run: int = 0) -> list:
    """The kernel's arguments on the device: an ``Input`` or ``Output`` made there, a NumPy array
    copied there, anything else (a NumPy scalar, an array already there) passed as it is."""
    return [a.device(gpuarray, run) if isinstance(a, Output) else
            a.device(gpuarray) if isinstance(a, Input) else
            gpuarray.to_gpu(a) if isinstance(a, np.ndarray) else a for a in args]


def launch_failure(launch, in_order=False):
    """Run ``launch()`` then ``Context.synchronize()``; return None, or the error a wrong kernel
    caused (its fields say what happened: ``helpers.exercises.failure`` reads them). With
    ``in_order``, the simulator runs the blocks one after another, in order (one worker).

    A kernel that reads or writes far outside its arrays makes the simulator raise
    ``drv.LaunchError`` (naming the block and thread); PyCUDA reports the GPU's "illegal
    address" as ``drv.LogicError``, as it does a bad launch configuration (a block of more than
    1024 threads). Those are returned. (After an illegal address a GPU's context is unusable:
    restart the Jupyter kernel.) A ``TypeError`` (arguments the kernel does not take) is raised
    again as ``verdict.KernelArgumentError``; a launch stopped at the simulator's time limit is
    raised as it is, for ``verdict.first_mistake`` to name.
    """
    from helpers.backend import drv
    from helpers.exercises.verdict import KernelArgumentError
    from helpers.sim.settings import settings

    try:
        with settings.changed(**{"workers": 1} if in_order else {}):
            launch()
            drv.Context.synchronize()
    except TypeError as err:  # the simulator checks arguments against the kernel's parameters
        raise KernelArgumentError(str(err)) from err
    except drv.LaunchError as err:
        if getattr(err, "kind", None) == "time limit":
            raise  # not a crash: verdict.first_mistake names it
        return err
    except drv.LogicError as err:
        return err
    return None


def failed(error, arrays=None) -> str:
    """What went wrong in a launch that ``launch_failure`` returned ``error`` for, in words
    (``arrays``: the launch's, as ``named_arrays`` gives them, for ``failure.describe``)."""
    from helpers.backend import drv
    from helpers.exercises.failure import describe

    if isinstance(error, drv.LaunchError):
        return f"the kernel crashed: {describe(error, arrays)}"
    return f"the launch failed: {describe(error, arrays)}"


def named_arrays(args, names) -> dict:
    """{start address: name} of the device arrays among a launch's ``args``, each named as the
    kernel's parameter in its place (``names``)."""
    return {int(getattr(a, "gpudata", a)): name for a, name in zip(args, names)
            if not np.isscalar(a)}   # a GPUArray or a DeviceAllocation: not a number passed by value


def launch_catching(launch) -> str | None:
    """``launch_failure(launch)``, the error in words (``failed``): None when it ran."""
    error = launch_failure(launch)
    return None if error is None else failed(error)


def c_int_value(expression: str, names: dict):
    """The value of a C integer expression of the learner's code (``n / 2``, ``GROUP / 2``):
    whole numbers and ``names``' values joined by + - * / (C's division, toward 0), unary minus
    and parentheses; None for anything else (a call, a name not in ``names``, a division by 0).
    Read from its syntax tree, never run."""
    import ast

    ops = {ast.Add: int.__add__, ast.Sub: int.__sub__, ast.Mult: int.__mul__,
           ast.Div: lambda a, b: abs(a) // abs(b) * (1 if (a < 0) == (b < 0) else -1)}

    def value(node):
        if isinstance(node, ast.Constant) and type(node.value) is int:
            return node.value
        if isinstance(node, ast.Name) and type(names.get(node.id)) is int:
            return names[node.id]
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            inner = value(node.operand)
            return None if inner is None else -inner
        if isinstance(node, ast.BinOp) and type(node.op) in ops:
            left, right = value(node.left), value(node.right)
            if left is None or right is None or (right == 0 and isinstance(node.op, ast.Div)):
                return None
            return ops[type(node.op)](left, right)
        return None

    try:
        return value(ast.parse(expression.strip(), mode="eval").body)
    except (SyntaxError, ValueError):
        return None
