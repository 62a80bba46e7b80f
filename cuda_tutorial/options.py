"""options.py - what a `%%cuda` line asks for.

    %%cuda [--emu | --gpu] [--profile [--gpu-model NAME]] [nvcc flags ...] [-- program args ...]
    %%cuda --name FILE

The magic's own options are read here; every other option is an nvcc-style
compiler flag, handed to nvcc or bin/nvcc-emu unchanged (they refuse what they
do not know, with their own one-line message). Mistakes here raise CellError
with one line that says what to write instead.
"""

import difflib
import re
import shlex
from dataclasses import dataclass, field
from typing import List, Optional

from .errors import CellError

USAGE = ("usage: %%cuda [--emu|--gpu] [--profile [--gpu-model NAME]] [nvcc flags] [-- program args]"
         "  or  %%cuda --name FILE")

OWN_OPTIONS = ["--emu", "--gpu", "--name", "--profile", "--gpu-model", "--help"]

# Compiler flags whose value may come as the next word (-I include, -arch sm_90).
FLAGS_WITH_VALUE = {"-I", "-D", "-U", "-L", "-l", "-include", "-Xcompiler", "-Xptxas", "-Xlinker",
                    "-arch", "-code", "-gencode", "--gpu-architecture", "--gpu-code", "-ccbin",
                    "--compiler-bindir", "-maxrregcount", "--maxrregcount", "-std"}

# What a named cell may be called: a source or header file in the cells' folder.
NAMED_FILE = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.-]*\.(cu|cuh|h|hpp|hh|inc|cpp|cc|cxx|c)$")

# The profiler's default GPU: T4, the free GPU of notebook services.
DEFAULT_GPU_MODEL = "T4"


@dataclass
class CellOptions:
    backend: str = "auto"           # auto, emu or gpu
    name: Optional[str] = None      # --name FILE: save the cell, do not run it
    profile: bool = False
    gpu_model: str = DEFAULT_GPU_MODEL
    compiler_flags: List[str] = field(default_factory=list)
    program_args: List[str] = field(default_factory=list)
    help: bool = False


def _unknown_option(word):
    """A long option the magic does not know: a typo of its own, or a compiler flag."""
    close = difflib.get_close_matches(word.split("=")[0], OWN_OPTIONS, n=1, cutoff=0.75)
    if close:
        raise CellError(f"unknown option '{word}' (did you mean {close[0]}?)")


def parse_line(line):
    """Reads a %%cuda line into CellOptions; raises CellError on a mistake."""
    try:
        words = shlex.split(line)
    except ValueError as error:
        raise CellError(f"cannot read the %%cuda line ({error}): check its quotes")
    options = CellOptions()
    backend_words = []
    k = 0
    while k < len(words):
        word = words[k]
        k += 1
        if word == "--":
            options.program_args = words[k:]
            break
        if word in ("-h", "--help"):
            options.help = True
        elif word in ("--emu", "--gpu"):
            backend_words.append(word)
            options.backend = word[2:]
        elif word == "--profile":
            options.profile = True
        elif word in ("--name", "--gpu-model"):
            if k >= len(words) or words[k].startswith("-"):
                raise CellError(f"{word} needs a value ({'--name kernels.cuh' if word == '--name' else '--gpu-model T4'})")
            value = words[k]
            k += 1
            if word == "--name":
                options.name = value
            else:
                options.gpu_model = value
        elif word.startswith("--name=") or word.startswith("--gpu-model="):
            key, value = word.split("=", 1)
            if not value:
                raise CellError(f"{key} needs a value")
            if key == "--name":
                options.name = value
            else:
                options.gpu_model = value
        elif word in ("-o", "--output-file") or word.startswith("--output-file="):
            raise CellError("-o: the magic names the program itself; leave -o out")
        elif word.startswith("-"):
            if word.startswith("--"):
                _unknown_option(word)
            options.compiler_flags.append(word)
            if word in FLAGS_WITH_VALUE:
                if k >= len(words):
                    raise CellError(f"{word} needs a value")
                options.compiler_flags.append(words[k])
                k += 1
        else:
            raise CellError(f"unexpected '{word}': program arguments go after --"
                            f" (%%cuda -- {shlex.join(words[k - 1:])})")
    if len(backend_words) > 1:
        raise CellError("choose one of --emu and --gpu")
    if options.name is not None:
        if not NAMED_FILE.match(options.name):
            raise CellError(f"--name {options.name}: expected a plain file name such as kernels.cuh or"
                            " helpers.cu (no folders; .cu .cuh .h .hpp .cpp .c)")
        if options.profile or options.compiler_flags or options.program_args or backend_words:
            raise CellError("--name FILE only saves the cell as FILE; put flags and arguments on the"
                            " cell that runs the program")
    if options.gpu_model != DEFAULT_GPU_MODEL and not options.profile:
        raise CellError("--gpu-model goes with --profile")
    return options
