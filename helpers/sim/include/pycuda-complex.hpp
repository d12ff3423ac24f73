// pycuda-complex.hpp for the course's CPU simulator.
//
// PyCUDA's header defines pycuda::complex<T> for device code (complex64 and complex128 arrays are
// pycuda::complex<float> and pycuda::complex<double> in generated kernels). On the CPU the C++
// library's std::complex does the arithmetic; pycuda::complex<T> is a std::complex<T> that can
// also be read and written through volatile pointers, as PyCUDA's can. The functions PyCUDA's
// header offers (real, imag, abs, arg, norm, conj, polar, exp, log, log10, sqrt, pow and the
// trigonometric ones) are std::complex's, also reachable as pycuda::name.
#ifndef PYCUDA_COMPLEX_HPP_SEEN
#define PYCUDA_COMPLEX_HPP_SEEN

extern "C++" {
#include <complex>

namespace pycuda {

template <class T>
struct complex : std::complex<T> {
  typedef T value_type;
  using std::complex<T>::complex;
  complex(const std::complex<T> &z) : std::complex<T>(z) {}
  template <class U>
  explicit complex(const std::complex<U> &z) : std::complex<T>(T(z.real()), T(z.imag())) {}
  complex(const volatile complex &z)
      : std::complex<T>(const_cast<const complex &>(z).real(),
                        const_cast<const complex &>(z).imag()) {}
  complex(const complex &) = default;
  complex &operator=(const complex &) = default;
  template <class U>
  complex &operator=(const std::complex<U> &z) {
    std::complex<T>::operator=(std::complex<T>(T(z.real()), T(z.imag())));
    return *this;
  }
  complex &operator=(const T &x) {
    std::complex<T>::operator=(x);
    return *this;
  }
  volatile complex &operator=(const complex &z) volatile {
    const_cast<complex &>(*this) = z;
    return *this;
  }
};

using std::real;
using std::imag;
using std::abs;
using std::arg;
using std::norm;
using std::conj;
using std::polar;
using std::exp;
using std::log;
using std::log10;
using std::sqrt;
using std::pow;
using std::sin;
using std::cos;
using std::tan;
using std::sinh;
using std::cosh;
using std::tanh;

}  // namespace pycuda
}  // extern "C++"

#endif
