#!/usr/bin/env python3
"""profile_report.py - read what CUEMU_PROFILE=FILE.csv wrote and say what a GPU would do.

  profile_report.py PROFILE.csv [--gpu-model NAME] [--out DIR] [--gpus GPUS.csv]
      Prints one row per kernel (its launches added up): the estimated time on
      the GPU model the profile was made for, the share of peak DRAM bandwidth
      and of peak FLOP/s that time implies, global sectors per request, shared
      wavefronts per request, the limiting resource and the source lines of the
      worst global and shared accesses. With --out it also writes there
      summary.csv (the table), roofline.svg, and access_global_<kernel>.svg /
      access_shared_<kernel>.svg (one warp's worst request, lane by lane).
      --gpu-model only checks that the profile was made for that model: the
      estimate is the emulator's (CUEMU_GPU=NAME picks it when the program runs).
  profile_report.py --list-gpus      the GPU models of the table, one per line
  profile_report.py --ncu-metrics    the metrics to ask ncu for on a real GPU
                                     (ncu --csv --metrics <that list> ./program)

The file format is docs/profiler.md's; the GPU table is common/emu/profiler/gpus.csv.
Times are an estimate by a model, never a measurement; the table's first line says so.
Bad input (a missing or malformed file, an unknown GPU): one line
"profile_report: ..." on stderr and exit status 2.
"""
import argparse
import csv
import json
import math
import os
import re
import sys

from profile_svg import access_global_svg, access_shared_svg, roofline_svg

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_GPUS = os.path.join(os.path.dirname(HERE), "common", "emu", "profiler", "gpus.csv")
TERMINAL_WIDTH = 96  # fits a 100-column terminal with room to spare

# Nsight Compute's names: the same list gives `ncu --csv --metrics` on a GPU.
GLOBAL_REQUESTS = "l1tex__t_requests_pipe_lsu_mem_global_op_{}.sum"
GLOBAL_SECTORS = "l1tex__t_sectors_pipe_lsu_mem_global_op_{}.sum"
SHARED_INSTRUCTIONS = "smsp__inst_executed_op_shared_{}.sum"
SHARED_WAVEFRONTS = "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_{}.sum"
SHARED_CONFLICTS = "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_{}.sum"
THREAD_OPS = "smsp__sass_thread_inst_executed_op_{}_pred_on.sum"
NCU_METRICS = (
    [GLOBAL_REQUESTS.format(op) for op in ("ld", "st", "atom")]
    + [GLOBAL_SECTORS.format(op) for op in ("ld", "st", "atom")]
    + [SHARED_INSTRUCTIONS.format(op) for op in ("ld", "st", "atom")]
    + [SHARED_WAVEFRONTS.format(op) for op in ("ld", "st")]
    + [SHARED_CONFLICTS.format(op) for op in ("ld", "st")]
    + [THREAD_OPS.format(op) for op in ("fadd", "fmul", "ffma", "dadd", "dmul", "dfma")]
    + ["launch__registers_per_thread", "sm__maximum_warps_per_active_cycle_pct",
       "dram__bytes_read.sum", "dram__bytes_write.sum", "lts__t_sectors.sum",
       "gpu__time_duration.sum"])
# gpu__time_duration.sum is what a GPU measures; the emulator writes its estimate instead.
COUNTERS = [m for m in NCU_METRICS if m != "gpu__time_duration.sum"] + [
    "flop_count_sp", "flop_count_dp", "cuemu__active_lanes_per_request"]
ESTIMATE = ["cuemu__estimated_time_us", "cuemu__waves"]
TEXT_COLUMNS = ["kernel", "grid", "block", "gpu", "launch_site", "cuemu__limiter",
                "cuemu__worst_global_site", "cuemu__worst_shared_site"]
WORST_RATIOS = ["cuemu__worst_global_sectors_per_request",
                "cuemu__worst_shared_wavefronts_per_request"]
NUMBER_COLUMNS = ["launch"] + COUNTERS + ESTIMATE + WORST_RATIOS
# Empty when the kernel has no such access (no memory request, no shared access): read as 0.
MAY_BE_EMPTY = WORST_RATIOS + ["cuemu__active_lanes_per_request"]
LIMITERS = ("dram", "l2", "shared", "fp32", "fp64", "launch")


class BadInput(Exception):
    """Input this tool cannot read: reported as one line, exit status 2."""


