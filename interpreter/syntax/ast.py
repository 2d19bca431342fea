"""The typed AST of the rulebook language: frozen attrs nodes, one class per grammar alias.

Each class's docstring shows the syntax it holds. Every node has a keyword-only `span`
(excluded from equality and repr), so two parses of the same text compare equal whatever
their layout, which is what `rulecraft fmt` relies on.

The nodes are defined in three modules, one per part of the grammar (expressions.py with the
types, statements.py, declarations.py), and gathered here, so that every stage names a node the
same way: `from ..syntax import ast as s`, then `s.Let`.
"""

from .declarations import *  # noqa: F403  (this module is the three gathered under one name)
from .expressions import *  # noqa: F403
from .statements import *  # noqa: F403
