"""repo.py - where the tutorial's repository and its build folder are.

The package lives in the repository (cuda_tutorial/ beside ./tutorial), so an
editable install (pip install -e .) and an import from the repository root
both find the tree from this file. A copy installed elsewhere looks for it in
CUDA_TUTORIAL_ROOT, then in the working folder and the folders above it.
"""

import os
from pathlib import Path

from .errors import CellError


def is_tutorial_root(folder):
    return (folder / "tutorial").is_file() and (folder / "bin" / "nvcc-emu").is_file()


def find_root():
    candidates = []
    if os.environ.get("CUDA_TUTORIAL_ROOT"):
        candidates.append(Path(os.environ["CUDA_TUTORIAL_ROOT"]))
    candidates.append(Path(__file__).resolve().parent.parent)
    cwd = Path.cwd()
    candidates += [cwd, *cwd.parents]
    for folder in candidates:
        if is_tutorial_root(folder):
            return folder.resolve()
    raise CellError("cannot find the tutorial's repository: open the notebook from the repository's"
                    " folder, or set CUDA_TUTORIAL_ROOT to it")


def build_dir(root):
    """The build folder ./tutorial and bin/nvcc-emu use (the same variables choose it)."""
    chosen = os.environ.get("CUEMU_BUILD_DIR") or os.environ.get("TUTORIAL_BUILD_DIR")
    return Path(chosen) if chosen else root / "build"
