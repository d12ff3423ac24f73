// Float kernels for bench/float_identity.py: arithmetic whose last bits depend on whether
// multiply-adds are fused (one rounding) or not (two), as nvcc fuses them by default.

#define TILE 16

// C = A B for n x n matrices (n a multiple of TILE), one element a thread, through shared tiles.
__global__ void matmul_tiled(const float *a, const float *b, float *c, int n)
{
    __shared__ float as[TILE][TILE], bs[TILE][TILE];
    int row = blockIdx.y * TILE + threadIdx.y, col = blockIdx.x * TILE + threadIdx.x;
    float sum = 0.0f;
    for (int t = 0; t < n; t += TILE) {
        as[threadIdx.y][threadIdx.x] = a[row * n + t + threadIdx.x];
        bs[threadIdx.y][threadIdx.x] = b[(t + threadIdx.y) * n + col];
        __syncthreads();
        for (int k = 0; k < TILE; k++)
            sum += as[threadIdx.y][k] * bs[k][threadIdx.x];
        __syncthreads();
    }
    c[row * n + col] = sum;
}

// y = c[0] + x (c[1] + x (c[2] + ... + x c[degree])), by Horner's rule.
__global__ void horner(const float *x, const float *coeffs, int degree, float *y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float v = x[i], acc = coeffs[degree];
    for (int k = degree - 1; k >= 0; k--)
        acc = acc * v + coeffs[k];
    y[i] = acc;
}

// A product made in one function and added in its caller. nvcc inlines a __device__ function
// and then fuses the multiply with the add (its PTX: fma.rn.f32), as it does within one function.
__device__ float weighted(float v, float w) { return v * w; }

__global__ void across_calls(const float *x, const float *y, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = weighted(x[i], 1.7f) + y[i];
}

// Sums of products: each but one is rounded on its own, one is fused into the add. Which one is
// the compiler's choice: g++ fuses the first; nvcc 13.0 (its PTX) the first in 0.299f * x +
// 0.587f * y, but the second of dot3's a.x * b.x + a.y * b.y below.
__device__ float dot3(float3 a, float3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }

__global__ void two_products(const float *x, const float *y, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    out[2 * i] = 0.299f * x[i] + 0.587f * y[i];
    out[2 * i + 1] = y[i] - dot3(make_float3(x[i], y[i], 0.5f), make_float3(y[i], 1.3f, x[i]));
}
