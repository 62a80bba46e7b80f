#!/usr/bin/env python3
"""grade.py DIR [--expect full|partial] - an exported assignment's autograding, run here.

Checks that DIR/.github/classroom/autograding.json has the shape GitHub
Classroom's education/autograding action reads (a "tests" list; each test a
name, setup, run, input, output, comparison of exact/included/regex, a timeout
in minutes and points) and that the workflow runs that action; then runs every
test as the action does (through the shell, in DIR, with only PATH in the
environment, stdout compared with "output") and prints the points.
--expect full: every test must pass (the solution); partial: at least one
must fail (the exercise as shipped). Exit code 0 when the expectation holds.
"""
import json
import os
import re
import subprocess
import sys

import yaml

COMPARISONS = {"exact", "included", "regex"}
FIELDS = {"name": str, "setup": str, "run": str, "input": str, "output": str,
          "comparison": str, "timeout": (int, float), "points": int}


def fail(message):
    print(f"grade.py: {message}")
    sys.exit(1)


def validate(root):
    path = os.path.join(root, ".github/classroom/autograding.json")
    with open(path) as f:
        config = json.load(f)
    if set(config) != {"tests"} or not isinstance(config["tests"], list) or not config["tests"]:
        fail(f"{path}: expected {{\"tests\": [...]}} with at least one test")
    names = set()
    for i, test in enumerate(config["tests"]):
        if set(test) != set(FIELDS):
            fail(f"test {i}: fields {sorted(test)}, expected {sorted(FIELDS)}")
        for field, kind in FIELDS.items():
            if not isinstance(test[field], kind) or isinstance(test[field], bool):
                fail(f"test {i}: {field} has the wrong type")
        if not test["name"] or test["name"] in names:
            fail(f"test {i}: empty or repeated name {test['name']!r}")
        names.add(test["name"])
        if test["comparison"] not in COMPARISONS:
            fail(f"test {i}: comparison {test['comparison']!r} is not one of {sorted(COMPARISONS)}")
        if not 0 < test["timeout"] <= 360 or test["points"] <= 0:
            fail(f"test {i}: timeout must be 1 to 360 minutes and points positive")
    workflow_path = os.path.join(root, ".github/workflows/classroom.yml")
    with open(workflow_path) as f:
        workflow = yaml.safe_load(f)
    triggers = workflow.get(True, workflow.get("on"))  # YAML 1.1 reads a bare on: as True
    steps = [s for job in workflow["jobs"].values() for s in job["steps"]]
    if "push" not in triggers or not any(s.get("uses", "").startswith("education/autograding@") for s in steps):
        fail(f"{workflow_path}: must run on push and use education/autograding")
    if workflow.get("permissions", {}).get("checks") != "write":
        fail(f"{workflow_path}: the action reports through checks: write permission")
    return config["tests"]


def passes(test, root):
    env = {"PATH": os.environ["PATH"], "FORCE_COLOR": "true"}
    # A compiler cache the caller set up (check-exports.sh) changes no result,
    # only how long the builds take: let it through.
    env.update({k: v for k, v in os.environ.items() if k.startswith("CCACHE_")})
    if test["setup"]:
        subprocess.run(test["setup"], shell=True, cwd=root, env=env, check=True)
    try:
        done = subprocess.run(test["run"], shell=True, cwd=root, env=env, input=test["input"],
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                              timeout=test["timeout"] * 60)
    except subprocess.TimeoutExpired:
        return False, "timed out"
    out, expected = done.stdout, test["output"]
    if done.returncode != 0:
        return False, f"exit code {done.returncode}: {out.strip().splitlines()[-1:] }"
    if test["comparison"] == "exact" and out.strip() != expected.strip():
        return False, "output differs"
    if test["comparison"] == "included" and expected not in out:
        return False, f"output lacks {expected!r}"
    if test["comparison"] == "regex" and not re.search(expected, out):
        return False, f"output does not match {expected!r}"
    return True, "passed"


def main():
    if len(sys.argv) not in (2, 4) or (len(sys.argv) == 4 and (sys.argv[2] != "--expect" or sys.argv[3] not in ("full", "partial"))):
        fail("usage: grade.py DIR [--expect full|partial]")
    root = sys.argv[1]
    tests = validate(root)
    points = total = 0
    for test in tests:
        ok, why = passes(test, root)
        total += test["points"]
        points += test["points"] if ok else 0
        print(f"  {'ok  ' if ok else 'FAIL'} {test['points']:3d}  {test['name']}" + ("" if ok else f"  ({why})"))
    print(f"points {points}/{total}")
    if len(sys.argv) == 4:
        expect = sys.argv[3]
        if expect == "full" and points != total:
            fail("expected every test to pass")
        if expect == "partial" and points == total:
            fail("expected at least one test to fail (the exercise as shipped)")


if __name__ == "__main__":
    main()
