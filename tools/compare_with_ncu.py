#!/usr/bin/env python3
"""compare_with_ncu.py - the emulator's profile beside Nsight Compute's, metric by metric.

    tools/compare_with_ncu.py EMULATOR.csv NCU.csv [--markdown]

EMULATOR.csv: written by a program run with CUEMU_PROFILE (docs/profiler.md).
NCU.csv: the same program, same flags, on a GPU:
    ncu --csv --print-units base --metrics $(tools/profile_report.py --ncu-metrics) PROGRAM ARGS > NCU.csv
(ncu prints one row per launch and metric: "ID", "Kernel Name", "Metric Name",
"Metric Value", ...). Launches are paired in order, and each pair must name the
same kernel. For every metric both files have, prints the emulator's value, the
GPU's and their ratio; counters that should agree exactly are marked when they
do not. The estimated time (cuemu__estimated_time_us) is set beside ncu's
gpu__time_duration.sum. Exit code 0 when the files could be compared (whatever
the differences), 2 with one line when they could not.
"""
import csv
import sys

# Counted by the emulator with NVIDIA's definitions: equal on a GPU, or a difference to explain.
EXACT = ("l1tex__t_requests_", "l1tex__t_sectors_", "smsp__inst_executed_op_shared",
         "l1tex__data_pipe_lsu_wavefronts", "l1tex__data_bank_conflicts", "smsp__sass_thread_inst")


def fail(message):
    print(f"compare_with_ncu: {message}", file=sys.stderr)
    sys.exit(2)


def number(text):
    try:
        return float(text.replace(",", ""))
    except ValueError:
        return None


def read_emulator(path):
    try:
        with open(path, newline="") as f:
            rows = list(csv.DictReader(line for line in f if not line.startswith("#")))
    except OSError as e:
        fail(f"cannot read {path}: {e.strerror}")
    if not rows or "kernel" not in rows[0]:
        fail(f"{path} is not a profile written with CUEMU_PROFILE")
    return rows


def read_ncu(path):
    try:
        with open(path, newline="") as f:
            lines = [line for line in f if line.startswith('"')]  # ncu's own notes start with ==
    except OSError as e:
        fail(f"cannot read {path}: {e.strerror}")
    rows = list(csv.DictReader(lines))
    need = {"ID", "Kernel Name", "Metric Name", "Metric Value"}
    if not rows or not need <= set(rows[0]):
        fail(f"{path} is not ncu --csv output (columns {', '.join(sorted(need))})")
    launches = {}
    for row in rows:
        launch = launches.setdefault(int(row["ID"]), {"kernel": row["Kernel Name"], "metrics": {}})
        launch["metrics"][row["Metric Name"]] = number(row["Metric Value"])
    return [launches[i] for i in sorted(launches)]


def plain_name(kernel):
    """'void k<(P)0>(const float *, int)' or 'k(float*)' -> 'k'."""
    name = kernel.split("(")[0].strip()
    if name.startswith("void "):
        name = name[5:]
    return name.split("<")[0].strip()


def main(argv):
    if len(argv) < 3 or argv[1] in ("-h", "--help"):
        print(__doc__.strip())
        return 0 if len(argv) > 1 and argv[1] in ("-h", "--help") else 2
    emulator, gpu = read_emulator(argv[1]), read_ncu(argv[2])
    if len(emulator) != len(gpu):
        fail(f"{len(emulator)} launches in {argv[1]}, {len(gpu)} in {argv[2]}: not the same run")
    rows, differences = [], 0
    for emu, measured in zip(emulator, gpu):
        if plain_name(emu["kernel"]) != plain_name(measured["kernel"]):
            fail(f"launch {emu['launch']}: {emu['kernel']} here, {measured['kernel']} on the GPU")
        pairs = [(m, number(emu[m]), v) for m, v in measured["metrics"].items() if m in emu]
        if "gpu__time_duration.sum" in measured["metrics"]:
            # ncu's duration is in ns with --print-units base; the estimate in us.
            ns = measured["metrics"]["gpu__time_duration.sum"]
            pairs.append(("time (us): cuemu__estimated_time_us vs gpu__time_duration.sum",
                          number(emu["cuemu__estimated_time_us"]), ns / 1000 if ns is not None else None))
        for metric, here, there in pairs:
            exact = metric.startswith(EXACT)
            differs = exact and here != there
            differences += differs
            ratio = f"{here / there:.3f}" if here is not None and there else "-"
            rows.append((emu["launch"], plain_name(emu["kernel"]), metric, here, there, ratio,
                         "DIFFERS" if differs else ""))
    markdown = "--markdown" in argv
    if markdown:
        print("| launch | kernel | metric | emulator | GPU | ratio | |")
        print("|---|---|---|---|---|---|---|")
    for launch, kernel, metric, here, there, ratio, mark in rows:
        cells = [launch, kernel, metric, f"{here:g}" if here is not None else "-",
                 f"{there:g}" if there is not None else "-", ratio, mark]
        print("| " + " | ".join(map(str, cells)) + " |" if markdown else "  ".join(map(str, cells)))
    print(f"{len(emulator)} launches compared; {differences} exact counter(s) differ")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
