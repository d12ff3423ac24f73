// sim_types.h -- CUDA's vector types and dim3, with the sizes and alignment of vector_types.h,
// and the per-thread built-in variables (threadIdx, blockIdx, blockDim, gridDim).
#pragma once

// ---- vector types (sizes and alignment as in CUDA's vector_types.h) ---------------------------
#define SIM_VEC1(T, B, A)                                                       \
    struct __attribute__((aligned(A))) T##1 { B x; };                          \
    static inline T##1 make_##T##1(B x) { T##1 v; v.x = x; return v; }
#define SIM_VEC2(T, B, A)                                                       \
    struct __attribute__((aligned(A))) T##2 { B x, y; };                       \
    static inline T##2 make_##T##2(B x, B y) { T##2 v; v.x = x; v.y = y; return v; }
#define SIM_VEC3(T, B, A)                                                       \
    struct __attribute__((aligned(A))) T##3 { B x, y, z; };                    \
    static inline T##3 make_##T##3(B x, B y, B z) {                             \
        T##3 v; v.x = x; v.y = y; v.z = z; return v; }
#define SIM_VEC4(T, B, A)                                                       \
    struct __attribute__((aligned(A))) T##4 { B x, y, z, w; };                 \
    static inline T##4 make_##T##4(B x, B y, B z, B w) {                        \
        T##4 v; v.x = x; v.y = y; v.z = z; v.w = w; return v; }
#define SIM_VECS(T, B, A1, A2, A3, A4) \
    SIM_VEC1(T, B, A1) SIM_VEC2(T, B, A2) SIM_VEC3(T, B, A3) SIM_VEC4(T, B, A4)

SIM_VECS(char, signed char, 1, 2, 1, 4)
SIM_VECS(uchar, unsigned char, 1, 2, 1, 4)
SIM_VECS(short, short, 2, 4, 2, 8)
SIM_VECS(ushort, unsigned short, 2, 4, 2, 8)
SIM_VECS(int, int, 4, 8, 4, 16)
SIM_VECS(uint, unsigned int, 4, 8, 4, 16)
SIM_VECS(long, long, 8, 16, 8, 16)
SIM_VECS(ulong, unsigned long, 8, 16, 8, 16)
SIM_VECS(longlong, long long, 8, 16, 8, 16)
SIM_VECS(ulonglong, unsigned long long, 8, 16, 8, 16)
SIM_VECS(float, float, 4, 8, 4, 16)
SIM_VECS(double, double, 8, 16, 8, 16)
// CUDA 13's four-element vectors of 8-byte values, aligned to 16 or to 32 bytes.
#define SIM_VEC4A(T, B, A)                                                      \
    struct __attribute__((aligned(A))) T##4_##A##a { B x, y, z, w; };          \
    static inline T##4_##A##a make_##T##4_##A##a(B x, B y, B z, B w) {          \
        T##4_##A##a v; v.x = x; v.y = y; v.z = z; v.w = w; return v; }
#define SIM_VEC4S(T, B) SIM_VEC4A(T, B, 16) SIM_VEC4A(T, B, 32)
SIM_VEC4S(long, long) SIM_VEC4S(ulong, unsigned long) SIM_VEC4S(longlong, long long)
SIM_VEC4S(ulonglong, unsigned long long) SIM_VEC4S(double, double)
#undef SIM_VEC4S
#undef SIM_VEC4A
#undef SIM_VECS
#undef SIM_VEC1
#undef SIM_VEC2
#undef SIM_VEC3
#undef SIM_VEC4

struct dim3 {
    unsigned int x, y, z;
    dim3(unsigned int vx = 1, unsigned int vy = 1, unsigned int vz = 1) : x(vx), y(vy), z(vz) {}
    dim3(uint3 v) : x(v.x), y(v.y), z(v.z) {}
    operator uint3() const { return make_uint3(x, y, z); }
};

// ---- built-in variables ----------------------------------------------------------------------
// Every simulated thread runs on a stack of its own, in a slot of kStackSize bytes aligned to
// kStackSize, whose top holds its Frame: threadIdx and friends are found from the stack pointer,
// with no thread-local lookups on the hot path. The top kStackUsable bytes of a slot are the stack
// (512 KiB of local arrays, as a GPU allows a thread, and room for calls); below them the slot
// may not be touched (machine/stacks.py maps the slots).
namespace sim {
constexpr uintptr_t kStackSize = 1024 * 1024;
constexpr uintptr_t kStackUsable = 576 * 1024;
struct Worker;
struct Frame {
    // below the rest, so that a local array's overrun running up the stack changes it first:
    // written with the others (sim_grid.h: restore_frame), checked when a thread fails
    // (sim_runtime.h: frame_intact), so that no fact is read from a Frame the kernel wrote over
    uint64_t seal;
    uint3 thread, block, block_dim, grid_dim;  // threadIdx, blockIdx, blockDim, gridDim
    Worker *worker;
};
// What a Frame's seal holds: its own address, scrambled (a word no kernel writes by chance).
__attribute__((always_inline)) inline uint64_t frame_seal(const Frame *f) {
    return (uint64_t)(uintptr_t)f * 0x9E3779B97F4A7C15ull ^ 0x5EA1ED5EA1ED5EA1ull;
}
// The Frame sits near the top of the stack, lowered by a "colour" taken from the stack's address:
// stacks kStackSize apart would otherwise put every Frame in the same cache set.
__attribute__((always_inline)) inline Frame *frame_at(uintptr_t address) {
    uintptr_t top = (address | (kStackSize - 1)) + 1;
    return (Frame *)(top - sizeof(Frame) - ((top / kStackSize) & 63) * 64);
}
__attribute__((always_inline)) inline Frame *frame() {
    return frame_at((uintptr_t)__builtin_frame_address(0));
}
}  // namespace sim
