"""Guildhall scenarios: a small fixed position, scripted answers, and the trace they produce.

A scenario starts at P1's first action of a seeded 2-player game. The seeded setup is answered
plainly (nobody discards; everyone places the first cards offered), then every hand, guild,
completed chapter and the discard pile go back to the deck, and the zones the scenario names
are filled, by label, from the deck (VP cards from the VP deck; a named row replaces the row).
P2 holds one purple Dancer unless told otherwise, so that P2's turn stops at a decision.
"""

from __future__ import annotations

import rulecraft
from rulecraft.render import trace_lines

RB = rulecraft.load("guildhall")
EMPTIED = ("hand[", "guild[", "closed[", "discard", "action[")


def start(position: dict[str, list[str]], players: int = 2, seed: int = 1) -> rulecraft.Game:
    """A game at P1's first action, from `position` (zone key -> card labels, the last on top)."""
    game = RB.new_game(players=players, seed=seed)
    while (decision := game.current_decision()) is not None and decision.prompt != "Your action":
        game.apply("done" if "done" in decision.labels else decision.labels[0])
    zones = game.view(None)["zones"]
    for key, labels in zones.items():
        if key.startswith(EMPTIED) and labels:
            game.arrange("deck", labels, source=key, ask=False)
    if "row" in position:
        game.arrange("vp_deck", zones["row"], source="row", ask=False)
    position = {"hand[P2]": ["purple Dancer"], **position}
    for key, labels in position.items():
        vp = key.startswith(("row", "vp_cards"))
        game.arrange(key, labels, source="vp_deck" if vp else "deck", ask=False)
    game.arrange("deck", [], ask=True)
    game.events.clear()
    return game


def run(game: rulecraft.Game, answers: list[str]) -> rulecraft.Game:
    """Answer the pending decisions with the given labels, in order."""
    for answer in answers:
        decision = game.current_decision()
        assert decision is not None, f"the game asks nothing, but the script says {answer!r}"
        assert answer in decision.labels, f"{answer!r} is not offered for {decision.prompt!r}: {decision.labels}"
        game.apply(answer)
    return game


def summary(game: rulecraft.Game) -> list[str]:
    """The zones and counters a reader checks a scenario by, after it ran."""
    zones = game.view(None)["zones"]
    lines = []
    for key in sorted(zones):
        if key.startswith(("hand[", "guild[", "action[", "closed[", "vp_cards[")) and zones[key]:
            lines.append(f"{key}: {', '.join(zones[key])}")
    lines.append(f"discard (top first): {', '.join(zones.get('discard', [])) or '-'}")
    for p in game.players:
        lines.append(f"VP of {p}: {game.score(p)}")
    lines.append(f"actions left: {game.state.vars['actions']}")
    decision = game.current_decision()
    lines.append(
        "over: " + ", ".join(game.result()["winners"])
        if game.over
        else f"waiting on {decision.by}: {decision.prompt}"
        if decision
        else "waiting on nothing"
    )
    return lines


def scenario_trace(position: dict[str, list[str]], answers: list[str], **options: int) -> tuple[rulecraft.Game, str]:
    """Run a scenario; return the game and its trace: position, answers, events, and the result."""
    game = start(position, **options)
    run(game, answers)
    lines = ["# rulebook: guildhall (Guildhall), a scenario at P1's first action", "# position:"]
    lines += [f"#   {key}: {', '.join(labels)}" for key, labels in position.items()]
    lines += ["# answers:"] + [f"#   {a}" for a in answers] + [""]
    lines += trace_lines(game)
    lines += [""] + [f"# {line}" for line in summary(game)]
    return game, "\n".join(lines) + "\n"
