"""test_magic.py - the %%cuda magic's cells, built and run on the CPU emulator.

Drives cuda_tutorial.cells.Session directly (no Jupyter needed); the last case
goes through IPython, where it is installed, to see a learner's mistake
arrive as one line without a traceback. CTest runs this file
(tests/notebook/CMakeLists.txt) with CUEMU_BUILD_DIR set to its build folder.
"""

import io
import os
import sys
import unittest
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from cuda_tutorial import backend, profile  # noqa: E402
from cuda_tutorial.cells import Session  # noqa: E402
from cuda_tutorial.errors import CellError  # noqa: E402

VECTOR_ADD = r"""
#include <cstdio>
#include <cstdlib>
#include "cuda_check.h"

__global__ void add(const int* a, const int* b, int* c, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) c[i] = a[i] + b[i];
}

int main(int argc, char** argv) {
    int n = argc > 1 ? std::atoi(argv[1]) : 10;
    size_t bytes = n * sizeof(int);
    int *a = (int*)std::malloc(bytes), *b = (int*)std::malloc(bytes), *c = (int*)std::malloc(bytes);
    for (int i = 0; i < n; ++i) { a[i] = i; b[i] = 3 * i + 1; }
    int *d_a, *d_b, *d_c;
    CUDA_CHECK(cudaMalloc(&d_a, bytes)); CUDA_CHECK(cudaMalloc(&d_b, bytes)); CUDA_CHECK(cudaMalloc(&d_c, bytes));
    CUDA_CHECK(cudaMemcpy(d_a, a, bytes, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(d_b, b, bytes, cudaMemcpyHostToDevice));
    add<<<(n + 127) / 128, 128>>>(d_a, d_b, d_c, n);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaMemcpy(c, d_c, bytes, cudaMemcpyDeviceToHost));
    long long sum = 0;
    for (int i = 0; i < n; ++i) sum += c[i];
    std::printf("n=%d sum=%lld\n", n, sum);
    return 0;
}
"""


def expected_sum(n):
    return sum(i + 3 * i + 1 for i in range(n))