class Arguments(argparse.ArgumentParser):
    """argparse, with a bad command line reported as one line like any bad input."""

    def error(self, message):
        raise BadInput(message)


def data_lines(path, what):
    """The lines of a CSV file without its '#' comment lines."""
    try:
        with open(path, newline="", encoding="utf-8") as f:
            return [line for line in f if not line.startswith("#")]
    except OSError as e:
        raise BadInput(f"cannot read the {what} {path}: {e.strerror or e}") from None
    except UnicodeDecodeError:
        raise BadInput(f"{path}: not a text file") from None


def read_gpus(path):
    """The GPU table as {name: row}, in the file's order."""
    rows = list(csv.DictReader(data_lines(path, "GPU table")))
    needed = ("name", "full_name", "dram_gbs", "fp32_gflops", "fp64_gflops")
    if not rows or any(column not in rows[0] for column in needed):
        raise BadInput(f"{path}: not the GPU table (columns {', '.join(needed)} expected)")
    gpus = {}
    for row in rows:
        try:
            for column in ("dram_gbs", "fp32_gflops", "fp64_gflops"):
                row[column] = float(row[column])
        except (TypeError, ValueError):
            raise BadInput(f"{path}: GPU {row.get('name')}: a figure that is not a number") from None
        gpus[row["name"]] = row
    return gpus


def unknown_gpu(name, gpus):
    return BadInput(f"unknown GPU model '{name}' (known: {', '.join(gpus)})")


def read_profile(path):
    """One dict per launch, numbers converted; any malformed row is an error."""
    lines = data_lines(path, "profile")
    reader = csv.DictReader(lines)
    header = reader.fieldnames or []
    for column in TEXT_COLUMNS + NUMBER_COLUMNS:
        if column not in header:
            raise BadInput(f"{path}: not a cuemu profile: no column '{column}'"
                           " (made by an emulator without the profiler?)")
    launches = []
    for row in reader:
        line = reader.line_num
        if None in row or any(value is None for value in row.values()):
            raise BadInput(f"{path}: data line {line} does not have the header's"
                           f" {len(header)} columns")
        for column in NUMBER_COLUMNS:
            text = row[column]
            if text == "" and column in MAY_BE_EMPTY:
                row[column] = 0.0
                continue
            try:
                row[column] = float(text)
            except ValueError:
                raise BadInput(f"{path}: data line {line}: {column} is '{text}',"
                               " not a number") from None
        if row["cuemu__limiter"] not in LIMITERS:
            raise BadInput(f"{path}: data line {line}: limiter '{row['cuemu__limiter']}'"
                           f" is none of {', '.join(LIMITERS)}")
        launches.append(row)
    if not launches:
        raise BadInput(f"{path}: no kernel launches were recorded")
    return launches


def read_lanes(path):
    """The sidecar's launches as {launch number: entry}."""
    try:
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
    except OSError as e:
        raise BadInput(f"cannot read the lanes file {path}: {e.strerror or e}") from None
    except ValueError as e:
        raise BadInput(f"{path}: not valid JSON ({e})") from None
    if not isinstance(data, dict) or not isinstance(data.get("launches"), list):
        raise BadInput(f"{path}: no \"launches\" list")
    entries = {}
    for entry in data["launches"]:
        if not isinstance(entry, dict) or "launch" not in entry:
            raise BadInput(f"{path}: a launch entry without its \"launch\" number")
        for kind, ratio, place in (("worst_global", "sectors_per_request", "sector"),
                                   ("worst_shared", "wavefronts_per_request", "bank")):
            access = entry.get(kind)
            if access is None:
                continue
            fields = ("site", "op", "bytes_per_lane", "requests", ratio, "lanes")
            if not isinstance(access, dict) or any(key not in access for key in fields):
                raise BadInput(f"{path}: launch {entry['launch']}: {kind} needs {', '.join(fields)}")
            for lane in access["lanes"]:
                if not isinstance(lane, dict) or not {"lane", place} <= lane.keys():
                    raise BadInput(f"{path}: launch {entry['launch']}: {kind}: a lane without"
                                   f" \"lane\" and \"{place}\"")
        entries[int(entry["launch"])] = entry
    return entries


def ratio(numerator, denominator):
    return numerator / denominator if denominator else None


