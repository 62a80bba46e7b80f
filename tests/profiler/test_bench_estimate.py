#!/usr/bin/env python3
"""test_bench_estimate.py CASE SOURCE_DIR - tools/bench/estimated.py, bench's estimated GFLOP/s.

Builds, in a temporary folder, what bench.sh leaves for it: each lesson's --bench text
(only the table rows that plot.py reads) and a profile CSV in the format of
docs/profiler.md whose launches follow the programs' order (several launches per cell,
as warm-up and timing do). Every launch of the kernel at size N is estimated at N us,
so the GFLOP/s expected follow by hand: 2 N^3 / (N us) = 2 N^2 / 1000 GFLOP/s.
  lines-up     the tables and plots appear, with those figures and the GPU model's name
  no-profiler  a profile without the profiler's columns, or none: one line, exit 0, no files
  misaligned   a launch missing from the profile: one line, exit 0, no files
"""
import csv
import os
import subprocess
import sys
import tempfile

CASE, ROOT = sys.argv[1], os.path.abspath(sys.argv[2])
ESTIMATED = os.path.join(ROOT, "tools", "bench", "estimated.py")
FIXTURE = os.path.join(ROOT, "tests", "profiler", "fixtures", "three_kernels.csv")
failures = []

SIZES = [64, 128]
LESSON08 = "".join(f"{n} 1.0 2.0 3.0 4.0 5.0 6.0x\n" for n in SIZES)
LESSON09 = "".join(f"{n} 1.0 2.0 3.0 4.0 5.0 6.0 7.0 8.0\n" for n in SIZES)
RUNGS = ["1 naive", "2 coalesced"]
LESSON19 = "".join(
    f"N = {n}\n" + f"{'cuBLAS (cublasSgemm)':<22} 1.000 2.00 100.0%   PASS\n"
    + "".join(f"{rung:<22} 1.000 2.00 50.0%   PASS\n" for rung in RUNGS) for n in SIZES)
# The kernels each table cell launches, with a block shape: (kernel, block) per series.
KERNELS = {
    "08": [("matmul_kernel", "16,16,1"), ("matmul_rows_from_x_kernel", "16,16,1")],
    "09": [("naive_matmul_kernel", "16,16,1"), ("tiled_matmul_kernel", "8,8,1"),
           ("tiled_matmul_kernel", "16,16,1"), ("tiled_matmul_kernel", "32,32,1")],
    "19": [("sgemm_naive", "32,32,1"), ("sgemm_coalesced", "32,32,1")],
}


def check(condition, what):
    print(("ok:   " if condition else "FAIL: ") + what)
    if not condition:
        failures.append(what)


def profile_rows(nn, drop_one=False):
    with open(FIXTURE) as f:
        header = next(csv.reader(line for line in f if not line.startswith("#")))
    rows, launch = [], 0
    for n in SIZES:
        for kernel, block in KERNELS[nn]:
            for _ in range(3):  # warm-up and timing: one cell, several launches
                launch += 1
                row = {column: 0 for column in header}
                row.update({"launch": launch, "kernel": kernel, "grid": f"{n // 16},{n // 16},1",
                            "block": block, "gpu": "A100", "cuemu__estimated_time_us": float(n),
                            "cuemu__limiter": "fp32", "cuemu__worst_global_site": "",
                            "cuemu__worst_shared_site": ""})
                rows.append(row)
    if drop_one:
        del rows[3:6]  # the second cell's launches: the profile no longer lines up
    return header, rows


def lay_out(folder, drop_one=False, strip_columns=False):
    for nn, text in (("08", LESSON08), ("09", LESSON09), ("19", LESSON19)):
        with open(os.path.join(folder, f"lesson{nn}.txt"), "w") as f:
            f.write(text)
        header, rows = profile_rows(nn, drop_one and nn == "09")
        if strip_columns:
            header = [c for c in header if not c.startswith("cuemu__")]
        with open(os.path.join(folder, f"lesson{nn}.csv"), "w", newline="") as f:
            out = csv.DictWriter(f, header, extrasaction="ignore")
            out.writeheader()
            out.writerows(rows)


def run(folder):
    out = os.path.join(folder, "out")
    os.makedirs(out, exist_ok=True)
    done = subprocess.run([sys.executable, ESTIMATED, "--profiles", folder, "--out", out,
                           "--date", "2026-01-01"], capture_output=True, text=True)
    return done.returncode, done.stderr, out


def expect_skip(folder, needle):
    rc, err, out = run(folder)
    lines = err.splitlines()
    check(rc == 0, f"exit code 0: bench goes on (got {rc})")
    check(len(lines) == 1 and lines[0].startswith("tutorial: bench: no estimated GFLOP/s: ")
          and needle in lines[0], f"one line saying why, naming '{needle}' (got {lines!r})")
    check(os.listdir(out) == [], f"no tables or plots ({os.listdir(out)})")


def case_lines_up():
    with tempfile.TemporaryDirectory() as folder:
        lay_out(folder)
        rc, err, out = run(folder)
        check(rc == 0 and "estimated GFLOP/s on A100" in err, f"it ran ({rc}, {err.strip()!r})")
        for name in ("matmul_estimated", "sgemm_ladder_estimated"):
            check(os.path.exists(os.path.join(out, f"{name}.png")), f"{name}.png written")
        with open(os.path.join(out, "sgemm_ladder_estimated.csv")) as f:
            ladder = list(csv.DictReader(f))
        check([(r["n"], r["kernel"]) for r in ladder] ==
              [(str(n), rung) for n in SIZES for rung in RUNGS],
              "the ladder's rows: every rung but cuBLAS at every N, in order")
        check(all(abs(float(r["estimated_gflop_per_s"]) - 2 * int(r["n"]) ** 2 / 1000) < 1e-6
                  and r["gpu_model"] == "A100" for r in ladder),
              "2 N^3 FLOPs over the estimated N us, on the profile's GPU model")
        with open(os.path.join(out, "matmul_estimated.csv")) as f:
            matmul = list(csv.DictReader(f))
        check(len(matmul) == 2 * 2 + 2 * 4 and matmul[0]["kernel"].endswith("(08)")
              and matmul[-1]["kernel"] == "tiled, 32 x 32 (09)" and matmul[-1]["n"] == "128",
              "the matmul rows: lesson 08's two mappings and lesson 09's four kernels")


def case_no_profiler():
    with tempfile.TemporaryDirectory() as folder:
        lay_out(folder, strip_columns=True)
        expect_skip(folder, "cuemu__")
    with tempfile.TemporaryDirectory() as folder:
        lay_out(folder)
        os.remove(os.path.join(folder, "lesson08.csv"))
        expect_skip(folder, "lesson08.csv")


def case_misaligned():
    with tempfile.TemporaryDirectory() as folder:
        lay_out(folder, drop_one=True)
        expect_skip(folder, "lesson09")


CASES = {"lines-up": case_lines_up, "no-profiler": case_no_profiler, "misaligned": case_misaligned}

if __name__ == "__main__":
    CASES[CASE]()
    if failures:
        print(f"{len(failures)} check(s) failed")
        sys.exit(1)
