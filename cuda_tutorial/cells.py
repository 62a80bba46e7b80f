"""cells.py - a notebook session of %%cuda cells: save, build, run, report.

Each session keeps its cells in a folder of its own. A cell with --name FILE
is saved there (a header to include, or another source of the program); a
plain cell is the program's main file, built with every named source saved
so far, by nvcc for a GPU or by bin/nvcc-emu for the CPU emulator, then run.

Line numbers: Jupyter numbers a cell's lines from its %%cuda line, so each
cell is saved with one empty line first, and the compiler's and the
emulator's line numbers are the ones the learner sees beside the cell.
Nothing here needs IPython: the magic (magic.py) is a thin layer on top,
and the tests drive a Session directly.
"""

import atexit
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

from . import backend as backends
from . import profile
from .errors import CellError
from .options import USAGE, parse_line
from .repo import build_dir, find_root

MAIN_FILE = "cell.cu"
SOURCE_SUFFIXES = (".cu", ".cpp", ".cc", ".cxx", ".c")

HELP = f"""{USAGE}

  --emu / --gpu      build for the CPU emulator / for this machine's GPU (default: the GPU
                     when nvcc is installed and a GPU works, else the emulator; the
                     variable CUDA_TUTORIAL_BACKEND=emu|gpu changes the default)
  --name FILE        save this cell as FILE (kernels.cuh, helpers.cu) for later cells to
                     #include or link; it is not run
  --profile          count memory traffic and FLOPs on the emulator and show the
                     profiler's table and pictures (--gpu-model NAME: the GPU to model)
  nvcc flags         -I dir -DNAME=1 -O3 -std=c++17 -lcublas -arch=sm_75 ... as with nvcc
  -- ARGS            everything after -- is passed to the program
Line numbers in messages count the %%cuda line as line 1, as Jupyter shows them."""

# The compiler's first error, in this session's folder (paths already shortened):
# g++ and clang++ write "cell.cu:4:5: error: ...", nvcc's front end "cell.cu(4): error: ...".
FIRST_ERROR = re.compile(r"^(?P<file>[\w.+-]+)(?::(?P<line>\d+)(?::\d+)?|\((?P<nvcc_line>\d+)\)):"
                         r" (?:fatal |catastrophic )?error:? (?P<text>.*)$", re.MULTILINE)
NVCC_EMU_OPTION = re.compile(r"^nvcc-emu: (unknown option|option|don't know|.* needs a value|-l)", re.MULTILINE)
NVCC_OPTION = re.compile(r"^nvcc fatal\s*:\s*(.*)$", re.MULTILINE)


def default_backend():
    """CUDA_TUTORIAL_BACKEND=emu|gpu sets what a cell without --emu or --gpu uses (CI: the emulator)."""
    chosen = os.environ.get("CUDA_TUTORIAL_BACKEND", "auto")
    if chosen not in ("auto", "emu", "gpu"):
        raise CellError(f"CUDA_TUTORIAL_BACKEND={chosen}: expected auto, emu or gpu")
    return chosen


