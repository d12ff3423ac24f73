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
