"""A zone's cards counted by label: the options of a draw from it and their weights.

A draw the table would answer offers one option per distinct label, in the order the labels first come,
weighted by how many cards carry each (`Decisions._zone_chance_options`, and the draw made at once,
`Decisions.draw_at_once`, which keeps a zone's tally in the memo and brings it up to date after each
card drawn instead of counting the zone again).

A tally is `(order, counts, grouped)`: the labels in the order they first come, each one's count, and the
labels laid out as the weights lay them (each label as many times as it is counted, in that order). The
option whose weights hold the number r (0 <= r < the cards: the r-th card's weight, counting the options in
order) is `grouped[r]`: one look-up, where walking the weights took one step a label.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import chain, repeat

from .basics import count_into

Tally = tuple[tuple[str, ...], dict[str, int], tuple[str, ...]]


def label_tally(labels: Sequence[str]) -> Tally | None:
    """A zone's distinct labels in the order they first come, how many of its cards carry each, and the
    labels laid out by those weights: the options of a draw from it and their weights
    (`Decisions.draw_at_once`); None if no two are alike (each card its own option, of weight 1, in the
    zone's order)."""
    if len(dict.fromkeys(labels)) == len(labels):  # (one C call: the commonest case, a deck of cards all unlike)
        return None
    counts: dict[str, int] = {}
    count_into(counts, labels)  # (in the order each label first comes)
    return tuple(counts), counts, tuple(chain.from_iterable(map(repeat, counts, counts.values())))


def tally_after_draw(tally: Tally, labels: Sequence[str], chosen: str, place: int, drawn: int) -> Tally:
    """The tally of `labels` just after the card at `drawn`, the first card of label `chosen` (the `place`-th
    label of the tally before), left them: `label_tally(labels)`, made from the tally before (held to it by
    tests/test_draws.py). The other labels keep their order; `chosen`, if a card of it is left, now first
    comes where its next card lies, after the labels that first come before that (the labels of the cards
    between, all after it in the order before: a run of the labels that followed it)."""
    order, counts, grouped = tally
    counts = counts.copy()  # (a tally is kept in the memo, which clones share: never changed)
    left = counts[chosen] - 1
    start = grouped.index(chosen)  # (where its weights begin: one of them goes)
    if left == 0:
        del counts[chosen]
        return order[:place] + order[place + 1 :], counts, grouped[:start] + grouped[start + 1 :]
    counts[chosen] = left
    between = labels[drawn : labels.index(chosen, drawn)]
    after = place + 1
    while after < len(order) and order[after] in between:
        after += 1
    if after == place + 1:
        return order, counts, grouped[:start] + grouped[start + 1 :]
    # `chosen`'s weights (one fewer) go after those of the labels it now comes after
    end = start + 1 + left
    moved = end + sum([counts[x] for x in order[place + 1 : after]])
    return (
        order[:place] + order[place + 1 : after] + (chosen,) + order[after:],
        counts,
        grouped[:start] + grouped[end:moved] + grouped[start + 1 : end] + grouped[moved:],
    )


def label_counts(ids: Sequence[int], labels: Sequence[str]) -> tuple[dict[str, int], dict[str, int]]:
    """For each distinct label among cards (`labels[i]` the label of `ids[i]`), in the order the
    labels first come: the id of its first card, and how many cards carry it."""
    counts: dict[str, int] = {}
    count_into(counts, labels)  # (in the order each label first comes)
    earliest = dict(zip(reversed(labels), reversed(ids), strict=True))  # each label's first card: written last
    return {text: earliest[text] for text in counts}, counts