def distinct(launches):
    """The launches, each shape once: launches of one kernel with the same grid, block
    and counts (a timing loop repeating a launch as often as fits in 0.2 s) count as
    one, so the report does not depend on how fast the machine ran the program."""
    seen, kept = set(), []
    for row in launches:
        # static_shared_bytes is left out: it sometimes counts another kernel's
        # __shared__ variable too (a known gap of the emulator's, see
        # docs/profiler.md), and the report does not read it.
        key = tuple((name, value) for name, value in row.items()
                    if name not in ("launch", "static_shared_bytes"))
        if key not in seen:
            seen.add(key)
            kept.append(row)
    return kept


def summarise(launches, gpu):
    """Per kernel, in order of first launch: its distinct launches added up, and the figures."""
    kernels = {}
    for row in distinct(launches):
        k = kernels.setdefault(row["kernel"], {"kernel": row["kernel"], "launches": [],
                                               "limiter_us": {}})
        k["launches"].append(row)
        k["limiter_us"][row["cuemu__limiter"]] = (
            k["limiter_us"].get(row["cuemu__limiter"], 0.0) + row["cuemu__estimated_time_us"])
    summaries = []
    for k in kernels.values():
        def total(column):
            return sum(r[column] for r in k["launches"])
        time_us = total("cuemu__estimated_time_us")
        dram_bytes = total("dram__bytes_read.sum") + total("dram__bytes_write.sum")
        flops_sp, flops_dp = total("flop_count_sp"), total("flop_count_dp")
        double = flops_dp > flops_sp
        flops = flops_dp if double else flops_sp
        peak_gflops = gpu["fp64_gflops"] if double else gpu["fp32_gflops"]
        seconds = time_us * 1e-6
        worst_global = max(k["launches"], key=lambda r: r["cuemu__worst_global_sectors_per_request"])
        worst_shared = max(k["launches"],
                           key=lambda r: r["cuemu__worst_shared_wavefronts_per_request"])
        shared_requests = sum(total(SHARED_INSTRUCTIONS.format(op)) for op in ("ld", "st"))
        summaries.append({
            "kernel": k["kernel"],
            "launches": len(k["launches"]),
            "gpu": gpu["name"],
            "estimated_time_us": time_us,
            "dram_bytes": dram_bytes,
            "flops": flops,
            "precision": "fp64" if double else "fp32",
            "estimated_gflops": ratio(flops, seconds) / 1e9 if seconds else None,
            "arithmetic_intensity": ratio(flops, dram_bytes),
            "pct_peak_dram_bw": 100 * dram_bytes / seconds / (gpu["dram_gbs"] * 1e9)
            if seconds else None,
            "pct_peak_flops": 100 * flops / seconds / (peak_gflops * 1e9) if seconds else None,
            "global_ld_sectors_per_request": ratio(total(GLOBAL_SECTORS.format("ld")),
                                                   total(GLOBAL_REQUESTS.format("ld"))),
            "global_st_sectors_per_request": ratio(total(GLOBAL_SECTORS.format("st")),
                                                   total(GLOBAL_REQUESTS.format("st"))),
            "shared_wavefronts_per_request": ratio(
                sum(total(SHARED_WAVEFRONTS.format(op)) for op in ("ld", "st")), shared_requests),
            "shared_bank_conflicts": sum(total(SHARED_CONFLICTS.format(op)) for op in ("ld", "st")),
            # What one run moves and computes, on average over the kernel's runs.
            "l2_bytes_per_run": 32 * total("lts__t_sectors.sum") / len(k["launches"]),
            "dram_bytes_per_run": dram_bytes / len(k["launches"]),
            "shared_wavefronts_per_run": sum(total(SHARED_WAVEFRONTS.format(op)) for op in ("ld", "st"))
            / len(k["launches"]),
            "flops_per_run": flops / len(k["launches"]),
            # The resource that limits most of the kernel's estimated time.
            "limiter": max(k["limiter_us"], key=k["limiter_us"].get),
            "worst_global_site": worst_global["cuemu__worst_global_site"],
            "worst_global_sectors_per_request": worst_global["cuemu__worst_global_sectors_per_request"],
            "worst_global_launch": int(worst_global["launch"]),
            "worst_shared_site": worst_shared["cuemu__worst_shared_site"],
            "worst_shared_wavefronts_per_request":
                worst_shared["cuemu__worst_shared_wavefronts_per_request"],
            "worst_shared_launch": int(worst_shared["launch"]),
        })
    return summaries