class Cells(unittest.TestCase):
    def setUp(self):
        self.out, self.err = io.StringIO(), io.StringIO()
        self.pictures_shown = []
        self.session = Session(root=ROOT, out=self.out, err=self.err, show_svg=self.pictures_shown.append)

    def run_cell(self, line, cell):
        self.session.run(line, cell)
        return self.out.getvalue(), self.err.getvalue()

    def test_a_passing_program_runs_with_its_arguments(self):
        out, err = self.run_cell("--emu -O2 -- 1000", VECTOR_ADD)
        self.assertIn("[built for the CPU emulator", out)
        self.assertIn(f"n=1000 sum={expected_sum(1000)}\n", out)
        self.assertEqual(err, "")

    def test_a_compile_error_names_the_cells_own_line(self):
        # Jupyter shows the %%cuda line as line 1: the undeclared name is on line 4.
        cell = "#include <cstdio>\nint main() {\n    total = 3;\n    return 0;\n}\n"
        out, err = self.run_cell("--emu", cell)
        summaries = [line for line in err.splitlines() if line.startswith("compile error")]
        self.assertEqual(summaries, ["compile error at line 4 of this cell: ‘total’ was not declared in this scope"])
        self.assertIn("cell.cu:4:", err)
        self.assertNotIn(str(self.session.work), err)
        self.assertNotIn("Traceback", err)

    def test_nvccs_compile_errors_name_the_line_too(self):
        # nvcc's front end (a GPU build) writes FILE(LINE): error: ...
        self.session._report_compile_error('cell.cu(3): error: identifier "total" is undefined\n'
                                           '1 error detected in the compilation of "cell.cu".\n')
        self.session._report_compile_error('kernels.cuh(5): error: expected a ";"\n')
        summaries = [line for line in self.err.getvalue().splitlines() if line.startswith("compile error")]
        self.assertEqual(summaries, ['compile error at line 3 of this cell: identifier "total" is undefined',
                                     'compile error at line 5 of kernels.cuh: expected a ";"'])

    def test_an_out_of_bounds_kernel_gets_the_emulators_report(self):
        cell = VECTOR_ADD.replace("if (i < n) c[i]", "c[i]")
        out, err = self.run_cell("--emu -- 100", cell)
        self.assertIn("cuemu: out-of-bounds read in kernel 'add'", err)
        # The faulting line, as Jupyter numbers the cell's lines.
        line = 1 + cell.splitlines().index("    c[i] = a[i] + b[i];") + 1
        self.assertIn(f"at cell.cu:{line} in add(", err)
        self.assertIn("(the program exited with status 1)", err)

    def test_several_cells_form_one_program(self):
        header = "#pragma once\n__global__ void scale(float* x, float by, int n);\nvoid run_scale(float* x, float by, int n);\n"
        source = ('#include "scale.cuh"\n'
                  "__global__ void scale(float* x, float by, int n) {\n"
                  "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                  "    if (i < n) x[i] *= by;\n}\n"
                  "void run_scale(float* x, float by, int n) { scale<<<(n + 63) / 64, 64>>>(x, by, n); }\n")
        main = ('#include <cstdio>\n#include "scale.cuh"\n'
                "int main() {\n    const int n = 300;\n    float h[n];\n"
                "    for (int i = 0; i < n; ++i) h[i] = float(i);\n"
                "    float* d; cudaMalloc(&d, sizeof h);\n"
                "    cudaMemcpy(d, h, sizeof h, cudaMemcpyHostToDevice);\n"
                "    run_scale(d, 2.0f, n);\n"
                "    cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);\n"
                '    std::printf("h[299]=%g\\n", h[299]);\n}\n')
        self.session.run("--name scale.cuh", header)
        self.session.run("--name scale.cu", source)
        out, err = self.run_cell("--emu", main)
        self.assertIn('saved scale.cuh (header: #include "scale.cuh")', out)
        self.assertIn("saved scale.cu (source", out)
        self.assertIn("h[299]=598\n", out)
        self.assertEqual(err, "")

    def test_bad_flags_are_one_line_each(self):
        cases = {
            "--bogus": "the compiler refused the line's flags: nvcc-emu: unknown option '--bogus'",
            "--profil": "unknown option '--profil' (did you mean --profile?)",
            "--name": "--name needs a value",
            "--name ../up.cu": "--name ../up.cu: expected a plain file name",
            "--emu --gpu": "choose one of --emu and --gpu",
            "1000": "unexpected '1000': program arguments go after --",
            "--name k.cuh -O3": "--name FILE only saves the cell",
            "-o prog": "-o: the magic names the program itself",
            "--gpu-model A100": "--gpu-model goes with --profile",
            "-I": "-I needs a value",
            "'unclosed": "cannot read the %%cuda line",
        }
        for line, start in cases.items():
            with self.subTest(line=line):
                with self.assertRaises(CellError) as raised:
                    self.session.run(f"--emu {line}" if line == "--bogus" else line, VECTOR_ADD)
                message = str(raised.exception)
                self.assertTrue(message.startswith(start), message)
                self.assertNotIn("\n", message)

    def test_the_default_backend_comes_from_the_environment(self):
        os.environ["CUDA_TUTORIAL_BACKEND"] = "cpu"
        try:
            with self.assertRaises(CellError) as raised:
                self.session.run("", VECTOR_ADD)
            self.assertEqual(str(raised.exception), "CUDA_TUTORIAL_BACKEND=cpu: expected auto, emu or gpu")
            os.environ["CUDA_TUTORIAL_BACKEND"] = "emu"
            out, err = self.run_cell("-- 7", VECTOR_ADD)
            self.assertIn("[built for the CPU emulator: asked for", out)
            self.assertIn(f"n=7 sum={expected_sum(7)}\n", out)
        finally:
            del os.environ["CUDA_TUTORIAL_BACKEND"]

    def test_gpu_where_none_works_is_one_line(self):
        chosen = backend.choose("auto", ROOT, self.session.build, self.session.work)
        if chosen.kind == "gpu":
            self.skipTest(f"a GPU works here ({chosen.why})")
        with self.assertRaises(CellError) as raised:
            self.session.run("--gpu", VECTOR_ADD)
        self.assertTrue(str(raised.exception).startswith("--gpu: no usable GPU here ("), raised.exception)
        self.assertEqual(self.out.getvalue(), "")

    def test_profile_shows_the_report_or_says_it_is_missing(self):
        out, err = self.run_cell("--profile -- 7", VECTOR_ADD)
        if profile.available(ROOT):
            self.assertIn(f"n=7 sum={expected_sum(7)}\n", out)
            self.assertTrue(any(p.name == "roofline.svg" for p in self.pictures_shown), self.pictures_shown)
        else:
            self.assertEqual(out, profile.NOT_AVAILABLE + "\n")
            self.assertEqual(err, "")


