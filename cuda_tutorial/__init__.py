"""cuda_tutorial - CUDA cells in Jupyter, on a GPU or on this tutorial's CPU emulator.

    %load_ext cuda_tutorial

then %%cuda cells (%%cuda --help) and %cuda_lesson NN. See the README's
"In a notebook" section.
"""


def load_ipython_extension(ipython):
    from .magic import CudaMagics  # IPython only where the extension is loaded

    ipython.register_magics(CudaMagics)