# ---- the table ----------------------------------------------------------------

def fit(text, width, keep_end=False):
    """text cut to width characters, marked with '..' where it was cut."""
    if len(text) <= width:
        return text
    return ".." + text[-(width - 2):] if keep_end else text[:width - 2] + ".."


def shown(value, pattern="{:.2f}"):
    return "-" if value is None else pattern.format(value)


def percent(value):
    if value is None:
        return "-"
    return "<0.1%" if 0 < value < 0.05 else f"{value:.1f}%"


def wrapped(text):
    """A long sentence as lines that fit the terminal."""
    lines, line = [], ""
    for word in text.split(" "):
        if line and len(line) + 1 + len(word) > TERMINAL_WIDTH:
            lines.append(line)
            line = word
        else:
            line = f"{line} {word}" if line else word
    return lines + [line]


def table(summaries, gpu):
    out = [f"GPU model {gpu['name']}: times are ESTIMATED by cuemu's model, not measured;"
           " counters are exact"]
    out += wrapped(f"({gpu['full_name']}. Counters follow the emulator's rules, docs/profiler.md;"
                   " DRAM bytes are modelled through an L2 that is cold at each launch.)")
    out.append("")
    out.append("one row per kernel; a launch repeated with the same grid, block and counts is one run")
    out.append(f"{'kernel':<24} {'runs':>4} {'est. time':>10} {'DRAM BW':>7} {'FLOP/s':>11}"
               f" {'limiter':<7} {'global sectors/req':>18} {'shared':>7}")
    out.append(f"{'':<24} {'':>4} {'us':>10} {'% peak':>7} {'% peak':>11}"
               f" {'':<7} {'ld':>8} {'st':>9} {'wf/req':>7}")
    for s in summaries:
        flop = ("-" if not s["flops"] or s["pct_peak_flops"] is None
                else f"{percent(s['pct_peak_flops'])} {s['precision']}")
        out.append(f"{fit(s['kernel'], 24):<24} {s['launches']:>4}"
                   f" {shown(s['estimated_time_us']):>10}"
                   f" {percent(s['pct_peak_dram_bw']):>7} {flop:>11}"
                   f" {s['limiter']:<7} {shown(s['global_ld_sectors_per_request']):>8}"
                   f" {shown(s['global_st_sectors_per_request']):>9}"
                   f" {shown(s['shared_wavefronts_per_request']):>7}")
    out.append("")
    out.append("traffic and work of one run (average over the runs; DRAM modelled, the rest counted)")
    out.append(f"{'kernel':<24} {'L1->L2 MB':>10} {'DRAM MB':>9} {'shared wavefronts':>18}"
               f" {'MFLOP':>10} {'est. GFLOP/s':>13}")
    for s in summaries:
        out.append(f"{fit(s['kernel'], 24):<24} {s['l2_bytes_per_run'] / 1e6:>10.3f}"
                   f" {s['dram_bytes_per_run'] / 1e6:>9.3f} {s['shared_wavefronts_per_run']:>18.0f}"
                   f" {s['flops_per_run'] / 1e6:>10.3f} {shown(s['estimated_gflops'], '{:.1f}'):>13}")
    out.append("")
    out.append("worst accesses (ideal: 4 sectors for 32 lanes x 4 contiguous bytes, 1 wavefront)")
    out.append(f"{'kernel':<24} {'global load/store':<29} {'sec/req':>7}  "
               f"{'shared load/store':<25} {'wf/req':>6}")
    for s in summaries:
        out.append(f"{fit(s['kernel'], 24):<24} {fit(s['worst_global_site'] or '-', 29, True):<29}"
                   f" {shown(s['worst_global_sectors_per_request'] or None):>7}  "
                   f"{fit(s['worst_shared_site'] or '-', 25, True):<25}"
                   f" {shown(s['worst_shared_wavefronts_per_request'] or None):>6}")
    return "\n".join(out)


SUMMARY_COLUMNS = [
    "kernel", "launches", "gpu", "estimated_time_us", "pct_peak_dram_bw", "pct_peak_flops",
    "precision", "estimated_gflops", "dram_bytes", "flops", "arithmetic_intensity",
    "global_ld_sectors_per_request", "global_st_sectors_per_request",
    "shared_wavefronts_per_request", "shared_bank_conflicts", "l2_bytes_per_run",
    "dram_bytes_per_run", "shared_wavefronts_per_run", "flops_per_run", "limiter",
    "worst_global_site", "worst_global_sectors_per_request",
    "worst_shared_site", "worst_shared_wavefronts_per_request"]


