"""GPUArray's arithmetic, with PyCUDA's rules: the operators, comparisons, powers, astype,
abs, reverse and the complex parts.

PyCUDA runs each of these as a small generated kernel; here NumPy computes them directly on the
simulated device memory, following the same recipe: the result's dtype is what NumPy gives for
`np.zeros(1, x.dtype) + y` (so an int32 array times 2.5 is float64, a float32 array times 2.5
stays float32), the operands are cast to it first, and scalar operations take PyCUDA's form
(`x / c` is `x * (1/c)`, comparisons with a Python float are made in double). In-place operators
write into the array's own memory, so views and `gpudata` see the change.

Where PyCUDA's kernel would give a wrong answer without an error, the simulator raises instead:
operands of different memory order (its kernels pair elements by position in memory), and
division of integer arrays (it would divide as C does, in integers).
"""

import numbers

import numpy as np

from .layout import compact_strides

ONLY_CONTIGUOUS = "only contiguous arrays may be used as arguments to this operation"


# ---- dtypes, as PyCUDA's kernels see them ---------------------------------------------------------
def common_dtype(a, b):
    """PyCUDA's result dtype for a and b (an array or a scalar): NumPy's for zeros(1) + b."""
    other = np.zeros(1, b.dtype) if hasattr(b, "dtype") else b
    return (np.zeros(1, a.dtype) + other).dtype


def c_promote(a, b):
    """The type C's usual arithmetic conversions give two operands of dtypes a and b."""
    a, b = np.dtype(a), np.dtype(b)
    if "c" in (a.kind, b.kind):
        return np.result_type(a, b)
    if "f" in (a.kind, b.kind):
        return max((t for t in (a, b) if t.kind == "f"), key=lambda t: t.itemsize)
    a, b = (np.dtype(np.int32) if t.itemsize < 4 else t for t in (a, b))
    if a.itemsize != b.itemsize:
        return max(a, b, key=lambda t: t.itemsize)
    return a if a.kind == "u" else b


def c_scalar(value, dtype, call):
    """value as a C scalar of dtype, refused where PyCUDA's struct.pack refuses it."""
    dtype = np.dtype(dtype)
    integral = isinstance(value, (numbers.Integral, np.bool_))
    is_complex = isinstance(value, (complex, np.complexfloating))
    if dtype.kind in "iub" and not integral or dtype.kind == "f" and is_complex:
        raise TypeError(
            f"{call}: {value!r} does not fit a {dtype} array (PyCUDA refuses it too: "
            f"struct.error). Pass a {'whole number' if dtype.kind in 'iub' else 'real number'}, "
            "or convert the array first with .astype().")
    return dtype.type(value)


def _integer_division(call):
    return TypeError(
        f"{call}: dividing integer GPUArrays. PyCUDA would divide them as C does, in integers "
        "(7 / 2 gives 3), where NumPy gives floats (3.5); the simulator refuses rather than "
        "give a different answer. Convert first, e.g. a.astype(np.float64) / b.")


# ---- memory order ---------------------------------------------------------------------------------
def _order(a):
    """'CF' (either: 1-D or trivially shaped), 'C' or 'F' for a contiguous array."""
    if not a.flags.forc:
        raise RuntimeError(ONLY_CONTIGUOUS)
    return "CF" if a.flags.c_contiguous and a.flags.f_contiguous else (
        "C" if a.flags.c_contiguous else "F")


def check_same_order(call, *arrays):
    """PyCUDA's kernels pair elements by position in memory: that is right only when every
    operand (and the result) lays its elements out in the same order."""
    orders = {_order(a) for a in arrays if a.shape != ()} - {"CF"}
    if len(orders) > 1:
        raise ValueError(
            f"{call}: the arrays are laid out in different orders in memory (one row by row, "
            "C order; one column by column, Fortran order). PyCUDA pairs elements by position "
            "in memory, so on a GPU this gives wrong numbers without an error. Give them the same "
            "order first, e.g. gpuarray.to_gpu(np.ascontiguousarray(x.get())).")


def _pair(x, y):
    """PyCUDA's shape rule for two arrays: equal shapes, or one of them 0-d."""
    if x.shape != y.shape and () not in (x.shape, y.shape):
        raise NotImplementedError(f"Broadcasting binary operator with shapes: {x.shape}, "
                                  f"{y.shape}.")
    return x if x.shape != () else y


