"""rulecraft: a rulebook language for tabletop games and a generic interpreter that runs it.

>>> import rulecraft
>>> rb = rulecraft.load_text('''
... game Coin players 1..1
... var heads: int = 0 public
... play { let side = choose one from ["heads", "tails"] by table
...        if side == "heads" { set heads += 1 } }
... ''')
>>> game = rb.new_game(players=1, seed=3)
>>> game.over
True
"""

from .errors import GameError, RecordError, RulebookError, RulecraftError
from .rulebook import Rulebook, bundled_names, load, load_text
from .runtime.asks import Decision, Option
from .runtime.game import Event, Game

__all__ = [
    "Decision",
    "Event",
    "Game",
    "GameError",
    "Option",
    "RecordError",
    "Rulebook",
    "RulebookError",
    "RulecraftError",
    "bundled_names",
    "load",
    "load_text",
]