def write_summary(path, summaries):
    with open(path, "w", newline="", encoding="utf-8") as f:
        out = csv.writer(f)
        out.writerow(SUMMARY_COLUMNS)
        for s in summaries:
            out.writerow(["" if s[c] is None else
                          (f"{s[c]:.6g}" if isinstance(s[c], float) else s[c])
                          for c in SUMMARY_COLUMNS])


def file_stem(kernel, taken):
    """A file-name-safe form of a kernel name, unique among those already taken."""
    stem = re.sub(r"[^A-Za-z0-9_]+", "_", kernel).strip("_") or "kernel"
    candidate, n = stem, 2
    while candidate in taken:
        candidate, n = f"{stem}_{n}", n + 1
    taken.add(candidate)
    return candidate


def write_pictures(out_dir, summaries, lanes, gpu):
    written = [os.path.join(out_dir, "roofline.svg")]
    with open(written[0], "w", encoding="utf-8") as f:
        f.write(roofline_svg(summaries, gpu))
    taken = set()
    for s in summaries:
        stem = file_stem(s["kernel"], taken)
        for kind, draw, launch in (("global", access_global_svg, s["worst_global_launch"]),
                                   ("shared", access_shared_svg, s["worst_shared_launch"])):
            access = lanes.get(launch, {}).get(f"worst_{kind}")
            if not access:
                continue
            path = os.path.join(out_dir, f"access_{kind}_{stem}.svg")
            with open(path, "w", encoding="utf-8") as f:
                f.write(draw(s["kernel"], access, gpu))
            written.append(path)
    return written


def main(argv):
    p = Arguments(prog="profile_report.py", description=__doc__.splitlines()[0])
    p.add_argument("profile", nargs="?", help="the CSV that CUEMU_PROFILE wrote")
    p.add_argument("--gpu-model", help="the GPU model the profile must be made for")
    p.add_argument("--out", help="folder for summary.csv and the pictures")
    p.add_argument("--gpus", default=DEFAULT_GPUS, help="the GPU table (gpus.csv)")
    p.add_argument("--list-gpus", action="store_true", help="print the GPU models and stop")
    p.add_argument("--ncu-metrics", action="store_true",
                   help="print the metric list for ncu --csv --metrics and stop")
    a = p.parse_args(argv)
    if a.ncu_metrics:
        print(",".join(NCU_METRICS))
        return 0
    gpus = read_gpus(a.gpus)
    if a.list_gpus:
        print("\n".join(gpus))
        return 0
    if a.gpu_model is not None and a.gpu_model not in gpus:
        raise unknown_gpu(a.gpu_model, gpus)
    if not a.profile:
        raise BadInput("no profile named (usage: profile_report.py PROFILE.csv [--out DIR])")
    launches = read_profile(a.profile)
    made_for = {row["gpu"] for row in launches}
    if len(made_for) != 1:
        raise BadInput(f"{a.profile}: launches estimated for different GPUs ({', '.join(made_for)})")
    name = made_for.pop()
    if name not in gpus:
        raise BadInput(f"{a.profile}: made for GPU '{name}', which {a.gpus} does not know")
    if a.gpu_model is not None and a.gpu_model != name:
        raise BadInput(f"{a.profile} holds estimates for {name}, not {a.gpu_model}:"
                       f" run the program again with CUEMU_GPU={a.gpu_model}")
    lanes = read_lanes(a.profile + ".lanes.json")
    summaries = summarise(launches, gpus[name])
    print(table(summaries, gpus[name]))
    if a.out:
        try:
            os.makedirs(a.out, exist_ok=True)
            write_summary(os.path.join(a.out, "summary.csv"), summaries)
            written = write_pictures(a.out, summaries, lanes, gpus[name])
        except OSError as e:
            raise BadInput(f"cannot write to {a.out}: {e.strerror or e}") from None
        print()
        print("\n".join(wrapped(f"written to {a.out}: summary.csv, "
                                + ", ".join(os.path.basename(w) for w in written))))
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except BadInput as e:
        print(f"profile_report: {e}", file=sys.stderr)
        sys.exit(2)