class ArithmeticMixin:
    """The operators of GPUArray (the class itself is in arrays/array.py)."""

    __array_priority__ = 100

    # ---- helpers that make the result and run the operation
    def _binary(self, other, ufunc, call, out=None, dtype=None):
        """out = ufunc(self, other), both cast to the result's dtype first (PyCUDA's
        get_binary_op_kernel and get_axpbyz_kernel)."""
        shaped = _pair(self, other)
        if out is None:
            out = shaped._new_like_me(dtype or common_dtype(self, other))
        check_same_order(call, self, other, out)
        ufunc(self._view(), other._view(), out=out._view(), dtype=out.dtype, casting="unsafe")
        return out

    def _scalar(self, value, ufunc, call, out=None, reflected=False):
        """out = ufunc(self, value) with value as a scalar of the result's dtype (PyCUDA's
        get_axpbz_kernel: z = a*x + b with a, b of the result's type)."""
        if out is None:
            out = self._new_like_me(common_dtype(self, value))
        check_same_order(call, self, out)
        c = c_scalar(value, out.dtype, call)
        x = self._view()
        args = (c, x) if reflected else (x, c)
        ufunc(*args, out=out._view(), dtype=out.dtype, casting="unsafe")
        return out

    def _compare(self, other, ufunc, symbol):
        """Comparisons give 0 or 1 in the result's dtype, as PyCUDA's kernels write them."""
        call = f"GPUArray {symbol}"
        if isinstance(other, type(self)):
            shaped = _pair(self, other)
            out = shaped._new_like_me(common_dtype(self, other))
            check_same_order(call, self, other, out)
            x, y, ct = self._view(), other._view(), out.dtype
        elif np.isscalar(other):
            out = self._new_like_me()
            a_type = np.dtype(type(other))  # a Python float is a double, an int a long
            x, y, ct = self._view(), a_type.type(other), c_promote(self.dtype, a_type)
        else:
            raise TypeError(f"{call}: compare a GPUArray with a GPUArray or a scalar, not a "
                            f"{type(other).__name__} (for a NumPy array: a_gpu.get() "
                            f"{symbol} ary)")
        ufunc(x, y, out=out._view(), signature=(ct, ct, None), casting="unsafe")
        return out

    # ---- + - * /
    def __add__(self, other):
        if isinstance(other, type(self)):
            return self._binary(other, np.add, "GPUArray +")
        if np.isscalar(other):
            return self.copy() if other == 0 else self._scalar(other, np.add, "GPUArray +")
        return NotImplemented

    __radd__ = __add__

    def __sub__(self, other):
        if isinstance(other, type(self)):
            return self._binary(other, np.subtract, "GPUArray -")
        if np.isscalar(other):
            return self.copy() if other == 0 else self._scalar(other, np.subtract, "GPUArray -")
        return NotImplemented

    def __rsub__(self, other):
        if not np.isscalar(other):
            return NotImplemented
        return self._scalar(other, np.subtract, "GPUArray -", reflected=True)

    def __mul__(self, other):
        if isinstance(other, type(self)):
            return self._binary(other, np.multiply, "GPUArray *")
        if np.isscalar(other):
            return self._scalar(other, np.multiply, "GPUArray *")
        return NotImplemented

    __rmul__ = __mul__

    def __truediv__(self, other):
        call = "GPUArray /"
        if isinstance(other, type(self)):
            if common_dtype(self, other).kind in "iub":
                raise _integer_division(call)
            return self._binary(other, np.true_divide, call)
        if np.isscalar(other):
            if other == 1:
                return self.copy()
            if common_dtype(self, other).kind in "iub":
                raise _integer_division(call)
            return self._scalar(1 / other, np.multiply, call,
                                out=self._new_like_me(common_dtype(self, other)))
        return NotImplemented

    def __rtruediv__(self, other):
        if not np.isscalar(other):
            return NotImplemented
        if common_dtype(self, other).kind in "iub":
            raise _integer_division("GPUArray /")
        return self._scalar(other, np.true_divide, "GPUArray /", reflected=True)

    # ---- in place: the result goes into this array's memory, in its dtype
    def __iadd__(self, other):
        if isinstance(other, type(self)):
            return self._binary(other, np.add, "GPUArray +=", out=self)
        return self._scalar(other, np.add, "GPUArray +=", out=self)

    def __isub__(self, other):
        if isinstance(other, type(self)):
            return self._binary(other, np.subtract, "GPUArray -=", out=self)
        return self._scalar(other, np.subtract, "GPUArray -=", out=self)

    def __imul__(self, other):
        if isinstance(other, type(self)):
            return self._binary(other, np.multiply, "GPUArray *=", out=self)
        return self._scalar(other, np.multiply, "GPUArray *=", out=self)

    def __itruediv__(self, other):
        if self.dtype.kind in "iub":
            raise _integer_division("GPUArray /=")
        if isinstance(other, type(self)):
            return self._binary(other, np.true_divide, "GPUArray /=", out=self)
        if other == 1:
            return self
        return self._scalar(1 / other, np.multiply, "GPUArray /=", out=self)

    def __neg__(self):
        return self._scalar(-1, np.multiply, "-GPUArray", out=self._new_like_me())

    def __pos__(self):
        return self

    def mul_add(self, selffac, other, otherfac, add_timer=None, stream=None, out=None):
        """selffac * self + otherfac * other."""
        call = "GPUArray.mul_add"
        result = out if out is not None else _pair(self, other)._new_like_me(
            common_dtype(self, other))
        check_same_order(call, self, other, result)
        a = c_scalar(selffac, self.dtype, call).astype(result.dtype)
        b = c_scalar(otherfac, other.dtype, call).astype(result.dtype)
        z = result._view()
        np.multiply(self._view(), a, out=z, dtype=result.dtype, casting="unsafe")
        z += np.multiply(other._view(), b, dtype=result.dtype, casting="unsafe")
        return result

    # ---- comparisons: elementwise, into an array of 0s and 1s
    def __eq__(self, other):
        return self._compare(other, np.equal, "==")

    def __ne__(self, other):
        return self._compare(other, np.not_equal, "!=")

    def __lt__(self, other):
        return self._compare(other, np.less, "<")

    def __le__(self, other):
        return self._compare(other, np.less_equal, "<=")

    def __gt__(self, other):
        return self._compare(other, np.greater, ">")

    def __ge__(self, other):
        return self._compare(other, np.greater_equal, ">=")

    def __hash__(self):
        raise TypeError("GPUArrays are not hashable.")

    # ---- powers: powf for float32 results, pow (in double) otherwise
    def _pow(self, base, exponent, out, call):
        arrays = [a for a in (base, exponent, out) if isinstance(a, type(self))]
        check_same_order(call, *arrays)
        work = np.dtype(np.float32) if out.dtype == np.float32 else (
            out.dtype if out.dtype.kind == "c" else np.dtype(np.float64))
        x = base._view() if isinstance(base, type(self)) else base
        y = exponent._view() if isinstance(exponent, type(self)) else exponent
        np.power(x, y, out=out._view(), dtype=work, casting="unsafe")
        return out

    def __pow__(self, other):
        if isinstance(other, type(self)) and other.shape != self.shape:
            raise ValueError(f"GPUArray **: shapes {self.shape} and {other.shape} differ")
        out = self._new_like_me(common_dtype(self, other))
        return self._pow(self, other, out, "GPUArray **")

    def __ipow__(self, other):
        return self._pow(self, other, self, "GPUArray **=")

    def __rpow__(self, other):
        dtype = common_dtype(self, other)
        return self._pow(dtype.type(other), self, self._new_like_me(dtype), "GPUArray **")

    # ---- conversions and other elementwise functions
    def astype(self, dtype, stream=None):
        if not self.flags.forc:
            raise RuntimeError(ONLY_CONTIGUOUS)
        if np.dtype(dtype) == self.dtype:
            return self.copy()
        result = self._new_like_me(dtype=dtype)
        check_same_order("GPUArray.astype", self, result)
        np.copyto(result._view(), self._view(), casting="unsafe")
        return result

    def __abs__(self):
        out_dtype = np.empty(0, self.dtype).real.dtype if self.dtype.kind == "c" else self.dtype
        result = self._new_like_me(out_dtype)
        check_same_order("abs(GPUArray)", self, result)
        np.abs(self._view(), out=result._view(), casting="unsafe")
        return result

    def reverse(self, stream=None):
        """The array in reversed memory order (treated as one-dimensional)."""
        result = self._new_like_me()
        _order(self)
        result._flat()[...] = self._flat()[::-1]
        return result

    def _complex_part(self, part, dtype):
        order = "F" if self.flags.f_contiguous else "C"
        result = self._new_like_me(dtype=dtype, order=order)
        np.copyto(result._view(), part(self._view()), casting="unsafe")
        return result

    @property
    def real(self):
        if self.dtype.kind != "c":
            return self
        return self._complex_part(np.real, np.empty(0, self.dtype).real.dtype)

    @property
    def imag(self):
        if self.dtype.kind != "c":  # zeros, as zeros_like(self) makes them
            return type(self)(self.shape, self.dtype, allocator=self.allocator,
                              strides=compact_strides(self)).fill(0)
        _order(self)
        return self._complex_part(np.imag, np.empty(0, self.dtype).real.dtype)

    def conj(self, out=None):
        if self.dtype.kind != "c":
            return self
        order = "F" if self.flags.f_contiguous else "C"
        _order(self)
        result = self._new_like_me(order=order) if out is None else out
        check_same_order("GPUArray.conj", self, result)
        np.conjugate(self._view(), out=result._view(), casting="unsafe")
        return result

    conjugate = conj

    def any(self, stream=None, allocator=None):
        return self._reduced(np.any(self._reduction_input("any")), np.bool_, allocator)

    def all(self, stream=None, allocator=None):
        return self._reduced(np.all(self._reduction_input("all")), np.bool_, allocator)

    # ---- reductions: a 0-d GPUArray, like PyCUDA's ReductionKernel (functions.py has the rest)
    def _reduction_input(self, call):
        if not self.flags.forc:
            raise RuntimeError(f"{call}: ReductionKernel cannot deal with non-contiguous arrays")
        return self._flat()

    def _reduced(self, value, dtype, allocator=None):
        """A 0-d array holding value, as PyCUDA's reductions return."""
        out = type(self)((), dtype, allocator=allocator or self.allocator)
        out._view()[...] = value
        return out
