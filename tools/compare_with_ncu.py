#!/usr/bin/env python3
"""compare_with_ncu.py - the emulator's profile beside Nsight Compute's, metric by metric.

    tools/compare_with_ncu.py EMULATOR.csv NCU.csv [--markdown]

EMULATOR.csv: written by a program run with CUEMU_PROFILE (docs/profiler.md).
NCU.csv: the same program, same flags, on a GPU (add the two ..._op_red.sum
metrics to count atomics whose result is unused, as tools/gpu-check.sh does):
    ncu --csv --print-units base --metrics $(tools/profile_report.py --ncu-metrics) PROGRAM ARGS > NCU.csv
(ncu prints one row per launch and metric: "ID", "Kernel Name", "Metric Name",
"Metric Value", ...). Launches are paired kernel by kernel, in order; launch
counts that differ and kernels on one side only are noted at the end. For every
metric both files have, prints the emulator's value, the GPU's and their ratio;
counters that should agree exactly are marked when they do not. The estimated time (cuemu__estimated_time_us) is set beside ncu's
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
    # Launches are paired kernel by kernel, in order: the k-th launch of a kernel
    # here with its k-th launch on the GPU. Timing loops that repeat until a time
    # is reached launch a kernel more or fewer times on each side, and a library
    # (cuBLAS) launches kernels of its own on a GPU only.
    here_by_kernel, there_by_kernel = {}, {}
    for emu in emulator:
        here_by_kernel.setdefault(plain_name(emu["kernel"]), []).append(emu)
    for measured in gpu:
        there_by_kernel.setdefault(plain_name(measured["kernel"]), []).append(measured)
    common = [k for k in here_by_kernel if k in there_by_kernel]
    if not common:
        fail(f"no kernel of {argv[1]} is in {argv[2]}: not the same program")
    notes = []
    for kernel in here_by_kernel:
        if kernel not in there_by_kernel:
            notes.append(f"{kernel}: {len(here_by_kernel[kernel])} launch(es) here, none on the GPU")
        elif len(here_by_kernel[kernel]) != len(there_by_kernel[kernel]):
            notes.append(f"{kernel}: {len(here_by_kernel[kernel])} launch(es) here, "
                         f"{len(there_by_kernel[kernel])} on the GPU: the first "
                         f"{min(len(here_by_kernel[kernel]), len(there_by_kernel[kernel]))} compared")
    for kernel in there_by_kernel:
        if kernel not in here_by_kernel:
            notes.append(f"{kernel}: {len(there_by_kernel[kernel])} launch(es) on the GPU only "
                         "(a library's kernel, or a launch the emulator did not count)")
    rows, differences, compared = [], 0, 0
    for kernel in common:
        for emu, measured in zip(here_by_kernel[kernel], there_by_kernel[kernel]):
            compared += 1
            metrics = dict(measured["metrics"])
            for what in ("requests", "sectors"):
                # An atomic whose result is unused compiles to a reduction (RED):
                # ncu counts it under op_red, the emulator with the atomics.
                atom = f"l1tex__t_{what}_pipe_lsu_mem_global_op_atom.sum"
                red = f"l1tex__t_{what}_pipe_lsu_mem_global_op_red.sum"
                if metrics.get(atom) is not None and metrics.get(red) is not None:
                    metrics[atom] += metrics[red]
            pairs = [(m, number(emu[m]), v) for m, v in metrics.items() if m in emu]
            if "gpu__time_duration.sum" in metrics:
                # ncu's duration is in ns with --print-units base; the estimate in us.
                ns = metrics["gpu__time_duration.sum"]
                pairs.append(("time (us): cuemu__estimated_time_us vs gpu__time_duration.sum",
                              number(emu["cuemu__estimated_time_us"]), ns / 1000 if ns is not None else None))
            for metric, here, there in pairs:
                exact = metric.startswith(EXACT)
                differs = exact and here != there
                differences += differs
                ratio = f"{here / there:.3f}" if here is not None and there else "-"
                rows.append((emu["launch"], kernel, metric, here, there, ratio,
                             "DIFFERS" if differs else ""))
    markdown = "--markdown" in argv
    if markdown:
        print("| launch | kernel | metric | emulator | GPU | ratio | |")
        print("|---|---|---|---|---|---|---|")
    for launch, kernel, metric, here, there, ratio, mark in rows:
        cells = [launch, kernel, metric, f"{here:g}" if here is not None else "-",
                 f"{there:g}" if there is not None else "-", ratio, mark]
        print("| " + " | ".join(map(str, cells)) + " |" if markdown else "  ".join(map(str, cells)))
    for note in notes:
        print(f"note: {note}")
    print(f"{compared} launches compared; {differences} exact counter(s) differ")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
