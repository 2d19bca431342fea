"""Decisions as data: what a game asks (`Decision`, its `Option`s) and what kind of ask it is.

A `Decision` is what every caller answers: who, the prompt, the options. `Game.pending_ask()`
says more, for the tools that explain or look behind a decision (records, information sets):
which of the four statements asks it (`ChooseAsk`, `MenuAsk`, `UseAsk`, `DrawAsk`), with the
facts of that kind, so that no tool reads the game's frames or matches the English of a prompt.
"""

from __future__ import annotations

from typing import Any

import attrs

from ..errors import GameError, Span
from ..inputs import clip
from ..language.values import Player
from ..syntax import ast as s

TIER_PREFIX = "tier "


@attrs.define(unsafe_hash=True)
class Option:
    """One answer a decision accepts: its label (what records store) and its value.

    Never changed once made, though not declared frozen: a decision makes one per answer it offers,
    and attrs' frozen initializer costs nearly three times as much. Equal and hashed by its label."""

    label: str
    value: Any = attrs.field(eq=False)


@attrs.define(unsafe_hash=True)
class PlacedOption(Option):
    """An option that offers a card by its place (`card 2 of hand[P1]`), to a chooser who may not
    identify it (`knowledge.offered_by_place`); `card` is the card's own label, for the trace
    lines of those who may (the full trace, a player it was revealed to)."""

    card: str = attrs.field(default="", eq=False)


@attrs.define(unsafe_hash=True)
class Decision:
    """A question the game waits on: who answers (None: the table, i.e. chance), what, and the options.

    Never changed once made, though not declared frozen (as `Option`): a game makes one at each
    decision, and attrs' frozen initializer costs three times as much (some 500 ns against 150).
    Equal and hashed by who, the prompt and the options."""

    player: Player | None
    prompt: str
    options: tuple[Option, ...]
    span: Span = attrs.field(eq=False, repr=False)
    chance_weights: tuple[int, ...] | None = attrs.field(default=None, eq=False, repr=False)

    @property
    def labels(self) -> list[str]:
        return [o.label for o in self.options]

    @property
    def by(self) -> str:
        return "table" if self.player is None else str(self.player)

    def option_for(self, answer: str | int | Option) -> Option:
        """The option an answer names: an option (by its label), an option's index or a label; else a
        GameError that names the legal answers."""
        if isinstance(answer, Option):
            answer = answer.label
        if isinstance(answer, int) and not isinstance(answer, bool):
            if 0 <= answer < len(self.options):
                return self.options[answer]
            raise GameError(f"answer {answer} is out of range: {len(self.options)} options")
        for option in self.options:
            if option.label == answer:
                return option
        legal = ", ".join(clip(label) for label in self.labels[:12])
        more = f" and {len(self.labels) - 12} more" if len(self.labels) > 12 else ""
        raise GameError(
            f"'{clip(str(answer))}' is not a legal answer to \"{clip(self.prompt)}\" "
            f"(by {self.by}); legal: {legal}{more}"
        )


def tier_label(tier: s.Tier) -> str:
    """The label of the option that uses an ability's tier: `tier 2: Gain two coins`."""
    return f"{TIER_PREFIX}{tier.level}: {tier.text}"


@attrs.frozen
class Ask:
    """The pending decision and what its statement offers (the values of a choice, picked ones too)."""

    decision: Decision
    offered: tuple[Any, ...]


@attrs.frozen
class ChooseAsk(Ask):
    """`choose … from …`: a pick among values."""


@attrs.frozen
class MenuAsk(Ask):
    """`choose { "label" when … -> … }`: a menu of labelled options, each with its condition."""

    menu: s.Menu


@attrs.frozen
class UseAsk(Ask):
    """`use ability`: which tier (or none) to use."""

    @staticmethod
    def names_a_tier(label: str) -> bool:
        """Whether an answer is written as a tier's option is (`tier 3: …`), legal or not."""
        return label.startswith(TIER_PREFIX)


@attrs.frozen
class DrawAsk(Ask):
    """`draw … from … to …` answered by the table: which card comes off the source zone."""

    source: str  # zone keys
    destination: str
