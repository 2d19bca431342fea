"""The syntax: the AST and the parser that builds it from a rulebook's text."""
