#!/usr/bin/env python3
"""compare_curand_dump.py GPU_FILE EMULATOR_PROGRAM [--skip WORD]...

Runs the emulator's build of tests/emu/curand_device_dump.cu and compares its
output with what an H200 printed (GPU_FILE), line by line. Raw numbers,
uniforms and Poisson counts must be equal bit for bit. Normals and log-normals
come from the GPU's own sine, cosine, exp and log (common/emu/README.md,
"cuRAND"), so they may differ in the last bits: floats by 4e-6 of max(1, the
value), doubles by 1e-12 of it (the printed values are compared; a hash over all may
differ). Poisson for lambda above 4000 draws from such a normal, so its hash
may differ while its first values agree. --skip WORD (repeatable) leaves out
the lines naming WORD, and the program is asked to skip that generator too
(mt19937, whose twisters take seconds to start here; mtgp32 where the emulator
was built without the toolkit's MTGP32 table; scrambled_sobol32 where it was
built without the scrambled Sobol tables of its libcurand). Exits non-zero on
any other difference.
"""
import struct
import subprocess
import sys


def close(got_hex, want_hex, width):
    if width == 32:
        got = struct.unpack(">f", int(got_hex, 16).to_bytes(4, "big"))[0]
        want = struct.unpack(">f", int(want_hex, 16).to_bytes(4, "big"))[0]
        return abs(got - want) <= 4e-6 * max(abs(want), 1.0)
    got = struct.unpack(">d", int(got_hex, 16).to_bytes(8, "big"))[0]
    want = struct.unpack(">d", int(want_hex, 16).to_bytes(8, "big"))[0]
    return abs(got - want) <= 1e-12 * max(abs(want), 1.0)


def values_close(kind, got, want):
    """Device-API lines: each printed value, by the kind's width."""
    for g, w in zip(got, want):
        if kind in ("normal", "log_normal"):
            if not close(g, w, 32):
                return False
        elif kind == "normal2":  # two floats in one 64-bit value
            g64, w64 = int(g, 16), int(w, 16)
            for shift in (32, 0):
                if not close(f"{(g64 >> shift) & 0xFFFFFFFF:x}", f"{(w64 >> shift) & 0xFFFFFFFF:x}", 32):
                    return False
        elif kind in ("normal_double", "log_normal_double"):
            if not close(g, w, 64):
                return False
    return True


def main():
    rest = sys.argv[3:]
    skips = [rest[i + 1] for i in range(len(rest) - 1) if rest[i] == "--skip"]
    gpu_lines = [l.rstrip("\n") for l in open(sys.argv[1])
                 if not l.startswith("#") and not any(word in l for word in skips)]
    emulated = subprocess.run([sys.argv[2]] + rest, check=True, capture_output=True,
                              text=True).stdout.splitlines()
    by_label = {}
    for line in emulated:
        label = line.split(":")[0]
        by_label[label] = line
    failures, within = [], 0
    for want in gpu_lines:
        label, _, rest = want.partition(":")
        got = by_label.get(label)
        if got == want:
            continue
        if got is None:
            failures.append(f"{label}: the emulator printed no such line")
            continue
        got_rest = got.partition(":")[2].split()
        want_rest = rest.split()
        words = label.split()
        if words[0] == "generator":
            kind = " ".join(words[2:-2])
            # "hash H first v1 ... v6": the first values decide.
            firsts_got, firsts_want = got_rest[3:], want_rest[3:]
            if "normal" in kind:
                width = 64 if "double" in kind else 32
                if all(close(g, w, width) for g, w in zip(firsts_got, firsts_want)):
                    within += 1
                    continue
            elif kind.startswith("poisson") and float(kind.split()[1]) > 4000 and firsts_got == firsts_want:
                within += 1
                continue
        else:
            kind = words[3] if words[2] != "poisson" else "poisson"
            if kind == "normal2_double":  # two doubles folded into one: not comparable
                within += 1
                continue
            if kind != "poisson" and "normal" in kind and values_close(kind, got_rest, want_rest):
                within += 1
                continue
        failures.append(f"emulator: {got}\n      H200: {want}")
    print(f"{len(gpu_lines)} lines: {len(gpu_lines) - within - len(failures)} equal, "
          f"{within} normals within the GPU's rounding"
          + (f" (lines naming {', '.join(skips)} left out)" if skips else ""))
    for failure in failures[:8]:
        print("DIFFERENT:", failure)
    if failures:
        print(f"{len(failures)} lines differ beyond the recorded residuals")
        return 1
    print("every cuRAND number as on the H200, within the recorded residuals")
    return 0


if __name__ == "__main__":
    sys.exit(main())
