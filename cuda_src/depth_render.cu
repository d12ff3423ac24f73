// A depth camera, simulated: ray casting of a small analytic scene, one thread per pixel.
//
// The scene is made of spheres and axis-aligned boxes, in world coordinates (metres; x to the
// right, y up, z forward). A floor and a wall are boxes too, thin and wide.
//
// The camera is a pinhole with intrinsics fx, fy, cx, cy (pixels). Pixel (u, v), column u and
// row v, looks along the direction
//     d = right * (u - cx) / fx + down * (v - cy) / fy + forward
// from the camera's centre, where right, down and forward are the camera's axes in the world
// (pose[3..11]). Because d has a component of exactly 1 along forward, a point o + t*d on the ray
// lies at depth Z = t in front of the camera: depth cameras report Z, not the distance along the
// ray. The geometry is computed in double precision, so that the rounding to millimetres below
// gives the same image on every GPU and on the CPU simulator.
//
// What a real depth camera adds, and this kernel imitates:
// - millimetres in an unsigned 16-bit integer (0 to 65535 mm), 0 meaning "no measurement";
// - noise that grows with the square of the depth (stereo and structured light both behave so):
//   a standard deviation of noise_mm_at_1m * Z^2 millimetres, Z in metres;
// - no measurement where the projector (baseline metres to the right of the camera) cannot see
//   the point (the shadow beside an object), beyond max_range, and, at random, more often the
//   more obliquely the surface is seen.
// The randomness comes from a hash of the pixel's index and the seed, not from a generator that
// runs in sequence: every thread can compute its own numbers, and they are the same whatever the
// order the threads run in, on any device.
//
// depth[v * width + u] gets the depth in mm; label[v * width + u] the object the ray hit
// (0: nothing within max_range; 1 + k: sphere k; 1 + n_spheres + k: box k), also where the
// measurement was dropped, so that the true surface of every pixel is known.

#define NO_HIT 1e300

struct Hit {
    double t;              // depth Z of the hit (NO_HIT: none)
    int label;
    double nx, ny, nz;     // the surface's normal at the hit, world coordinates, unit length
};

// "lowbias32", a 32-bit integer hash by Chris Wellons: every input bit changes about half the
// output bits.
__device__ unsigned int mix32(unsigned int x)
{
    x ^= x >> 16;
    x *= 0x7feb352dU;
    x ^= x >> 15;
    x *= 0x846ca68bU;
    x ^= x >> 16;
    return x;
}

// Random number k (0 to 7) of a pixel: uniform in [0, 1), 24 bits, exact in a double.
__device__ double uniform(unsigned int pixel, unsigned int k, unsigned int seed)
{
    return (mix32(pixel * 8u + k + seed * 0x9e3779b9U) >> 8) * (1.0 / 16777216.0);
}

// The nearest t > t_min where the ray o + t*d enters sphere (cx, cy, cz, r); NO_HIT if none.
__device__ double sphere_t(const double *s, const double *o, const double *d, double t_min)
{
    double ox = o[0] - s[0], oy = o[1] - s[1], oz = o[2] - s[2];
    double a = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
    double b = ox * d[0] + oy * d[1] + oz * d[2];
    double c = ox * ox + oy * oy + oz * oz - s[3] * s[3];
    double disc = b * b - a * c;
    if (disc < 0.0)
        return NO_HIT;
    double t = (-b - sqrt(disc)) / a;
    return t > t_min ? t : NO_HIT;
}

// The t > t_min where the ray enters box (min x, y, z, max x, y, z), slab by slab; NO_HIT if
// none. *axis gets the axis of the face it enters through.
__device__ double box_t(const double *box, const double *o, const double *d, double t_min,
                        int *axis)
{
    double t_near = -NO_HIT, t_far = NO_HIT;
    for (int a = 0; a < 3; a++) {
        if (d[a] == 0.0) {                       // parallel to this pair of faces
            if (o[a] < box[a] || o[a] > box[3 + a])
                return NO_HIT;
            continue;
        }
        double t1 = (box[a] - o[a]) / d[a], t2 = (box[3 + a] - o[a]) / d[a];
        double lo = fmin(t1, t2), hi = fmax(t1, t2);
        if (lo > t_near) {
            t_near = lo;
            *axis = a;
        }
        t_far = fmin(t_far, hi);
    }
    return (t_near <= t_far && t_near > t_min) ? t_near : NO_HIT;
}

