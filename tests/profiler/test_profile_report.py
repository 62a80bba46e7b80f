#!/usr/bin/env python3
"""test_profile_report.py CASE SOURCE_DIR [BUILD_DIR] - tools/profile_report.py, ./tutorial profile.

Each CASE is one ctest test (tests/profiler/CMakeLists.txt). The fixture
fixtures/three_kernels.csv (+ .lanes.json) is written by hand in the format of
docs/profiler.md, with counts whose ratios follow by hand:
  transpose_naive  1 launch: ld 16384 sectors / 4096 requests = 4.00, st 131072 / 4096 = 32.00;
                   8388608 DRAM bytes in 10 us = 838.9 GB/s = 25.0% of H100's 3350 GB/s; no FLOPs
  sgemm_tiled      2 launches of 5 us: 2 x 2e6 FP32 FLOPs in 10 us = 400 GFLOP/s, 2e6 DRAM
                   bytes (intensity 2.0); shared (4000+2000) x 2 wavefronts / (3000 x 2) = 2.00
  dot_double       1 launch, FP64, 20 active lanes of 8 bytes: its picture has 20 lines, 5 sectors
"""
import csv
import os
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

CASE, ROOT = sys.argv[1], os.path.abspath(sys.argv[2])
REPORT = os.path.join(ROOT, "tools", "profile_report.py")
FIXTURE = os.path.join(ROOT, "tests", "profiler", "fixtures", "three_kernels.csv")
SVG = "{http://www.w3.org/2000/svg}"
failures = []


def check(condition, what):
    print(("ok:   " if condition else "FAIL: ") + what)
    if not condition:
        failures.append(what)


def run(args, env=None):
    done = subprocess.run(args, capture_output=True, text=True, env=env)
    return done.returncode, done.stdout, done.stderr


def report(*args):
    return run([sys.executable, REPORT, *args])


def gpu_names():
    with open(os.path.join(ROOT, "common", "emu", "profiler", "gpus.csv")) as f:
        return [row["name"] for row in csv.DictReader(line for line in f if not line.startswith("#"))]


def expect_one_line_failure(result, prefix, *needles):
    rc, out, err = result
    lines = err.splitlines()
    check(rc == 2, f"exit code 2 (got {rc})")
    check(len(lines) == 1 and lines[0].startswith(prefix),
          f"one stderr line starting '{prefix}' (got {lines!r})")
    for needle in needles:
        check(needle in err, f"the line names '{needle}'")


def worst_row(out, kernel, index):
    """The words of the index-th line (from 0) that starts with the kernel's name."""
    rows = [line.split() for line in out.splitlines() if line.startswith(kernel + " ")]
    return rows[index] if len(rows) > index else None


def table_row(out, kernel):
    rows = [line.split() for line in out.splitlines() if line.split()[:1] == [kernel]]
    return rows[0] if rows else []


def case_table():
    with tempfile.TemporaryDirectory() as out_dir:
        rc, out, err = report(FIXTURE, "--out", out_dir)
        check(rc == 0, f"the fixture is reported (exit {rc}, stderr {err.strip()!r})")
        lines = out.splitlines()
        check(lines and "GPU model H100" in lines[0] and "ESTIMATED" in lines[0]
              and "exact" in lines[0], "the first line names the GPU model, ESTIMATED and exact")
        check(all(len(line) <= 100 for line in lines), "every line fits 100 columns")
        # kernel runs us dram% flop% [precision] limiter ld st shared
        check(table_row(out, "transpose_naive") ==
              ["transpose_naive", "1", "10.00", "25.0%", "-", "l2", "4.00", "32.00", "-"],
              f"transpose_naive: 4.00 and 32.00 sectors per request ({table_row(out, 'transpose_naive')})")
        check(table_row(out, "sgemm_tiled") ==
              ["sgemm_tiled", "2", "10.00", "6.0%", "0.6%", "fp32", "shared", "4.00", "4.00", "2.00"],
              f"sgemm_tiled: 2 launches added up, 2.00 wavefronts ({table_row(out, 'sgemm_tiled')})")
        check("fp64" in table_row(out, "dot_double"), "dot_double is measured against FP64's peak")
        worst = [line.split() for line in lines if line.startswith("transpose_naive ")]
        # One run of sgemm_tiled (two runs in the file): 4400 sectors of 32 bytes,
        # 1 MB from DRAM, 12000 / 2 wavefronts, 2 MFLOP in 5 us: 400 GFLOP/s.
        check(worst_row(out, "sgemm_tiled", 1) == ["sgemm_tiled", "0.141", "1.000", "6000", "2.000", "400.0"],
              f"sgemm_tiled's traffic per run ({worst_row(out, 'sgemm_tiled', 1)})")
        # Three tables name each kernel: the figures, the traffic, the worst accesses.
        check(len(worst) == 3 and worst[2][1:3] == ["transpose.cu:57", "32.00"],
              "the worst global access of transpose_naive is transpose.cu:57, 32.00 sectors")
        with open(os.path.join(out_dir, "summary.csv")) as f:
            summary = {row["kernel"]: row for row in csv.DictReader(f)}
        check(list(summary) == ["transpose_naive", "sgemm_tiled", "dot_double"],
              "summary.csv: one row per kernel, in launch order")
        tiled = summary.get("sgemm_tiled", {})
        check(abs(float(tiled.get("estimated_gflops") or 0) - 400.0) < 1e-6,
              "summary.csv: sgemm_tiled at 400 GFLOP/s")
        check(abs(float(tiled.get("arithmetic_intensity") or 0) - 2.0) < 1e-9,
              "summary.csv: sgemm_tiled's intensity is 2 FLOPs per byte")
        naive = summary.get("transpose_naive", {})
        check(abs(float(naive.get("pct_peak_dram_bw") or 0) - 100 * 8388608 / 10e-6 / 3350e9) < 1e-3,
              "summary.csv: transpose_naive's share of DRAM bandwidth")


