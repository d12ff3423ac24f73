"""The simulator's exceptions: PyCUDA's own classes, and two for what the simulator lacks.

PyCUDA's classes (`pycuda.driver.Error` and its subclasses) keep their names and bases, so code
that catches `drv.LogicError` or `drv.MemoryError` behaves the same on both backends.
`MemoryError` is also Python's built-in MemoryError, so `except MemoryError:` catches it too.

Two more say what the simulator does not do, and what to do instead:

- `NotProvided`: a PyCUDA name the simulator does not have (yet). It is an AttributeError, so
  `hasattr`, `copy.copy`, `np.asarray` and friends probe for it as they would for any missing
  attribute; it is also a NotImplementedError, the class it had before.
- `NeedsGPU`: a CUDA feature the simulator will not have (textures, OpenGL interop, cuRAND, IPC,
  dynamic parallelism). Raised when the feature is used; the message names it.
"""

import builtins

RUN_ON_GPU = "run on a GPU with CUDA_COURSE_BACKEND=pycuda"


class Error(Exception):
    pass


class LogicError(Error):
    pass


class LaunchError(Error):
    pass


class RuntimeError(Error):  # noqa: A001 - the name PyCUDA uses
    pass


class MemoryError(Error, builtins.MemoryError):  # noqa: A001
    pass


class CompileError(Error):
    """pycuda.driver.CompileError: msg, the command line, and the compiler's output."""

    def __init__(self, msg, command_line, stdout=None, stderr=None):
        super().__init__(msg)
        self.msg, self.command_line, self.stdout, self.stderr = msg, command_line, stdout, stderr

    def __str__(self):
        result = self.msg
        if self.command_line:
            result += "\n[command: %s]" % " ".join(map(str, self.command_line))
        if self.stderr:
            result += "\n[stderr:\n%s]" % self.stderr
        return result


class HostFunctionError(CompileError):
    """Device code calls a function that only the host has (nvcc: "calling a __host__ function
    from a __global__ function is not allowed"): ``function`` as the learner wrote it, and the
    ``file`` and ``line`` of its first call (None where the compiler kept no line)."""

    def __init__(self, msg, function, file=None, line=None, command_line=None):
        super().__init__(msg, command_line)
        self.function, self.file, self.line = function, file, line


class NotProvided(AttributeError, NotImplementedError):
    """A name of PyCUDA's that the simulator does not provide."""


class NeedsGPU(NotImplementedError):
    """A CUDA feature that only a GPU has; the message names the feature."""

    def __init__(self, feature, call=None):
        self.feature = feature
        what = f"{call} needs a GPU: it uses {feature}" if call else (
            f"{feature[0].upper()}{feature[1:]} need a GPU")
        super().__init__(f"{what}, which the course's CPU simulator does not provide. "
                         f"To use it, {RUN_ON_GPU}.")


def not_provided(module, name, advice=""):
    """The NotProvided error for `module.name`, saying what to do instead."""
    return NotProvided(
        f"{module}.{name} is not provided by the course's CPU simulator. "
        + (advice or f"To use it, {RUN_ON_GPU}."), name=name)


def module_getattr(module):
    """A module-level __getattr__ that answers unknown names with NotProvided."""
    def __getattr__(name):
        if name.startswith("__"):
            raise AttributeError(f"module {module!r} has no attribute {name!r}", name=name)
        raise not_provided(module, name)
    return __getattr__
