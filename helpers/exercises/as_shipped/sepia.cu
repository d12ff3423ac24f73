// Exercise: sepia tone on an interleaved RGB image, one thread per pixel.
//
// The image is laid out like the one in the grayscale kernel (cuda_src/grayscale.cu): pixel
// i = y * width + x has red, green and blue at rgb[3*i], rgb[3*i + 1], rgb[3*i + 2]. The output
// has the same layout. Each output channel mixes all three input channels:
//
//     R' = 0.393 R + 0.769 G + 0.189 B
//     G' = 0.349 R + 0.686 G + 0.168 B
//     B' = 0.272 R + 0.534 G + 0.131 B
//
// Round each to the nearest integer, and clamp it to 255: the sums can go past 255 (a white
// pixel gives R' = 344.5), and a float above 255 converted to unsigned char does not stop at 255.
//
// The launch is a 2D grid rounded up to whole blocks: x runs along a row, y down the image, and
// threads outside the image must not write anything.
//
// Check your kernel in the notebook with:
//   from helpers.exercises.sepia import check_sepia
//   check_sepia()

__global__ void sepia(const unsigned char *rgb, unsigned char *out, int width, int height)
{
    int x = threadIdx.x;   // TODO: this is only right in block 0: add the block's offset
    int y = threadIdx.y;   // TODO: same for y
    // TODO: threads outside the image (x >= width or y >= height) must return here

    int i = y * width + x;
    float r = rgb[3 * i], g = rgb[3 * i + 1], b = rgb[3 * i + 2];

    // TODO: apply the sepia matrix, round, and clamp each channel to 255.
    //       For now the pixel is copied unchanged.
    out[3 * i]     = (unsigned char)r;   // TODO
    out[3 * i + 1] = (unsigned char)g;   // TODO
    out[3 * i + 2] = (unsigned char)b;   // TODO
}
