"""errors.py - the one kind of error a learner's mistake raises.

A CellError carries one line for the learner (a bad flag, --gpu without a GPU,
no such lesson). The magic shows it as that line, never as a Python traceback.
"""


class CellError(Exception):
    pass
