#!/usr/bin/env python3
"""numba-speed.py - the two kernels of tools/emu-speed.cu under numba's CUDA simulator.

    NUMBA_ENABLE_CUDASIM=1 is set here, so no GPU is needed:
    python3 tools/numba-speed.py [--threads N] [--matrix M]

The simulator runs every CUDA thread as a Python thread, thousands of times
slower than cuemu, so it is measured on smaller problems (a few seconds each)
and only the RATES are compared (tools/emu-vs-numba.sh prints the ratio):

  threads/s               vector add of N threads, 256 per block, no barrier
  barrier round trips/s   M x M tiled matmul, 16 x 16 tiles, two syncthreads per
                          tile: one round trip is one thread passing one barrier,
                          M * M * 2 * (M / 16) per launch, as in emu-speed.cu

Exit status 77 (and one line on stderr) when numba is not installed
(Debian: apt-get install python3-numba).
"""
import argparse
import os
import sys
import time

os.environ["NUMBA_ENABLE_CUDASIM"] = "1"  # read when numba is imported

try:
    import numpy as np
    from numba import cuda, float32
except ImportError:
    print("numba-speed: numba is not installed for %s "
          "(Debian: apt-get install python3-numba)" % sys.executable, file=sys.stderr)
    sys.exit(77)

TILE = 16
BLOCK = 256


@cuda.jit
def vector_add(a, b, c, n):
    i = cuda.blockIdx.x * cuda.blockDim.x + cuda.threadIdx.x
    if i < n:
        c[i] = a[i] + b[i]


@cuda.jit
def tiled_matmul(a, b, c, n):
    ta = cuda.shared.array((TILE, TILE), dtype=float32)
    tb = cuda.shared.array((TILE, TILE), dtype=float32)
    tx, ty = cuda.threadIdx.x, cuda.threadIdx.y
    row = cuda.blockIdx.y * TILE + ty
    col = cuda.blockIdx.x * TILE + tx
    total = float32(0.0)
    for t in range(n // TILE):
        ta[ty, tx] = a[row, t * TILE + tx]
        tb[ty, tx] = b[t * TILE + ty, col]
        cuda.syncthreads()  # the tile is loaded
        for k in range(TILE):
            total += ta[ty, k] * tb[k, tx]
        cuda.syncthreads()  # everyone is done with it before the next load
    c[row, col] = total


def timed(launch):
    start = time.perf_counter()
    launch()
    cuda.synchronize()
    return time.perf_counter() - start


def positive(text):
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError("must be at least 1, got %d" % value)
    return value


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--threads", type=positive, default=16384,
                        help="vector add threads (default 16384)")
    parser.add_argument("--matrix", type=positive, default=64,
                        help="matmul size, a multiple of 16 (default 64)")
    args = parser.parse_args()
    if args.matrix % TILE:
        parser.error("--matrix must be a multiple of %d, got %d" % (TILE, args.matrix))

    rng = np.random.default_rng()
    print("device: numba %s CUDA simulator (NUMBA_ENABLE_CUDASIM=1), Python %s"
          % (__import__("numba").__version__, sys.version.split()[0]))

    n = args.threads
    a = rng.uniform(-1, 1, n).astype(np.float32)
    b = rng.uniform(-1, 1, n).astype(np.float32)
    c = np.full(n, np.nan, dtype=np.float32)
    d_a, d_b, d_c = cuda.to_device(a), cuda.to_device(b), cuda.to_device(c)
    grid = (n + BLOCK - 1) // BLOCK
    seconds = timed(lambda: vector_add[grid, BLOCK](d_a, d_b, d_c, n))
    if not np.array_equal(d_c.copy_to_host(), a + b):  # one float add: exact
        sys.exit("numba-speed: vector add gave a wrong result")
    threads_per_s = n / seconds
    print("vector add, %d threads in %.3f s: %.0f threads/s" % (n, seconds, threads_per_s))

    m = args.matrix
    x = rng.uniform(-1, 1, (m, m)).astype(np.float32)
    y = rng.uniform(-1, 1, (m, m)).astype(np.float32)
    z = np.full((m, m), np.nan, dtype=np.float32)
    d_x, d_y, d_z = cuda.to_device(x), cuda.to_device(y), cuda.to_device(z)
    blocks = (m // TILE, m // TILE)
    seconds = timed(lambda: tiled_matmul[blocks, (TILE, TILE)](d_x, d_y, d_z, m))
    # m float products summed in float: a rounding error of a few m * 2^-24.
    reference = x.astype(np.float64) @ y.astype(np.float64)
    if not np.allclose(d_z.copy_to_host(), reference, atol=1e-3, rtol=1e-4):
        sys.exit("numba-speed: tiled matmul gave a wrong result")
    round_trips = m * m * 2 * (m // TILE)
    round_trips_per_s = round_trips / seconds
    print("tiled matmul %dx%d, %d barrier round trips in %.3f s: %.0f round trips/s"
          % (m, m, round_trips, seconds, round_trips_per_s))

    print("numba-speed: threads_per_s=%.4g barrier_round_trips_per_s=%.4g"
          % (threads_per_s, round_trips_per_s))


if __name__ == "__main__":
    main()
