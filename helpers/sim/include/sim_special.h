// sim_special.h -- the CUDA Math API's functions that the C library lacks: norms, reciprocal
// norms, the inverse error functions, the normal distribution, the scaled complementary error
// function and the modified Bessel functions. Computed in double: within CUDA's documented error
// bounds, not the same bits. Included by sim_math.h.
#pragma once

static inline double rcbrt(double x) { return 1.0 / cbrt(x); }
static inline double rhypot(double x, double y) { return 1.0 / hypot(x, y); }
static inline float rhypotf(float x, float y) { return (float)(1.0 / hypot((double)x, (double)y)); }
static inline double norm3d(double a, double b, double c) { return hypot(hypot(a, b), c); }
static inline double norm4d(double a, double b, double c, double d) { return hypot(hypot(a, b), hypot(c, d)); }
static inline double rnorm3d(double a, double b, double c) { return 1.0 / norm3d(a, b, c); }
static inline double rnorm4d(double a, double b, double c, double d) { return 1.0 / norm4d(a, b, c, d); }
static inline float norm3df(float a, float b, float c) { return (float)norm3d(a, b, c); }
static inline float norm4df(float a, float b, float c, float d) { return (float)norm4d(a, b, c, d); }
static inline float rnorm3df(float a, float b, float c) { return (float)rnorm3d(a, b, c); }
static inline float rnorm4df(float a, float b, float c, float d) { return (float)rnorm4d(a, b, c, d); }
static inline double norm(int dim, const double *p) {
    double r = 0.0;
    for (int i = 0; i < dim; i++) r = hypot(r, p[i]);
    return r;
}
static inline double rnorm(int dim, const double *p) { return 1.0 / norm(dim, p); }
static inline float normf(int dim, const float *p) {
    double r = 0.0;
    for (int i = 0; i < dim; i++) r = hypot(r, (double)p[i]);
    return (float)r;
}
static inline float rnormf(int dim, const float *p) { return (float)(1.0 / (double)normf(dim, p)); }
static inline void sincospi(double x, double *s, double *c) { *s = sinpi(x); *c = cospi(x); }
static inline void sincospi(float x, float *s, float *c) { sincospif(x, s, c); }
static inline void sincos(float x, float *s, float *c) { sincosf(x, s, c); }

// erfinv: Giles's single-precision approximation, then Newton's steps on erf in double
static inline double erfinv(double y) {
    if (!(y > -1.0 && y < 1.0)) return y == 1.0 ? INFINITY : y == -1.0 ? -INFINITY : NAN;
    double w = -log((1.0 - y) * (1.0 + y)), p;
    if (w < 5.0) {
        w -= 2.5;
        p = 2.81022636e-08;
        for (double k : {3.43273939e-07, -3.5233877e-06, -4.39150654e-06, 0.00021858087,
                         -0.00125372503, -0.00417768164, 0.246640727, 1.50140941})
            p = k + p * w;
    } else {
        w = sqrt(w) - 3.0;
        p = -0.000200214257;
        for (double k : {0.000100950558, 0.00134934322, -0.00367342844, 0.00573950773,
                         -0.0076224613, 0.00943887047, 1.00167406, 2.83297682})
            p = k + p * w;
    }
    double x = p * y;
    for (int i = 0; i < 3; i++) x -= (erf(x) - y) / (M_2_SQRTPI * exp(-x * x));
    return x;
}
// erfcinv: erfinv(1 - y) where that loses nothing; in the tails, Newton's steps on log(erfc)
static inline double erfcinv(double y) {
    if (!(y > 0.0 && y < 2.0)) return y == 0.0 ? INFINITY : y == 2.0 ? -INFINITY : NAN;
    if (y > 1.9375) return -erfcinv(2.0 - y);
    if (y >= 0.0625) return erfinv(1.0 - y);
    double t = sqrt(-log(y)), x = t - (log(t) + 0.5 * log(M_PI)) / (2.0 * t);
    for (int i = 0; i < 6; i++) {
        double e = erfc(x);
        x += (log(e) - log(y)) * e / (M_2_SQRTPI * exp(-x * x));
    }
    return x;
}
static inline float erfinvf(float y) { return (float)erfinv(y); }
static inline float erfcinvf(float y) { return (float)erfcinv(y); }
static inline double normcdf(double x) { return 0.5 * erfc(-x * M_SQRT1_2); }
static inline float normcdff(float x) { return (float)normcdf(x); }
static inline double normcdfinv(double p) { return -M_SQRT2 * erfcinv(2.0 * p); }
static inline float normcdfinvf(float p) { return (float)normcdfinv(p); }
// erfcx(x) = exp(x^2) erfc(x): directly where exp(x^2) is exact enough, else erfc's continued
// fraction, whose exp(-x^2) factor cancels
static inline double erfcx(double x) {
    if (x < 2.0) return x < -26.7 ? INFINITY : exp(x * x) * erfc(x);
    double t = x;
    for (int k = 160; k >= 1; k--) t = x + 0.5 * k / t;
    return 1.0 / (t * sqrt(M_PI));
}
static inline float erfcxf(float x) { return (float)erfcx(x); }
// the modified Bessel functions of the first kind, orders 0 (even) and 1 (odd): their power
// series, whose terms are all positive (libstdc++'s std::cyl_bessel_i may throw)
static inline double __sim_bessel_i(int n, double x) {
    double q = 0.25 * x * x, term = n == 0 ? 1.0 : 0.5 * x, sum = term;
    for (int k = 1; k < 2000 && term > 1e-17 * sum; k++) {
        term *= q / ((double)k * (k + n));
        sum += term;
    }
    return sum;
}
static inline double cyl_bessel_i0(double x) { return __sim_bessel_i(0, fabs(x)); }
static inline double cyl_bessel_i1(double x) { return copysign(__sim_bessel_i(1, fabs(x)), x); }
static inline float cyl_bessel_i0f(float x) { return (float)cyl_bessel_i0(x); }
static inline float cyl_bessel_i1f(float x) { return (float)cyl_bessel_i1(x); }
