"""profile.py - %%cuda --profile: the emulator's counters as a table and pictures.

The program has run with CUEMU_PROFILE=CSV (one row per kernel launch, named
as Nsight Compute names its metrics); tools/profile_report.py turns the file
into a table for the chosen GPU model and writes roofline.svg and
access_*.svg, shown here inline. A copy of the tutorial without that tool
says so in one line and runs nothing.
"""

import subprocess
import sys

REPORT_TOOL = "tools/profile_report.py"
NOT_AVAILABLE = f"--profile: the profiler is not available in this copy ({REPORT_TOOL} is missing); nothing was run"


def available(root):
    return (root / REPORT_TOOL).is_file()


def report(session, csv, gpu_model):
    if not csv.is_file():
        session.warn("--profile: the program wrote no counters (did it launch a kernel?)")
        return
    pictures = session.work / "profile"
    pictures.mkdir(exist_ok=True)
    for old in pictures.glob("*.svg"):
        old.unlink()
    made = subprocess.run([sys.executable, str(session.root / REPORT_TOOL), str(csv), "--gpu-model", gpu_model,
                           "--out", str(pictures)], capture_output=True, text=True, errors="replace")
    if made.stdout:
        session.say(made.stdout.rstrip())
    if made.returncode != 0:
        session.warn((made.stderr.strip().splitlines() or ["--profile: the profiler's report failed"])[-1])
        return
    svgs = [pictures / "roofline.svg"] + sorted(pictures.glob("access_*.svg"))
    for svg in svgs:
        if not svg.is_file():
            continue
        if session.show_svg:
            session.show_svg(svg)
        else:
            session.say(f"picture: {svg}")
