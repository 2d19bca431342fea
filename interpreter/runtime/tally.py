"""A zone's cards counted by label: the options of a draw from it and their weights.

A draw the table would answer offers one option per distinct label, in the order the labels first come,
weighted by how many cards carry each (`Decisions._zone_chance_options`, and the draw made at once,
`Decisions.draw_at_once`, which keeps a zone's tally in the memo and brings it up to date after each
card drawn instead of counting the zone again).
"""

from __future__ import annotations

from collections.abc import Sequence

from .basics import count_into


def label_tally(labels: Sequence[str]) -> tuple[tuple[str, ...], dict[str, int]] | None:
    """A zone's distinct labels in the order they first come, and how many of its cards carry each: the
    options of a draw from it and their weights (`Decisions.draw_at_once`); None if no two are alike (each
    card its own option, of weight 1, in the zone's order)."""
    if len(dict.fromkeys(labels)) == len(labels):  # (one C call: the commonest case, a deck of cards all unlike)
        return None
    counts: dict[str, int] = {}
    count_into(counts, labels)  # (in the order each label first comes)
    return tuple(counts), counts


def tally_after_draw(
    tally: tuple[tuple[str, ...], dict[str, int]], labels: Sequence[str], chosen: str, place: int, drawn: int
) -> tuple[tuple[str, ...], dict[str, int]]:
    """The tally of `labels` just after the card at `drawn`, the first card of label `chosen` (the `place`-th
    label of the tally before), left them: `label_tally(labels)`, made from the tally before (held to it by
    tests/test_draws.py). The other labels keep their order; `chosen`, if a card of it is left, now first
    comes where its next card lies, after the labels that first come before that (the labels of the cards
    between, all after it in the order before: a run of the labels that followed it)."""
    order, counts = tally
    counts = counts.copy()  # (a tally is kept in the memo, which clones share: never changed)
    left = counts[chosen] - 1
    if left == 0:
        del counts[chosen]
        return order[:place] + order[place + 1 :], counts
    counts[chosen] = left
    between = labels[drawn : labels.index(chosen, drawn)]
    after = place + 1
    while after < len(order) and order[after] in between:
        after += 1
    if after == place + 1:
        return order, counts
    return order[:place] + order[place + 1 : after] + (chosen,) + order[after:], counts


def label_counts(ids: Sequence[int], labels: Sequence[str]) -> tuple[dict[str, int], dict[str, int]]:
    """For each distinct label among cards (`labels[i]` the label of `ids[i]`), in the order the
    labels first come: the id of its first card, and how many cards carry it."""
    counts: dict[str, int] = {}
    count_into(counts, labels)  # (in the order each label first comes)
    earliest = dict(zip(reversed(labels), reversed(ids), strict=True))  # each label's first card: written last
    return {text: earliest[text] for text in counts}, counts