STUB_REPORT_TOOL = r"""
import sys
from pathlib import Path
csv, flag, model, out_flag, out = sys.argv[1:]
assert (flag, out_flag) == ("--gpu-model", "--out"), sys.argv
print(f"table of {Path(csv).read_text().strip()} on {model}")
for name in ("roofline.svg", "access_global.svg", "access_shared.svg"):
    (Path(out) / name).write_text("<svg xmlns='http://www.w3.org/2000/svg'/>")
"""


class ProfileReport(unittest.TestCase):
    """--profile's second half, against a stand-in for tools/profile_report.py that
    takes the same command line (CSV --gpu-model NAME --out DIR)."""

    def setUp(self):
        import tempfile
        self.folder = tempfile.TemporaryDirectory()
        base = Path(self.folder.name)
        (base / "tools").mkdir()
        (base / "tools" / "profile_report.py").write_text(STUB_REPORT_TOOL)
        (base / "work").mkdir()
        self.said, self.warned, self.shown = [], [], []
        self.session = type("FakeSession", (), {})()
        self.session.root, self.session.work = base, base / "work"
        self.session.say, self.session.warn = self.said.append, self.warned.append
        self.session.show_svg = self.shown.append

    def tearDown(self):
        self.folder.cleanup()

    def test_the_table_and_every_picture_are_shown(self):
        self.assertTrue(profile.available(self.session.root))
        csv = self.session.work / "profile.csv"
        csv.write_text("kernel,grid,block\n")
        profile.report(self.session, csv, "A100")
        self.assertEqual(self.said, ["table of kernel,grid,block on A100"])
        self.assertEqual([p.name for p in self.shown], ["roofline.svg", "access_global.svg", "access_shared.svg"])
        self.assertEqual(self.warned, [])

    def test_a_program_without_counters_is_one_line(self):
        profile.report(self.session, self.session.work / "profile.csv", "T4")
        self.assertEqual(self.warned, ["--profile: the program wrote no counters (did it launch a kernel?)"])
        self.assertEqual(self.shown, [])


class ThroughIPython(unittest.TestCase):
    def test_a_mistake_is_one_line_without_a_traceback(self):
        try:
            from IPython.core.interactiveshell import InteractiveShell
            from IPython.utils.capture import capture_output
        except ImportError:
            self.skipTest("IPython is not installed")
        shell = InteractiveShell.instance()
        shell.run_line_magic("load_ext", "cuda_tutorial")
        with capture_output() as captured:
            result = shell.run_cell("%%cuda --emu --gpu\nint main() {}\n")
        self.assertFalse(result.success)
        text = captured.stdout + captured.stderr
        self.assertEqual(text.strip(), "UsageError: %%cuda: choose one of --emu and --gpu")


if __name__ == "__main__":
    unittest.main(verbosity=2)
