#!/usr/bin/env python3
"""compare_launch_limits.py - the emulator's answers to bad launches beside a GPU's.

    tools/compare_launch_limits.py GPU_OUTPUT PROGRAM

GPU_OUTPUT: what tools/launch-limits.cu printed on a GPU (docs/gpu-runs/).
PROGRAM: the same source built for the emulator; it is run here. Every case
line (not the '#' lines, which name the device) must be the same, except the
cases listed in KNOWN below, where the emulator says in its README that it
differs: those must differ still (a fixed one is taken off the list). Exit
code 0 when everything agrees, 1 with the differing lines, 2 with one line
when the files cannot be read or the program cannot run.
"""
import subprocess
import sys

# Cases the emulator does not follow yet, each with the reason common/emu/README.md gives.
KNOWN = {}


def fail(message):
    print(f"compare_launch_limits: {message}", file=sys.stderr)
    sys.exit(2)


def cases(text):
    """{case: rest of the line} for every line that is not a '#' note."""
    found, last = {}, ""
    for line in text.splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        # The case is the first 52 columns (the program's %-52s), the answer the rest;
        # an indented "... and after it" belongs to the case above it.
        case = line[:52].strip()
        if line.startswith("  "):
            case = f"{last}, {case}"
        else:
            last = case
        found[case] = " ".join(line[52:].split())
    return found


def main(argv):
    if len(argv) != 3:
        fail("usage: compare_launch_limits.py GPU_OUTPUT PROGRAM")
    try:
        with open(argv[1]) as f:
            gpu = cases(f.read())
    except OSError as e:
        fail(f"cannot read {argv[1]}: {e.strerror}")
    try:
        run = subprocess.run([argv[2]], capture_output=True, text=True, timeout=50)
    except (OSError, subprocess.TimeoutExpired) as e:
        fail(f"cannot run {argv[2]}: {e}")
    if run.returncode != 0:
        fail(f"{argv[2]} exited with {run.returncode}: {run.stderr.strip()}")
    here = cases(run.stdout)
    problems, agreed = [], 0
    for case, answer in gpu.items():
        mine = here.get(case)
        if mine is None:
            problems.append(f"{case}: not printed here")
        elif case in KNOWN:
            if mine == answer:
                problems.append(f"{case}: listed as a known difference ({KNOWN[case]}), "
                                "but the emulator now answers as the GPU: take it off KNOWN")
            else:
                print(f"known difference, {case}: GPU '{answer}', here '{mine}' ({KNOWN[case]})")
        elif mine != answer:
            problems.append(f"{case}: GPU '{answer}', here '{mine}'")
        else:
            agreed += 1
    for case in here:
        if case not in gpu:
            problems.append(f"{case}: printed here, not in {argv[1]}")
    for p in problems:
        print(f"DIFFERS: {p}")
    print(f"{agreed} of {len(gpu)} cases answered as on the GPU; {len(problems)} differ")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
