"""Editor support: highlighting (a Pygments lexer and a TextMate grammar) and a language server.

Every word these tools know comes from `words.py`, which reads it from the Lark grammar, so the
highlighters and the parser cannot disagree about what a keyword is.
"""
