#!/usr/bin/env python3
"""plot.py - ./tutorial bench's tables and plots, from the lessons' --bench output.

Reads what the solutions of lessons 05 (vector add), 08 (naive matrix
multiply against the CPU) and 09 (naive against tiled) print with --bench,
and, on a GPU, copy_bandwidth's line. Writes into --out:
  vector_add.csv, matmul.csv, copy_bandwidth.csv (GPU only), environment.txt
  vector_add.png            CPU vs GPU kernel vs GPU with copies, across n
  vector_add_bandwidth.png  the kernel's GB/s across n, under the copy
                            bandwidth ceiling where a GPU measured one
  matmul.png                CPU vs naive vs tiled, across N
and, from lesson 19's --bench (--ladder):
  sgemm_ladder.csv          every rung and cuBLAS: N, ms, GFLOP/s, % of cuBLAS
  sgemm_ladder.png          GFLOP/s of every rung and of cuBLAS, across N
  sgemm_ladder_percent.png  each rung's % of cuBLAS at the largest N measured
Every plot has log axes and a caption naming the device, the date, and
whether the "GPU" was the CPU emulator. Rows are read as the lines of each
table that hold only numbers, so a change to a table's layout that this
script does not expect stops it with an error instead of plotting nonsense.
"""
import argparse
import csv
import os
import re
import sys

import matplotlib

matplotlib.use("Agg")  # files only, no display
import matplotlib.pyplot as plt  # noqa: E402


def die(message):
    print(f"tutorial: bench: {message}", file=sys.stderr)
    sys.exit(2)


def number(text):
    return float(text.rstrip("x"))


def numeric_rows(path, width):
    """The lines of a table with exactly `width` numbers (an 'x' suffix allowed)."""
    rows = []
    with open(path) as f:
        for line in f:
            fields = line.split()
            if len(fields) == width and all(re.fullmatch(r"-?[0-9.]+x?", x) for x in fields):
                rows.append([number(x) for x in fields])
    if not rows:
        die(f"{path}: found no table rows of {width} numbers; did the lesson's --bench output change?")
    return rows


def device_name(path):
    with open(path) as f:
        text = f.read()
    found = re.search(r"vector add, on (.+)", text) or re.search(r"device 0: (.+)", text)
    if not found:
        die(f"{path}: the device's name is not in the output")
    return found.group(1).strip()


def write_csv(path, header, rows):
    with open(path, "w", newline="") as f:
        out = csv.writer(f)
        out.writerow(header)
        out.writerows(rows)


def caption(device, date, emulated):
    where = ("CPU emulator: the \"GPU\" times are CPU times, not a GPU's"
             if emulated else "measured on a real GPU")
    return f"{device}\n{date} · {where}"


def loglog(title, xlabel, ylabel, label):
    fig, ax = plt.subplots(figsize=(8, 5.2), dpi=110)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_title(title, fontsize=12)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.grid(True, which="both", alpha=0.3)
    fig.text(0.5, 0.01, label, ha="center", va="bottom", fontsize=8.5, color="#444")
    fig.subplots_adjust(bottom=0.2)
    return fig, ax


LADDER_ROW = re.compile(r"^(cuBLAS \(cublasSgemm\)|\d [A-Za-z0-9 ]+?)\s+([0-9.]+)\s+([0-9.]+)\s+"
                        r"([0-9.]+)%\s+(PASS|FAIL)$")


def ladder_rows(path):
    """Lesson 19's --bench: (N, rung, ms, GFLOP/s, % of cuBLAS, check) per line."""
    rows, size = [], None
    with open(path) as f:
        for line in f:
            heading = re.fullmatch(r"N = (\d+)", line.strip())
            if heading:
                size = int(heading.group(1))
                continue
            found = LADDER_ROW.match(line.rstrip())
            if found and size:
                rows.append((size, found.group(1), float(found.group(2)), float(found.group(3)),
                             float(found.group(4)), found.group(5)))
    if not rows:
        die(f"{path}: found no rows of the SGEMM ladder; did lesson 19's --bench output change?")
    return rows


