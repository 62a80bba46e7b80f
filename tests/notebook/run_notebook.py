#!/usr/bin/env python3
"""run_notebook.py NOTEBOOK - execute the start-here notebook through a real Jupyter
kernel (nbclient and ipykernel), in the repository's folder, on the CPU emulator,
and check what its tagged cells printed.

Jupyter's packages are optional for learners: without them this exits with 77,
CTest's skip code, except when CI=true, where it fails. Debian installs them for
its own /usr/bin/python3, which is tried when the Python running this lacks them.
"""

import os
import sys
from pathlib import Path

SKIP = 77
# The kernel's debugger complains of frozen modules on every start; nothing here debugs.
os.environ.setdefault("PYDEVD_DISABLE_FILE_VALIDATION", "1")


def import_jupyter():
    try:
        import nbclient  # noqa: F401
        import nbformat  # noqa: F401
        import ipykernel  # noqa: F401
        return True
    except ImportError as error:
        system_python = "/usr/bin/python3"
        if os.path.realpath(sys.executable) != os.path.realpath(system_python) and os.path.exists(system_python) \
                and not os.environ.get("RUN_NOTEBOOK_REEXEC"):
            os.environ["RUN_NOTEBOOK_REEXEC"] = "1"
            os.execv(system_python, [system_python, *sys.argv])
        missing = error.name
    why = f"{missing} is not installed (Debian: apt-get install python3-nbclient python3-ipykernel python3-nbformat)"
    if os.environ.get("CI") == "true":
        print(f"run_notebook: {why}; CI must run this test", file=sys.stderr)
        sys.exit(1)
    print(f"run_notebook: skipped: {why}")
    sys.exit(SKIP)


def text_of(cell):
    """Everything a cell showed: streams, results, errors, and the kinds of pictures."""
    parts = []
    for output in cell.get("outputs", []):
        if output["output_type"] == "stream":
            parts.append(output["text"])
        elif output["output_type"] == "error":
            parts.append(f"{output['ename']}: {output['evalue']}")
        else:
            data = output.get("data", {})
            parts.append(data.get("text/plain", ""))
            parts.extend(f"[{kind}]" for kind in data if kind.startswith("image/"))
    return "".join(parts)


def expectations(root):
    """What each tagged cell must show, on the emulator."""
    hello = [f"hello from thread {t} of block {b}\n" for b in range(2) for t in range(4)]
    profiler = (["[image/svg+xml]"] if (root / "tools" / "profile_report.py").is_file()
                else ["--profile: the profiler is not available in this copy"])
    return {
        "setup": [f"working folder: {root}"],
        "load": [],
        "hello": ["[built for the CPU emulator"] + hello,
        "device-memory": ["4 blocks of 256 threads, 1000 elements, 0 wrong\n"],
        "out-of-bounds": ["cuemu: out-of-bounds read in kernel 'square'",
                          "at cell.cu:7 in square(", "block (3,0,0) of grid (4,1,1), thread (232,0,0)",
                          "(the program exited with status 1)"],
        "saxpy-header": ['saved saxpy.cuh (header: #include "saxpy.cuh")'],
        "saxpy": ["y[0] = 5, y[n-1] = 5 (expected 5)\n"],
        "profile": profiler,
        "lesson-load": ["lessons/02-first-kernel/vector_add.cu is in the next cell"],
        "lesson-check": ["NOT YET", "check: not yet"],
    }


def main():
    import_jupyter()
    import nbformat
    from nbclient import NotebookClient

    path = Path(sys.argv[1]).resolve()
    root = path.parent
    notebook = nbformat.read(path, as_version=4)
    client = NotebookClient(notebook, timeout=300, kernel_name="python3",
                            resources={"metadata": {"path": str(root)}})
    client.execute()

    expected = expectations(root)
    problems = []
    seen = set()
    for index, cell in enumerate(notebook.cells):
        if cell.cell_type != "code":
            continue
        text = text_of(cell)
        if "Traceback" in text or any(o["output_type"] == "error" for o in cell.get("outputs", [])):
            problems.append(f"cell {index}: an error:\n{text}")
        for tag in cell.metadata.get("tags", []):
            seen.add(tag)
            for wanted in expected.get(tag, []):
                if wanted not in text:
                    problems.append(f"cell {index} ({tag}): expected {wanted!r} in:\n{text}")
    for tag in sorted(set(expected) - seen):
        problems.append(f"no cell is tagged {tag}")
    for problem in problems:
        print(f"run_notebook: {problem}", file=sys.stderr)
    if not problems:
        print(f"run_notebook: {path.name}: {len(notebook.cells)} cells executed, every tagged output as expected")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
