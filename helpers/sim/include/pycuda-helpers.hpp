// pycuda-helpers.hpp for the course's CPU simulator.
//
// PyCUDA's header holds pycuda-complex.hpp and helpers for reading double and complex values
// through textures (fp_tex1Dfetch, fp_tex2D, ...) and surfaces. Textures need a GPU, so only the
// complex type and the texture element typedefs are here; a kernel that calls the texture
// helpers does not compile on the simulator, and the error says that textures need a GPU.
#ifndef PYCUDA_HELPERS_HPP_SEEN
#define PYCUDA_HELPERS_HPP_SEEN

#include <pycuda-complex.hpp>

extern "C++" {
typedef float fp_tex_float;
typedef int2 fp_tex_double;
typedef uint2 fp_tex_cfloat;
typedef int4 fp_tex_cdouble;
}

#endif
