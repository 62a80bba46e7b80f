"""magic.py - the IPython side: %%cuda, %cuda_lesson and %%cuda_lesson.

A thin layer over cells.Session and lesson.py. A learner's mistake (CellError)
becomes IPython's UsageError, which the notebook shows as one line, without a
traceback.
"""

from IPython.core.error import UsageError
from IPython.core.magic import Magics, cell_magic, line_cell_magic, magics_class
from IPython.display import SVG, display

from . import lesson
from .cells import Session
from .errors import CellError


@magics_class
class CudaMagics(Magics):
    def __init__(self, shell):
        super().__init__(shell)
        self._session = None

    def session(self):
        if self._session is None:
            self._session = Session(show_svg=lambda path: display(SVG(filename=str(path))))
        return self._session

    @cell_magic
    def cuda(self, line, cell):
        """%%cuda [--emu|--gpu] [--name FILE] [--profile] [nvcc flags] [-- program args]: build and run the cell."""
        try:
            self.session().run(line, cell)
        except CellError as error:
            raise UsageError(f"%%cuda: {error}") from None

    @line_cell_magic
    def cuda_lesson(self, line, cell=None):
        """%cuda_lesson NN [FILE | run|check|solution [flags]]; %%cuda_lesson NN FILE saves and checks."""
        try:
            if cell is None:
                lesson.line_magic(self.session(), line,
                                  lambda text: self.shell.set_next_input(text, replace=False))
            else:
                lesson.cell_magic(self.session(), line, cell)
        except CellError as error:
            raise UsageError(f"%cuda_lesson: {error}") from None
