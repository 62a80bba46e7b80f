"""lesson.py - %cuda_lesson: the student loop (edit, run, check) from notebook cells.

    %cuda_lesson NN [FILE]               load lesson NN's exercise file into the next cell
    %cuda_lesson NN run|check|solution [flags]   ./tutorial run|check|solution NN [flags]
    %%cuda_lesson NN FILE                save the cell as lessons/NN-topic/FILE, then check it

The lesson's files stay where ./tutorial builds them, so a cell edits the very
exercise ./tutorial check tests.
"""

import re
import shlex
import subprocess

from .errors import CellError

USAGE = "usage: %cuda_lesson NN [FILE]  or  %cuda_lesson NN run|check|solution [flags]  or  %%cuda_lesson NN FILE"
COMMANDS = ("run", "check", "solution")
CHECK_RESULT = {0: "check: PASS", 1: "check: not yet (see above)"}


def lesson_folder(root, number):
    if not re.fullmatch(r"\d{1,2}", number or ""):
        raise CellError(f"expected a lesson number such as 03, got '{number}' ({USAGE})")
    matches = sorted((root / "lessons").glob(f"{int(number):02d}-*"))
    if not matches:
        raise CellError(f"there is no lesson {int(number):02d} (the lessons are in {root / 'lessons'})")
    return matches[0]


def exercise_files(folder):
    return sorted(p.name for p in folder.iterdir() if p.suffix in (".cu", ".cuh", ".c", ".h"))


def exercise_file(folder, name):
    files = exercise_files(folder)
    if name is None:
        main = [f for f in files if f.endswith((".cu", ".c"))]
        if len(main) != 1:
            raise CellError(f"lesson {folder.name} has several files ({', '.join(files)}): name one,"
                            f" e.g. %cuda_lesson {folder.name[:2]} {main[0] if main else files[0]}")
        name = main[0]
    if name not in files:
        raise CellError(f"lessons/{folder.name} has no {name} (its files: {', '.join(files)})")
    return folder / name


def run_tutorial(session, words):
    """./tutorial WORDS, its output shown as it comes; returns the exit status."""
    process = subprocess.Popen([str(session.root / "tutorial"), *words], cwd=session.root, text=True,
                               errors="replace", stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    for line in process.stdout:
        session.say(line.rstrip("\n"))
    return process.wait()


def line_magic(session, line, set_next_input=None):
    words = _split(line)
    folder = lesson_folder(session.root, words[0] if words else None)
    number = folder.name[:2]
    if len(words) > 1 and words[1] in COMMANDS:
        status = run_tutorial(session, [words[1], number, *words[2:]])
        if words[1] == "check":
            session.say(CHECK_RESULT.get(status, "check: nothing was checked (see the line above)"))
        elif status != 0:
            session.warn(f"(./tutorial {words[1]} {number} exited with status {status})")
        return
    if len(words) > 2:
        raise CellError(USAGE)
    path = exercise_file(folder, words[1] if len(words) > 1 else None)
    text = f"%%cuda_lesson {number} {path.name}\n" + path.read_text()
    if set_next_input:
        set_next_input(text)
    session.say(f"lessons/{folder.name}/{path.name} is in the next cell: fill in its TODOs, then run that cell"
                f" to save it and check it (./tutorial check {number}); read lessons/{folder.name}/README.md")


def cell_magic(session, line, cell):
    words = _split(line)
    if len(words) != 2:
        raise CellError(USAGE)
    folder = lesson_folder(session.root, words[0])
    path = exercise_file(folder, words[1])
    path.write_text(cell if cell.endswith("\n") else cell + "\n")
    session.say(f"saved lessons/{folder.name}/{path.name}")
    line_magic(session, f"{folder.name[:2]} check")


def _split(line):
    try:
        return shlex.split(line)
    except ValueError as error:
        raise CellError(f"cannot read the line ({error})")