def plot_ladder(path, out, label, gpu):
    rows = ladder_rows(path)
    write_csv(os.path.join(out, "sgemm_ladder.csv"),
              ["n", "rung", "ms", "gflop_per_s", "percent_of_cublas", "check"], rows)
    rungs = list(dict.fromkeys(r[1] for r in rows))  # in the program's order
    fig, ax = loglog(f"SGEMM ladder ({gpu}): every rung and cuBLAS", "N (square, N x N)",
                     "GFLOP/s", label)
    for rung in rungs:
        points = [(r[0], r[3]) for r in rows if r[1] == rung]
        cublas = rung.startswith("cuBLAS")
        ax.plot([p[0] for p in points], [p[1] for p in points], "k-" if cublas else "o-",
                linewidth=3 if cublas else 1.5, label=rung)
    ax.set_xscale("log", base=2)
    ax.legend(fontsize=8, loc="center left", bbox_to_anchor=(1.01, 0.5))
    fig.subplots_adjust(right=0.72)
    fig.savefig(os.path.join(out, "sgemm_ladder.png"))

    largest = max(r[0] for r in rows)
    at_largest = [r for r in rows if r[0] == largest and not r[1].startswith("cuBLAS")]
    fig, ax = plt.subplots(figsize=(8, 5.2), dpi=110)
    ax.barh([r[1] for r in at_largest][::-1], [r[4] for r in at_largest][::-1], color="#4a90d9")
    for i, r in enumerate(at_largest[::-1]):
        ax.text(r[4], i, f" {r[4]:.1f} %", va="center", fontsize=9)
    ax.set_xlabel(f"% of cuBLAS SGEMM speed at N = {largest} (same run)")
    ax.set_title(f"SGEMM ladder ({gpu}): how close each rung comes to cuBLAS", fontsize=12)
    fig.text(0.5, 0.01, label, ha="center", va="bottom", fontsize=8.5, color="#444")
    fig.subplots_adjust(bottom=0.2, left=0.25)
    fig.savefig(os.path.join(out, "sgemm_ladder_percent.png"))


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--out", required=True)
    p.add_argument("--date", required=True)
    p.add_argument("--vector-add", required=True)
    p.add_argument("--matmul", required=True)
    p.add_argument("--tiled", required=True)
    p.add_argument("--bandwidth")
    p.add_argument("--ladder")
    a = p.parse_args()

    device = device_name(a.vector_add)
    emulated = "emulator" in device.lower()
    label = caption(device, a.date, emulated)

    # Lesson 05: n, runs, CPU ms, kernel ms, end-to-end ms, two speed-ups.
    vector = numeric_rows(a.vector_add, 7)
    write_csv(os.path.join(a.out, "vector_add.csv"),
              ["n", "runs", "cpu_ms", "gpu_kernel_ms", "gpu_with_copies_ms"],
              [[int(r[0]), int(r[1]), r[2], r[3], r[4]] for r in vector])
    # Lesson 08: N, CPU ms, x->column ms, GFLOP/s, x->row ms, GFLOP/s, ratio.
    naive = {int(r[0]): r for r in numeric_rows(a.matmul, 7)}
    # Lesson 09: N, then ms and GFLOP/s for naive 16x16, tiled 8, 16 and 32.
    tiled = {int(r[0]): r for r in numeric_rows(a.tiled, 9)}
    sizes = sorted(set(naive) | set(tiled))

    def cell(table, n, i):
        return table[n][i] if n in table else ""
    write_csv(os.path.join(a.out, "matmul.csv"),
              ["n", "cpu_ms", "naive_ms", "naive_rows_from_x_ms", "tiled8_ms", "tiled16_ms",
               "tiled32_ms"],
              [[n, cell(naive, n, 1), cell(naive, n, 2), cell(naive, n, 4), cell(tiled, n, 3),
                cell(tiled, n, 5), cell(tiled, n, 7)] for n in sizes])

    ceiling = None
    if a.bandwidth:
        with open(a.bandwidth) as f:
            found = re.search(r"bytes=(\d+) ms=([0-9.]+) GBps=([0-9.]+)", f.read())
        if not found:
            die(f"{a.bandwidth}: no copy_bandwidth line")
        ceiling = float(found.group(3))
        write_csv(os.path.join(a.out, "copy_bandwidth.csv"), ["bytes", "ms", "gb_per_s"],
                  [[int(found.group(1)), float(found.group(2)), ceiling]])

    gpu = "emulated GPU" if emulated else "GPU"
    n = [r[0] for r in vector]
    fig, ax = loglog("Vector add c = a + b: CPU vs GPU", "n (elements)", "time (ms, median)", label)
    ax.plot(n, [r[2] for r in vector], "o-", label="CPU loop (one core)")
    ax.plot(n, [r[3] for r in vector], "s-", label=f"{gpu}: kernel only")
    ax.plot(n, [r[4] for r in vector], "^-", label=f"{gpu}: with copies in and out")
    ax.legend()
    fig.savefig(os.path.join(a.out, "vector_add.png"))

    fig, ax = loglog("Vector add: the kernel's memory traffic (12 bytes per element)",
                     "n (elements)", "GB/s", label)
    ax.plot(n, [12 * r[0] / (r[3] * 1e6) for r in vector], "s-", label=f"{gpu}: kernel only")
    if ceiling:
        ax.axhline(ceiling, color="crimson", linestyle="--",
                   label=f"device-to-device copy: {ceiling:.0f} GB/s (the ceiling)")
    else:
        ax.plot([], [], " ", label="(no copy-bandwidth ceiling: it is measured on a GPU only)")
    ax.legend(loc="best")
    fig.savefig(os.path.join(a.out, "vector_add_bandwidth.png"))

    fig, ax = loglog("Matrix multiply C = A B (N x N): CPU vs naive vs tiled", "N",
                     "time (ms)", label)
    series = [("CPU triple loop (one core)", naive, 1, "o-"),
              (f"{gpu}: naive, 16 x 16 threads", naive, 2, "s-"),
              (f"{gpu}: tiled, 16 x 16 tile", tiled, 5, "^-"),
              (f"{gpu}: tiled, 32 x 32 tile", tiled, 7, "v-")]
    for name, table, column, style in series:
        xs = [k for k in sorted(table)]
        ax.plot(xs, [table[k][column] for k in xs], style, label=name)
    ax.set_xscale("log", base=2)
    ax.legend()
    fig.savefig(os.path.join(a.out, "matmul.png"))

    if a.ladder:
        plot_ladder(a.ladder, a.out, label, gpu)

    with open(os.path.join(a.out, "environment.txt"), "w") as f:
        f.write(f"device: {device}\ndate: {a.date}\nemulator: {'yes' if emulated else 'no'}\n"
                f"sources: lessons 05, 08, 09{' and 19' if a.ladder else ''} (solutions) with --bench"
                f"{', tools/bench/copy_bandwidth.cu' if ceiling else ''}\n")


if __name__ == "__main__":
    main()