def parse(path):
    try:
        return ET.parse(path).getroot()
    except (ET.ParseError, OSError) as e:
        check(False, f"{os.path.basename(path)} is well-formed XML ({e})")
        return ET.Element("none")


def case_svg():
    with tempfile.TemporaryDirectory() as out_dir:
        rc, _, err = report(FIXTURE, "--out", out_dir)
        check(rc == 0, f"the fixture is reported (exit {rc}, {err.strip()!r})")
        pictures = sorted(name for name in os.listdir(out_dir) if name.endswith(".svg"))
        check(pictures == ["access_global_dot_double.svg", "access_global_sgemm_tiled.svg",
                           "access_global_transpose_naive.svg", "access_shared_sgemm_tiled.svg",
                           "roofline.svg"], f"the pictures expected ({pictures})")
        roots = {name: parse(os.path.join(out_dir, name)) for name in pictures}
        for name, root in roots.items():
            check(root.tag == SVG + "svg", f"{name} is an SVG document")
        roofline = roots.get("roofline.svg", ET.Element("none"))
        marks = [e.get("data-kernel") for e in roofline.iter()
                 if e.get("class") in ("kernel-point", "kernel-bar")]
        check(sorted(marks) == ["dot_double", "sgemm_tiled", "transpose_naive"],
              f"the roofline marks each kernel once ({marks})")
        points = [e.get("data-kernel") for e in roofline.iter() if e.get("class") == "kernel-point"]
        check(sorted(points) == ["dot_double", "sgemm_tiled"],
              "kernels with FLOPs are points; transpose_naive (none) is a bandwidth bar")
        texts = " ".join(t.text or "" for t in roofline.iter(SVG + "text"))
        check("DRAM 3350 GB/s" in texts and "FP32 peak" in texts and "FP64 peak" in texts,
              "the roofline names its DRAM, FP32 and FP64 ceilings")

        def count(name, kind):
            root = roots.get(name, ET.Element("none"))
            return sum(1 for e in root.iter() if e.get("class") == kind)
        check(count("access_global_transpose_naive.svg", "touch") == 32
              and count("access_global_transpose_naive.svg", "sector") == 32,
              "transpose_naive's store: 32 lanes to 32 different sectors")
        check(count("access_global_dot_double.svg", "touch") == 20
              and count("access_global_dot_double.svg", "sector") == 5,
              "dot_double's load: 20 active lanes of 8 bytes to 5 sectors")
        # The worst of sgemm_tiled's two launches is the second, 16 bytes off alignment.
        check(count("access_global_sgemm_tiled.svg", "sector") == 5,
              "sgemm_tiled: the picture is of its worst launch (5 sectors)")
        shared = roots.get("access_shared_sgemm_tiled.svg", ET.Element("none"))
        shared_text = " ".join(t.text or "" for t in shared.iter(SVG + "text"))
        check(count("access_shared_sgemm_tiled.svg", "bank") == 32
              and shared_text.count("x2") == 16,
              "sgemm_tiled's shared load: 32 banks, 16 of them with two words")
        check("2.00 wavefronts per request; ideal 1" in shared_text,
              "the shared picture's caption gives the wavefronts and the ideal")


def case_bad_input():
    with tempfile.TemporaryDirectory() as work:
        expect_one_line_failure(report(os.path.join(work, "missing.csv")), "profile_report: ",
                                "missing.csv")
        with open(FIXTURE) as f:
            good = f.read()

        def variant(name, text, lanes=True):
            path = os.path.join(work, name)
            with open(path, "w") as f:
                f.write(text)
            if lanes:
                with open(FIXTURE + ".lanes.json") as src, open(path + ".lanes.json", "w") as dst:
                    dst.write(src.read())
            return path
        expect_one_line_failure(report(variant("word.csv", good.replace(",16384,", ",many,", 1))),
                                "profile_report: ", "not a number")
        expect_one_line_failure(report(variant("nocolumn.csv",
                                               good.replace("flop_count_sp", "flops_sp"))),
                                "profile_report: ", "flop_count_sp")
        expect_one_line_failure(report(variant("binary.csv", "\x00\x01,\x02\n")), "profile_report: ")
        expect_one_line_failure(report(variant("nolanes.csv", good, lanes=False)),
                                "profile_report: ", "lanes")
        broken = variant("badjson.csv", good, lanes=False)
        with open(broken + ".lanes.json", "w") as f:
            f.write('{"launches": [')
        expect_one_line_failure(report(broken), "profile_report: ", "JSON")
        expect_one_line_failure(report(FIXTURE, "--gpus", os.path.join(work, "none.csv")),
                                "profile_report: ", "GPU table")