class Session:
    """The cells of one notebook kernel. out/err: streams (default: sys.stdout and
    sys.stderr as they are at each call, which IPython points at the cell);
    show_svg(path): shows a picture inline (the magic passes IPython's display)."""

    def __init__(self, root=None, out=None, err=None, show_svg=None):
        self.root = Path(root) if root else find_root()
        self.build = build_dir(self.root)
        self.work = Path(tempfile.mkdtemp(prefix="cuda-cells-"))
        atexit.register(shutil.rmtree, self.work, ignore_errors=True)  # the kernel's end
        self.named = []
        self.known_backend = None
        self.announced = None
        self._out, self._err = out, err
        self.show_svg = show_svg

    def say(self, text):
        print(text, file=self._out or sys.stdout, flush=True)

    def warn(self, text):
        print(text, file=self._err or sys.stderr, flush=True)

    # ---- one cell ------------------------------------------------------------
    def run(self, line, cell):
        """Runs one %%cuda cell. A learner's mistake raises CellError (one line);
        a compile error or a failing program is reported, not raised."""
        options = parse_line(line)
        if options.help:
            self.say(HELP)
            return
        if options.name:
            self._save(options.name, cell)
            return
        if options.profile and not profile.available(self.root):
            self.say(profile.NOT_AVAILABLE)
            return
        asked = options.backend if options.backend != "auto" else default_backend()
        if options.profile:
            if asked == "gpu":
                raise CellError("--profile counts on the emulator: leave out --gpu")
            asked = "emu"
        chosen = backends.choose(asked, self.root, self.build, self.work, self.known_backend)
        if asked == "auto":
            self.known_backend = chosen
        self._announce(chosen)
        program = self._compile(cell, chosen, options.compiler_flags)
        if program is None:
            return
        environment = dict(os.environ)
        csv = None
        if options.profile:
            csv = self.work / "profile.csv"
            csv.unlink(missing_ok=True)
            environment["CUEMU_PROFILE"] = str(csv)
            environment["CUEMU_GPU"] = options.gpu_model  # the model the report is asked for
        self._execute(program, options.program_args, environment)
        if options.profile:
            profile.report(self, csv, options.gpu_model)

    def _save(self, name, cell):
        path = self.work / name
        path.write_text("\n" + cell)
        if name not in self.named:
            self.named.append(name)
        kind = "source, built with every later program cell" if name.endswith(SOURCE_SUFFIXES) else \
            f'header: #include "{name}"'
        self.say(f"saved {name} ({kind})")

    def _announce(self, chosen):
        if self.announced == (chosen.kind, chosen.why):
            return
        self.announced = (chosen.kind, chosen.why)
        if chosen.kind == "gpu":
            self.say(f"[built with nvcc for the GPU: {chosen.why}]")
        else:
            self.say(f"[built for the CPU emulator: {chosen.why}]")

    # ---- build ---------------------------------------------------------------
    def _compile(self, cell, chosen, flags):
        """Builds the program; returns its path, or None after reporting a compile error."""
        main = self.work / MAIN_FILE
        main.write_text("\n" + cell)
        sources = [MAIN_FILE] + [name for name in self.named if name.endswith(SOURCE_SUFFIXES)]
        program = self.work / "program"
        program.unlink(missing_ok=True)
        if chosen.kind == "gpu":
            command = [chosen.nvcc, *sources, "-o", str(program), "-I", str(self.root / "common"), *flags]
            if not any(f.startswith(("-arch", "-gencode", "--gpu-architecture")) for f in flags):
                command.append("-arch=native")
        else:
            if not (self.build / "cuemu-driver.env").is_file():
                self.say(f"building the CPU emulator in {self.build} (once: a few minutes)")
            command = [str(self.root / "bin" / "nvcc-emu"), *sources, "-o", str(program), *flags]
        built = subprocess.run(command, cwd=self.work, capture_output=True, text=True, errors="replace")
        message = (built.stdout + built.stderr).replace(str(self.work) + os.sep, "")
        if built.returncode == 0:
            if message.strip():
                self.warn(message.rstrip())  # warnings
            return program
        self._report_compile_error(message)
        return None

    def _report_compile_error(self, message):
        refused = NVCC_EMU_OPTION.search(message) or NVCC_OPTION.search(message)
        if refused and not FIRST_ERROR.search(message):
            raise CellError(f"the compiler refused the line's flags: {message.strip().splitlines()[0]}")
        first = FIRST_ERROR.search(message)
        if first:
            where = "this cell" if first["file"] == MAIN_FILE else first["file"]
            line = first["line"] or first["nvcc_line"]
            self.warn(f"compile error at line {line} of {where}: {first['text']}")
        else:
            self.warn("the build failed:")
        self.warn(message.rstrip())

    # ---- run -----------------------------------------------------------------
    def _execute(self, program, args, environment):
        ran = subprocess.run([str(program), *args], capture_output=True, text=True, errors="replace",
                             env=environment)
        # The emulator's reports name the cells' files by their path in this session's folder.
        here = str(self.work) + os.sep
        if ran.stdout:
            (self._out or sys.stdout).write(ran.stdout.replace(here, ""))
        if ran.stderr:
            (self._err or sys.stderr).write(ran.stderr.replace(here, ""))
        if ran.returncode > 0:
            self.warn(f"(the program exited with status {ran.returncode})")
        elif ran.returncode < 0:
            self.warn(f"(the program was stopped by {signal.Signals(-ran.returncode).name})")
        return ran.returncode
