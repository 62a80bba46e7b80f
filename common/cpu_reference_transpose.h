/* cpu_reference_transpose.h - the CPU transpose lesson 15 is checked against.
 *
 * Row-major, as everywhere in the tutorial: element (row, col) of a matrix
 * with `cols` columns lives at [row * cols + col]. The transpose of a
 * rows x cols matrix is cols x rows, so its rows are `rows` floats long.
 */
#ifndef TUTORIAL_CPU_REFERENCE_TRANSPOSE_H
#define TUTORIAL_CPU_REFERENCE_TRANSPOSE_H

/* out (cols x rows) = transpose of in (rows x cols): out[col][row] = in[row][col] */
static inline void cpu_transpose(const float* in, float* out, int rows, int cols) {
    for (int row = 0; row < rows; ++row)
        for (int col = 0; col < cols; ++col)
            out[(long long)col * rows + row] = in[(long long)row * cols + col];
}

#endif