def case_unknown_gpu():
    names = gpu_names()
    check(len(names) >= 5, f"the GPU table has at least five models ({names})")
    expect_one_line_failure(report(FIXTURE, "--gpu-model", "GTX9999"), "profile_report: ",
                            "GTX9999", *names)
    # A known model the profile was not made for: the estimate would be another GPU's.
    expect_one_line_failure(report(FIXTURE, "--gpu-model", "A100"), "profile_report: ",
                            "CUEMU_GPU=A100")
    rc, out, _ = report("--list-gpus")
    check(rc == 0 and out.split() == names, "--list-gpus prints the table's names")


def case_tutorial_bad_gpu_model():
    names = gpu_names()
    with tempfile.TemporaryDirectory() as build:
        env = dict(os.environ, TUTORIAL_BUILD_DIR=build, TUTORIAL_NO_INSTALL="1")
        env.pop("TUTORIAL_LOCKED_BUILD", None)
        result = run([os.path.join(ROOT, "tutorial"), "profile", "15", "--gpu-model", "GTX9999",
                      "--out", os.path.join(build, "out")], env)
        expect_one_line_failure(result, "tutorial: ", "GTX9999", *names)
        check(os.listdir(build) == [], "nothing was configured or built first")
        rc, out, err = run([os.path.join(ROOT, "tutorial"), "--gpu", "profile", "15"], env)
        check(rc == 2 and len(err.splitlines()) == 1 and "ncu --csv --metrics " in err
              and "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum" in err,
              f"--gpu: one line with the ncu command line ({err.strip()[:120]!r})")


def case_tutorial_profile_15():
    """./tutorial profile 15 in this build: the table and pictures of lesson 15's kernels,
    the counts the lesson teaches (the naive transpose's scattered stores, the unpadded
    tile's bank conflicts, the padded tile's none)."""
    build = sys.argv[3]
    with tempfile.TemporaryDirectory() as out_dir:
        env = dict(os.environ, TUTORIAL_BUILD_DIR=build, TUTORIAL_NO_INSTALL="1")
        rc, out, err = run([os.path.join(ROOT, "tutorial"), "--emu", "profile", "15",
                            "--out", out_dir], env)
        messages = [line for line in err.splitlines() if not line.startswith(
            ("tutorial: building: ", "tutorial: configuring "))]
        check(rc == 0, f"exit code 0 (got {rc}; {err.strip()[-300:]!r})")
        report_lines = out.splitlines()
        firsts = [line for line in report_lines if line.startswith("GPU model H100: ")]
        check(len(firsts) == 1 and "ESTIMATED" in firsts[0], "the report's first line")
        with open(os.path.join(out_dir, "summary.csv")) as f:
            kernels = [row["kernel"] for row in csv.DictReader(f)]
        check(len(kernels) >= 2, f"lesson 15's kernels are in summary.csv ({kernels})")
        with open(os.path.join(out_dir, "summary.csv")) as f:
            rows = {row["kernel"]: row for row in csv.DictReader(f)}
        naive = rows.get("naive_transpose_kernel", {})
        check(float(naive.get("global_st_sectors_per_request") or 0) > 16,
              "the naive transpose's stores are scattered (many sectors per request)")
        plain = [r for k, r in rows.items() if "Plain" in k]
        padded = [r for k, r in rows.items() if "Padded" in k]
        check(plain and float(plain[0]["shared_wavefronts_per_request"]) > 16,
              "the unpadded tile's column reads conflict (many wavefronts per request)")
        check(padded and float(padded[0]["shared_wavefronts_per_request"]) == 1.0,
              "the padded tile's reads take one wavefront each")
        roofline = parse(os.path.join(out_dir, "roofline.svg"))
        marks = [e.get("data-kernel") for e in roofline.iter()
                 if e.get("class") in ("kernel-point", "kernel-bar")]
        check(sorted(marks) == sorted(kernels), "the roofline marks each kernel once")
        for name in os.listdir(out_dir):
            if name.startswith("access_"):
                parse(os.path.join(out_dir, name))
        check(any(name.startswith("access_shared_") for name in os.listdir(out_dir)),
              "a shared-access picture (lesson 15's tiles)")


CASES = {"tutorial-profile-15": case_tutorial_profile_15, "table": case_table, "svg": case_svg, "bad-input": case_bad_input,
         "unknown-gpu": case_unknown_gpu, "tutorial-bad-gpu-model": case_tutorial_bad_gpu_model}

if __name__ == "__main__":
    CASES[CASE]()
    if failures:
        print(f"{len(failures)} check(s) failed")
        sys.exit(1)
