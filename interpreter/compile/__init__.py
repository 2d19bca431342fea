"""Code generation: a checked rulebook's expressions and functions as one module of Python source."""
