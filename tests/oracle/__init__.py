"""The tree-walking definition of each kind of expression, which the tests compare the generated code with."""

from .definitions import EVAL, evaluate

__all__ = ["EVAL", "evaluate"]
