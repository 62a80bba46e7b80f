"""backend.py - does a cell build with nvcc for a GPU, or for the CPU emulator?

The same question ./tutorial asks, answered the same way: nvcc must exist and
common/gpu_probe.cu, built with it, must run (no driver, no device, or a
driver older than the toolkit make its first CUDA call fail). ./tutorial's own
probe binary is used when its build folder has one; otherwise the probe is
built here once per session. The answer is kept for the session.
"""

import os
import platform
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

from .errors import CellError


@dataclass
class Backend:
    kind: str           # "gpu" or "emu"
    why: str            # shown once: the GPU's name, or why the emulator is used
    nvcc: Optional[str] = None


def find_nvcc():
    """nvcc on PATH, else where ./tutorial looks for it ($CUDA_PATH, $CUDA_HOME, /usr/local/cuda)."""
    found = shutil.which("nvcc")
    if found:
        return found
    for base in (os.environ.get("CUDA_PATH"), os.environ.get("CUDA_HOME"), "/usr/local/cuda"):
        if base and (Path(base) / "bin" / "nvcc").is_file():
            return str(Path(base) / "bin" / "nvcc")
    return None


def _no_driver_here():
    """On Linux a working NVIDIA driver has /dev/nvidiactl (WSL: /dev/dxg); without
    either the probe cannot succeed, and building it would cost seconds."""
    if platform.system() != "Linux":
        return False
    return not (Path("/dev/nvidiactl").exists() or Path("/dev/dxg").exists())


def _probe(root, build, nvcc, work):
    """Runs the GPU probe; returns (works, the GPU's name or why not)."""
    probe = build / "bin" / "tutorial_gpu_probe"
    if not probe.is_file():
        probe = work / "gpu_probe"
        if not probe.is_file():
            built = subprocess.run([nvcc, "-o", str(probe), str(root / "common" / "gpu_probe.cu")],
                                   capture_output=True, text=True)
            if built.returncode != 0:
                last_line = (built.stderr.strip().splitlines() or ["no message"])[-1]
                return False, f"nvcc could not build the GPU probe: {last_line}"
    ran = subprocess.run([str(probe)], capture_output=True, text=True)
    answer = (ran.stdout + ran.stderr).strip() or "the GPU probe failed"
    return ran.returncode == 0, answer


def choose(asked, root, build, work, known=None):
    """The backend for a cell: asked is auto, emu or gpu; known is the session's earlier answer."""
    if asked == "emu":
        return Backend("emu", "asked for (--emu or CUDA_TUTORIAL_BACKEND=emu)")
    if known is None:
        nvcc = find_nvcc()
        if nvcc is None:
            known = Backend("emu", "nvcc not found")
        elif _no_driver_here():
            known = Backend("emu", "no NVIDIA driver here (no /dev/nvidiactl)", nvcc)
        else:
            works, answer = _probe(root, build, nvcc, work)
            known = Backend("gpu", answer, nvcc) if works else Backend("emu", f"the GPU cannot run: {answer}", nvcc)
    if asked == "gpu" and known.kind != "gpu":
        raise CellError(f"--gpu: no usable GPU here ({known.why}); leave out --gpu to use the CPU emulator")
    return known
