"""The language itself, below the checker and the runtime: its types, its values and its built-in functions."""