// The first object the ray o + t*d meets at t > t_min (t in units of d).
__device__ Hit cast(const double *o, const double *d, double t_min,
                    const double *spheres, int n_spheres, const double *boxes, int n_boxes)
{
    Hit hit = {NO_HIT, 0, 0.0, 0.0, 0.0};
    for (int k = 0; k < n_spheres; k++) {
        double t = sphere_t(spheres + 4 * k, o, d, t_min);
        if (t < hit.t) {
            const double *s = spheres + 4 * k;
            hit.t = t;
            hit.label = 1 + k;
            hit.nx = (o[0] + t * d[0] - s[0]) / s[3];
            hit.ny = (o[1] + t * d[1] - s[1]) / s[3];
            hit.nz = (o[2] + t * d[2] - s[2]) / s[3];
        }
    }
    for (int k = 0; k < n_boxes; k++) {
        int axis = 0;
        double t = box_t(boxes + 6 * k, o, d, t_min, &axis);
        if (t < hit.t) {
            hit.t = t;
            hit.label = 1 + n_spheres + k;
            hit.nx = axis == 0 ? (d[0] > 0.0 ? -1.0 : 1.0) : 0.0;   // facing the ray
            hit.ny = axis == 1 ? (d[1] > 0.0 ? -1.0 : 1.0) : 0.0;
            hit.nz = axis == 2 ? (d[2] > 0.0 ? -1.0 : 1.0) : 0.0;
        }
    }
    return hit;
}

// Is anything between the projector p and the point q (strictly between, not q itself)?
__device__ bool shadowed(const double *p, const double *q,
                         const double *spheres, int n_spheres, const double *boxes, int n_boxes)
{
    double d[3] = {q[0] - p[0], q[1] - p[1], q[2] - p[2]};
    Hit hit = cast(p, d, 1e-9, spheres, n_spheres, boxes, n_boxes);
    return hit.t < 1.0 - 1e-9;
}

// Millimetres measured for a surface at depth z (metres) seen at incidence cos_incidence, or 0.
__device__ unsigned short measure(double z, double cos_incidence, unsigned int pixel,
                                  unsigned int seed, double noise_mm_at_1m)
{
    // Oblique surfaces return less light: no measurement with a probability that grows from
    // 1% (facing the camera) to 61% (grazing).
    double p_drop = 0.01 + 0.6 * fmax(0.0, 1.0 - cos_incidence / 0.25);
    if (uniform(pixel, 4, seed) < p_drop)
        return 0;
    // Noise: the sum of four uniform numbers, centred and scaled to a standard deviation of 1,
    // is close to a normal distribution (and never beyond 2 * sqrt(3) = 3.46 of them).
    double n = (uniform(pixel, 0, seed) + uniform(pixel, 1, seed) + uniform(pixel, 2, seed)
                + uniform(pixel, 3, seed) - 2.0) * 1.7320508075688772;
    double mm = floor(z * 1000.0 + n * noise_mm_at_1m * z * z + 0.5);
    return (unsigned short)fmin(fmax(mm, 1.0), 65535.0);
}

__global__ void render_depth(unsigned short *depth, unsigned char *label, int width, int height,
                             double fx, double fy, double cx, double cy, const double *pose,
                             const double *spheres, int n_spheres,
                             const double *boxes, int n_boxes,
                             double baseline, double max_range, double noise_mm_at_1m,
                             unsigned int seed)
{
    int u = blockIdx.x * blockDim.x + threadIdx.x;   // column
    int v = blockIdx.y * blockDim.y + threadIdx.y;   // row
    if (u >= width || v >= height)
        return;
    int i = v * width + u;

    const double *o = pose, *right = pose + 3, *down = pose + 6, *forward = pose + 9;
    double a = (u - cx) / fx, b = (v - cy) / fy;
    double d[3];
    for (int k = 0; k < 3; k++)
        d[k] = right[k] * a + down[k] * b + forward[k];

    Hit hit = cast(o, d, 1e-9, spheres, n_spheres, boxes, n_boxes);
    if (hit.t > max_range) {
        depth[i] = 0;
        label[i] = 0;
        return;
    }
    label[i] = (unsigned char)hit.label;
    double q[3] = {o[0] + hit.t * d[0], o[1] + hit.t * d[1], o[2] + hit.t * d[2]};
    double p[3] = {o[0] + baseline * right[0], o[1] + baseline * right[1],
                   o[2] + baseline * right[2]};
    if (shadowed(p, q, spheres, n_spheres, boxes, n_boxes)) {
        depth[i] = 0;
        return;
    }
    double length = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
    double cos_incidence = fabs(hit.nx * d[0] + hit.ny * d[1] + hit.nz * d[2]) / length;
    depth[i] = measure(hit.t, cos_incidence, (unsigned int)i, seed, noise_mm_at_1m);
}
