#!/usr/bin/env python3
"""estimated.py - ./tutorial bench's ESTIMATED GFLOP/s on a GPU model, from cuemu's profile.

  estimated.py --profiles DIR --out DIR --date DATE
Reads, from --profiles, lessonNN.txt and lessonNN.csv for lessons 08, 09 and 19: what
their solutions printed with --bench while CUEMU_PROFILE=lessonNN.csv and CUEMU_GPU
were set. Writes into --out:
  matmul_estimated.csv, matmul_estimated.png            naive (08) and tiled (09), across N
  sgemm_ladder_estimated.csv, sgemm_ladder_estimated.png every rung, across N
The figures are 2 N^3 FLOPs over the time cuemu's model estimates for one launch on the
GPU model the profile names: an estimate, never a measurement, and never drawn on the
same axis as the CPU-measured times of plot.py. Anything that stops the estimate (no
profile, a profile without the profiler's columns, launches that do not line up with
the program's table) is one line "tutorial: bench: no estimated GFLOP/s: ..." and exit
status 0: the estimate is an extra, and bench must not fail for want of it.
"""
import argparse
import os
import statistics
import sys

import plot  # tools/bench/plot.py: the tables' parsers and the plots' style

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import profile_report  # noqa: E402  tools/profile_report.py: the profile's reader

MATMUL_SERIES = {
    "08": ["naive, threadIdx.x -> column (08)", "naive, threadIdx.x -> row (08)"],
    "09": ["naive, 16 x 16 (09)", "tiled, 8 x 8 (09)", "tiled, 16 x 16 (09)",
           "tiled, 32 x 32 (09)"],
}
TABLE_WIDTH = {"08": 7, "09": 9}  # numbers per row of the lessons' --bench tables


class Skip(Exception):
    """Why there is no estimate: said in one line, and bench goes on."""


def table_failure(message):
    raise Skip(message)


# plot.py's parsers stop the program on a table they cannot read; here that only
# means no estimate.
plot.die = table_failure


def launch_groups(launches):
    """Runs of consecutive launches of one kernel with one grid and block, in order.

    A --bench mode launches each kernel several times in a row at one size (warm-up,
    timing), so each run of launches is one cell of the program's table. cuBLAS does
    its work without kernel launches of ours; anything named like it is left out.
    """
    groups = []
    for row in launches:
        if "cublas" in row["kernel"].lower():
            continue
        key = (row["kernel"], row["grid"], row["block"])
        if groups and groups[-1]["key"] == key:
            groups[-1]["launches"].append(row)
        else:
            groups.append({"key": key, "launches": [row]})
    return groups


def read_profile(csv_path):
    if not os.path.exists(csv_path):
        raise Skip(f"the emulator wrote no {os.path.basename(csv_path)}"
                   " (its profiler, CUEMU_PROFILE, is not built in)")
    try:
        return profile_report.read_profile(csv_path)
    except profile_report.BadInput as e:
        raise Skip(str(e)) from None


def estimates(txt_path, csv_path, cells):
    """(N, series, estimated us, GFLOP/s, limiter, GPU) for each (N, series) in cells."""
    launches = read_profile(csv_path)
    groups = launch_groups(launches)
    if len(groups) != len(cells):
        raise Skip(f"{os.path.basename(csv_path)}: {len(groups)} runs of launches for the"
                   f" {len(cells)} cells of {os.path.basename(txt_path)}'s table")
    kernel_of = {}
    rows = []
    for (n, series), group in zip(cells, groups):
        kernel, _, block = group["key"]
        # One series is one kernel with one block shape at every size; anything else
        # means the launches and the table did not line up.
        if kernel_of.setdefault(series, (kernel, block)) != (kernel, block):
            raise Skip(f"{os.path.basename(csv_path)}: '{series}' ran as {kernel_of[series]}"
                       f" and as {(kernel, block)}")
        time_us = statistics.median(r["cuemu__estimated_time_us"] for r in group["launches"])
        limiter = group["launches"][0]["cuemu__limiter"]
        rows.append((n, series, time_us, 2.0 * n ** 3 / (time_us * 1e-6) / 1e9, limiter,
                     group["launches"][0]["gpu"]))
    return rows


def matmul_cells(nn, txt_path):
    sizes = [int(r[0]) for r in plot.numeric_rows(txt_path, TABLE_WIDTH[nn])]
    return [(n, series) for n in sizes for series in MATMUL_SERIES[nn]]


def ladder_cells(txt_path):
    return [(n, rung) for n, rung, *_ in plot.ladder_rows(txt_path)
            if not rung.startswith("cuBLAS")]


HEADER = ["n", "kernel", "estimated_us", "estimated_gflop_per_s", "limiter", "gpu_model"]


def draw(rows, out, name, title, label, gpu):
    plot.write_csv(os.path.join(out, f"{name}.csv"), HEADER, rows)
    fig, ax = plot.loglog(title, "N (square, N x N)",
                          f"GFLOP/s ESTIMATED on {gpu['name']} (not measured)", label)
    for series in dict.fromkeys(r[1] for r in rows):
        points = [(r[0], r[3]) for r in rows if r[1] == series]
        ax.plot([p[0] for p in points], [p[1] for p in points], "o-", label=series)
    ax.axhline(gpu["fp32_gflops"], color="crimson", linestyle="--",
               label=f"{gpu['name']} FP32 peak: {gpu['fp32_gflops']:.0f} GFLOP/s")
    ax.set_xscale("log", base=2)
    ax.legend(fontsize=8, loc="center left", bbox_to_anchor=(1.01, 0.5))
    fig.subplots_adjust(right=0.68, bottom=0.25)  # room for the three-line caption
    fig.savefig(os.path.join(out, f"{name}.png"))


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--profiles", required=True)
    p.add_argument("--out", required=True)
    p.add_argument("--date", required=True)
    a = p.parse_args()

    def files(nn):
        return (os.path.join(a.profiles, f"lesson{nn}.txt"),
                os.path.join(a.profiles, f"lesson{nn}.csv"))
    matmul = []
    for nn in ("08", "09"):
        txt, csv_path = files(nn)
        matmul += estimates(txt, csv_path, matmul_cells(nn, txt))
    txt, csv_path = files("19")
    ladder = estimates(txt, csv_path, ladder_cells(txt))
    models = {r[5] for r in matmul + ladder}
    if len(models) != 1:
        raise Skip(f"the profiles are for different GPU models ({', '.join(sorted(models))})")
    gpus = profile_report.read_gpus(profile_report.DEFAULT_GPUS)
    gpu = gpus[models.pop()]
    label = (f"ESTIMATED on {gpu['name']} ({gpu['full_name']}) by cuemu's model\n"
             "from the emulator's counters: not measured on any GPU\n"
             f"{a.date} · docs/profiler.md says what the model leaves out")
    draw(matmul, a.out, "matmul_estimated",
         f"Matrix multiply, estimated on {gpu['name']} by cuemu's model", label, gpu)
    draw(ladder, a.out, "sgemm_ladder_estimated",
         f"SGEMM ladder, estimated on {gpu['name']} by cuemu's model", label, gpu)
    print(f"tutorial: bench: estimated GFLOP/s on {gpu['name']} by cuemu's model:"
          " matmul_estimated and sgemm_ladder_estimated (.csv, .png)", file=sys.stderr)


if __name__ == "__main__":
    try:
        main()
    except (Skip, profile_report.BadInput) as e:
        print(f"tutorial: bench: no estimated GFLOP/s: {e}", file=sys.stderr)
