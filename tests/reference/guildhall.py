"""Guildhall written by hand in plain Python: the yardstick for rulecraft's `rulebooks/guildhall.rules`.

Not part of the package. It serves twice:
- tests/test_reference_guildhall.py plays the same games on both engines, with the same answers
  (the table's included), and checks that every decision is the same question with the same
  options in the same order, and that the games end alike;
- examples/benchmarks/compare.py plays it standalone (`run(seed)`) against rulecraft: outcome
  statistics first, then games per second.

It is written the way one writes a game engine by hand: cards are small integers, zones are
lists, the rules are Python functions. The flow of a game is a generator that yields each
decision and receives the answer, so the engine has the same shape as rulecraft's `Game`
(`current_decision()`, `legal_answers()`, `apply(label)`, `over`, `result()`), with the same
labels. Like rulecraft, it takes a decision with a single option at once, without asking.

Chance: with `auto_chance=True` (the default) decks are shuffled with `random.Random(seed)` and
drawn from the top. With `auto_chance=False`, every draw from a shuffled zone with more than one
distinct card is a decision of the table (`player` None) whose options are the distinct labels of
the cards left, in the order rulecraft lists them (the zone's order, first occurrence), so a
rulecraft record can be replayed here answer for answer.

What it encodes is rulebooks/guildhall.rules (the same choices where the rules are silent); the
comments cite the digest's sections as that rulebook does.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Generator, Iterable
from typing import Any

PROFESSIONS = ("Assassin", "Dancer", "Farmer", "Weaver", "Historian", "Trader")
COLOURS = ("red", "blue", "yellow", "green", "purple")
ASSASSIN, DANCER, FARMER, WEAVER, HISTORIAN, TRADER = range(6)

# A profession card is prof * 5 + colour (30 distinct cards, 4 copies each: §2). Identical cards
# (same profession and colour) are the same integer.
WORKER = [f"{COLOURS[c % 5]} {PROFESSIONS[c // 5]}" for c in range(30)]
WORKER_OF = {label: c for c, label in enumerate(WORKER)}
PROF = [c // 5 for c in range(30)]
PLAY = ["play " + label for label in WORKER]

# §9.4 (RECONSTRUCTED there, as in the rulebook): kind, VP, cost, copies, copies removed with 2-3 players.
VP_KINDS = [
    ("steal_chapter", 2, 1, 3, 1),
    ("draw_six", 3, 1, 3, 1),
    ("swap_one_for_two", 3, 1, 3, 1),
    ("place_any", 3, 1, 3, 1),
    ("take_one", 4, 1, 3, 1),
    ("extra_action", 4, 1, 3, 1),
    ("plain", 5, 1, 6, 2),
    ("two_actions", 7, 2, 3, 1),
    ("plain", 9, 2, 3, 1),
]
VP_NAME = [f"{vp} VP {kind} (cost {cost})" for kind, vp, cost, _, _ in VP_KINDS]
VP_OF = {label: v for v, label in enumerate(VP_NAME)}
VP_VALUE = [vp for _, vp, _, _, _ in VP_KINDS]
VP_COST = [cost for _, _, cost, _, _ in VP_KINDS]
BUY = ["buy " + label for label in VP_NAME]
STEAL_CHAPTER, DRAW_SIX, SWAP_ONE_FOR_TWO, PLACE_ANY, TAKE_ONE, EXTRA_ACTION, PLAIN5, TWO_ACTIONS, PLAIN9 = range(9)

MOVE_OF: dict[str, tuple[bool, int]] = {
    **{PLAY[c]: (True, c) for c in range(30)},
    **{BUY[v]: (False, v) for v in range(9)},
}
DISCARD_AND_DRAW = "discard and draw"
DONE = "done"
NO_ABILITY = "no ability"

COPIES, DEAL, PLACE, HAND, ROW, ACTIONS, GOAL, MAX_CHAPTERS, MAX_ROUNDS = 4, 9, 3, 6, 5, 2, 20, 3, 200
PLAYER_LABEL = [f"P{i + 1}" for i in range(4)]


class Fail(Exception):
    """A tier that cannot be carried out in full: nothing it would do happens (§5 all or nothing)."""


class Decision:
    """A question the game waits on: who answers (a seat index, or None for the table), what, the options.

    The table's options are weighted by how many cards carry each label (`weights`).
    """

    __slots__ = ("labels", "player", "prompt", "weights")

    def __init__(self, player: int | None, prompt: str, labels: list[str], weights: list[int] | None = None):
        self.player, self.prompt, self.labels, self.weights = player, prompt, labels, weights

    @property
    def by(self) -> str:
        return "table" if self.player is None else PLAYER_LABEL[self.player]

    def __repr__(self) -> str:
        return f"Decision({self.by}, {self.prompt!r}, {self.labels!r})"


Flow = Generator[Decision, str, Any]


class Game:
    """A game of Guildhall in progress, answered one decision at a time."""

    def __init__(self, players: int = 2, seed: int | None = 0, *, auto_chance: bool = True):
        if not 2 <= players <= 4:
            raise ValueError(f"Guildhall is played by 2 to 4 players, not {players}")
        self.n = players
        self.rng = random.Random(seed) if auto_chance else None
        self.deck: list[int] = []
        self.discard: list[int] = []  # the last card is the top (§12)
        self.hands: list[list[int]] = [[] for _ in range(players)]
        self.guilds: list[list[int]] = [[] for _ in range(players)]  # incomplete chapters
        self.action: list[list[int]] = [[] for _ in range(players)]  # the action area (§5)
        self.closed: list[list[int]] = [[] for _ in range(players)]  # one profession per completed chapter
        self.vp_deck: list[int] = []
        self.row: list[int] = []
        self.vp_cards: list[list[int]] = [[] for _ in range(players)]
        self.tokens = [0] * players
        self.actions = 0
        self.played: set[int] = set()
        self.rounds = 0
        self.over = False
        self.winners: list[int] = []
        self.decisions = 0  # decisions answered by players (the table's not counted)
        self.undone = 0  # tiers chosen that failed and were undone (§5 all or nothing)
        self.pending: Decision | None = None
        self._flow = self._game()
        self._advance(None)

    # ------------------------------------------------------------------ the API

    def current_decision(self) -> Decision | None:
        return self.pending

    def legal_answers(self) -> list[str]:
        return self.pending.labels if self.pending is not None else []

    def apply(self, label: str) -> None:
        decision = self.pending
        if decision is None:
            raise ValueError("the game is over: no decision is pending")
        if label not in decision.labels:
            raise ValueError(
                f"'{label}' is not a legal answer to \"{decision.prompt}\" (by {decision.by}); "
                f"legal: {', '.join(decision.labels)}"
            )
        if decision.player is not None:
            self.decisions += 1
        self._advance(label)

    def _advance(self, answer: str | None) -> None:
        try:
            self.pending = self._flow.send(answer)  # type: ignore[arg-type]
        except StopIteration:
            self.pending = None

    def score(self, p: int) -> int:
        return self.tokens[p] + sum(VP_VALUE[v] for v in self.vp_cards[p])

    def result(self) -> dict[str, Any]:
        return {
            "scores": {PLAYER_LABEL[p]: self.score(p) for p in range(self.n)},
            "winners": [PLAYER_LABEL[p] for p in self.winners],
        }

    # ------------------------------------------------------------------ asking

    def _choose_card(self, p: int, prompt: str, cards: Iterable[int]) -> Flow:
        """One card from `cards` (identical cards are one option); Fail if there is none."""
        distinct = list(dict.fromkeys(cards))
        if not distinct:
            raise Fail(prompt)
        if len(distinct) == 1:
            return distinct[0]
        return WORKER_OF[(yield Decision(p, prompt, [WORKER[c] for c in distinct]))]

    def _choose_cards(
        self, p: int, prompt: str, cards: list[int], k: int, fits: Callable[[list[int]], bool] | None = None
    ) -> Flow:
        """Exactly k cards from `cards`, one at a time, each only if `fits` holds for the picks with it;
        Fail if there are fewer."""
        if len([c for c in cards if fits is None or fits([c])]) < k:
            raise Fail(prompt)
        left = list(cards)
        picked: list[int] = []
        for i in range(k):
            distinct = [c for c in dict.fromkeys(left) if fits is None or fits([*picked, c])]
            if not distinct:
                raise Fail(prompt)
            if len(distinct) == 1:
                c = distinct[0]
            else:
                c = WORKER_OF[(yield Decision(p, f"{prompt} ({i + 1} of {k})", [WORKER[c] for c in distinct]))]
            left.remove(c)
            picked.append(c)
        return picked

    def _choose_any(
        self, p: int, prompt: str, cards: list[int], fits: Callable[[list[int]], bool] | None = None
    ) -> Flow:
        """Any number of cards from `cards`, one at a time (each only if `fits` holds for the picks
        with it), until "done" (or none is left)."""
        left = list(cards)
        picked: list[int] = []
        while left:
            labels = [WORKER[c] for c in dict.fromkeys(left) if fits is None or fits([*picked, c])]
            if not labels:
                break
            labels.append(DONE)
            answer = yield Decision(p, f"{prompt} ({len(picked) + 1})", labels)
            if answer == DONE:
                break
            c = WORKER_OF[answer]
            left.remove(c)
            picked.append(c)
        return picked

    def _choose_order(self, p: int, prompt: str, cards: list[int]) -> Flow:
        """All of `cards`, one at a time, in the order chosen (the last one left is not asked)."""
        left = list(cards)
        picked: list[int] = []
        while left:
            distinct = list(dict.fromkeys(left))
            if len(distinct) == 1:
                c = distinct[0]
            else:
                c = WORKER_OF[(yield Decision(p, f"{prompt} ({len(picked) + 1})", [WORKER[c] for c in distinct]))]
            left.remove(c)
            picked.append(c)
        return picked

    def _choose_player(self, p: int, prompt: str, seats: list[int]) -> Flow:
        if not seats:
            raise Fail(prompt)
        if len(seats) == 1:
            return seats[0]
        answer = yield Decision(p, prompt, [PLAYER_LABEL[q] for q in seats])
        return PLAYER_LABEL.index(answer)

    def _choose_profession(self, p: int, prompt: str, profs: list[int]) -> Flow:
        if len(profs) == 1:
            return profs[0]
        return PROFESSIONS.index((yield Decision(p, prompt, [PROFESSIONS[x] for x in profs])))

    def _draw(self, zone: list[int], names: list[str], of: dict[str, int], prompt: str) -> Flow:
        """One card from a shuffled zone: the top one, or (without auto chance) the table says which."""
        if self.rng is not None:
            return zone.pop()
        counts: dict[int, int] = {}
        for x in zone:
            counts[x] = counts.get(x, 0) + 1
        if len(counts) == 1:
            c = zone[0]
        else:
            c = of[(yield Decision(None, prompt, [names[x] for x in counts], list(counts.values())))]
        zone.remove(c)
        return c

    # ------------------------------------------------------------------ reading the state

    def _others(self, p: int) -> list[int]:
        return [q for q in range(self.n) if q != p]

    def _professions(self, q: int) -> list[int]:
        return list(dict.fromkeys(PROF[c] for c in self.guilds[q]))

    def _count(self, p: int, prof: int) -> int:
        """§5 the tier count: cards of the profession already in the guild (A1)."""
        return sum(1 for c in self.guilds[p] if PROF[c] == prof)

    # ------------------------------------------------------------------ state-based rules

    def _settle(self, seats: Iterable[int]) -> Flow:
        """After a guild changed: complete every 5-colour chapter (§10, A10), then enforce the cap of 3.

        The guilds are always free of identical cards here (every placement is checked first), so
        5 cards of a profession are its 5 colours.
        """
        seats = sorted(set(seats))
        for p in seats:
            guild = self.guilds[p]
            while len(guild) >= 5:
                counts: dict[int, int] = {}
                for c in guild:
                    counts[PROF[c]] = counts.get(PROF[c], 0) + 1
                full = next((prof for prof, k in counts.items() if k == 5), None)
                if full is None:
                    break
                guild[:] = [c for c in guild if PROF[c] != full]
                self.closed[p].append(full)
        for p in seats:
            while len(self.closed[p]) > MAX_CHAPTERS:
                yield from self._discard_chapter(p)

    def _discard_chapter(self, p: int) -> Flow:
        """§9.1, §10, A7: the owner picks a completed chapter and the order its cards go onto the pile."""
        closed = self.closed[p]
        prof = yield from self._choose_profession(p, "Discard which completed chapter?", list(dict.fromkeys(closed)))
        closed.remove(prof)
        stack = [prof * 5 + colour for colour in range(5)]
        prompt = "Discard its cards in which order? (the last one ends on top)"
        self.discard.extend((yield from self._choose_order(p, prompt, stack)))

    # ------------------------------------------------------------------ procedures

    def _draw_cards(self, p: int, n: int) -> Flow:
        """§8: one card at a time; an empty deck is refilled from the discard pile (A15: else nothing)."""
        deck, hand = self.deck, self.hands[p]
        for _ in range(n):
            if not deck and self.discard:
                deck.extend(self.discard)
                self.discard.clear()
                if self.rng is not None:
                    self.rng.shuffle(deck)
            if deck:
                hand.append((yield from self._draw(deck, WORKER, WORKER_OF, "draw from deck")))

    def _discard_any(self, p: int) -> Flow:
        hand = self.hands[p]
        for c in (yield from self._choose_any(p, "Discard which cards? (the last one ends on top)", hand)):
            hand.remove(c)
            self.discard.append(c)

    def _setup_player(self, p: int) -> Flow:
        """§3.5-3.6: discard any, draw back up to 9, place 3 cards without duplicates."""
        yield from self._discard_any(p)
        hand, guild = self.hands[p], self.guilds[p]
        if len(hand) < DEAL:
            yield from self._draw_cards(p, DEAL - len(hand))
        for _ in range(PLACE):
            c = yield from self._choose_card(p, "Place which card in your guild?", [c for c in hand if c not in guild])
            hand.remove(c)
            guild.append(c)

    def _swap(self, p: int, q: int, mine: list[int], theirs: list[int]) -> Flow:
        """One exchange between two guilds, checked on its final state (§14, A8)."""
        gp, gq = list(self.guilds[p]), list(self.guilds[q])
        for c in mine:
            gp.remove(c)
            gq.append(c)
        for c in theirs:
            gq.remove(c)
            gp.append(c)
        if len(set(gp)) != len(gp) or len(set(gq)) != len(gq):
            raise Fail("the exchange would put two identical cards in a guild")
        self.guilds[p][:], self.guilds[q][:] = gp, gq
        yield from self._settle((p, q))

    def _use(
        self,
        p: int,
        text: str,
        n: int,
        tiers: list[tuple[int, str, Callable[[int], bool] | None, Callable[[int], Flow]]],
    ) -> Flow:
        """§5: any tier up to the count, or none; a tier that fails is undone and not offered again."""
        failed: list[int] = []
        while True:
            labels = [NO_ABILITY]
            bodies: list[Callable[[int], Flow]] = []
            for level, label, when, body in tiers:
                if level <= n and level not in failed and (when is None or when(p)):
                    labels.append(label)
                    bodies.append(body)
            if len(labels) == 1:
                return
            answer = yield Decision(p, f"{text}: which tier? (count {n})", labels)
            if answer == NO_ABILITY:
                return
            i = labels.index(answer) - 1
            try:
                yield from bodies[i](p)
                return
            except Fail:
                self.undone += 1
                failed.append(int(answer[5 : answer.index(":")]))

    # ------------------------------------------------------------------ picks that can complete (§5, §14, A17)
    # As the rulebook's `can_give`, `can_take`, `chapters_fit`, `can_place`, `can_take_back`: every pick
    # is offered only if its tier can still be completed without two identical cards in a guild.

    def _twins(self, q: int, xs: Iterable[int]) -> int:
        guild = self.guilds[q]
        return sum(1 for c in xs if c in guild)

    def _unmatched(self, q: int, xs: Iterable[int]) -> int:
        guild = self.guilds[q]
        return sum(1 for c in xs if c not in guild)

    def _can_give(self, p: int, q: int, mine: list[int], more: int, n: int) -> bool:
        rest = [c for c in self.guilds[p] if c not in mine]
        twins = self._twins(q, mine)
        low = max(twins + max(0, more - self._unmatched(q, rest)), n - self._unmatched(p, self.guilds[q]))
        return low <= min(twins + min(more, self._twins(q, rest)), n)

    def _can_take(self, p: int, q: int, mine: list[int], theirs: list[int], n: int) -> bool:
        guild = self.guilds[p]
        return all(c in mine for c in theirs if c in guild) and self._unmatched(p, theirs) <= n - self._twins(q, mine)

    def _partners(self, p: int, give: int, take: int) -> list[int]:
        return [q for q in self._others(p) if self._can_give(p, q, [], give, take)]

    def _chapter(self, p: int, prof: int) -> list[int]:
        return [c for c in self.guilds[p] if PROF[c] == prof]

    def _chapters_fit(self, p: int, q: int, mine: int, theirs: int) -> bool:
        return mine == theirs or (
            self._twins(q, self._chapter(p, mine)) == 0 and self._twins(p, self._chapter(q, theirs)) == 0
        )

    def _gives_chapter(self, p: int, q: int, mine: int) -> bool:
        return any(self._chapters_fit(p, q, mine, theirs) for theirs in self._professions(q))

    def _chapter_partners(self, p: int) -> list[int]:
        return [q for q in self._others(p) if any(self._gives_chapter(p, q, a) for a in self._professions(p))]

    def _can_place(self, p: int, ins: list[int], more: int, n: int) -> bool:
        fresh = list(dict.fromkeys(c for c in self.hands[p] if c not in ins))
        return (
            len(set(ins)) == len(ins)
            and len(fresh) >= more
            and self._twins(p, ins) + max(0, more - self._unmatched(p, fresh)) <= n
        )

    def _can_take_back(self, p: int, ins: list[int], outs: list[int], n: int) -> bool:
        guild = self.guilds[p]
        return sum(1 for c in ins if c in guild and c not in outs) <= n - len(outs)

    def _stealable(self, p: int, q: int) -> list[int]:
        return [prof for prof in self._professions(q) if self._twins(p, self._chapter(q, prof)) == 0]

    # ------------------------------------------------------------------ profession abilities (§6)

    def _any_other(self, p: int, least: int) -> bool:
        return any(len(self.guilds[q]) >= least for q in range(self.n) if q != p)

    def _assassin(self, p: int, n: int) -> Flow:
        yield from self._use(
            p,
            "Discard cards from another player's guild",
            n,
            [
                (0, "tier 0: Discard 1 card", lambda p: self._any_other(p, 1), self._assassin_0),
                (
                    2,
                    "tier 2: Discard 1 card from each of 2 different chapters",
                    lambda p: any(len(self._professions(q)) >= 2 for q in self._others(p)),
                    self._assassin_2,
                ),
                (4, "tier 4: Discard 2 cards, from any chapters", lambda p: self._any_other(p, 2), self._assassin_4),
            ],
        )

    def _victim(self, p: int, q: int, prompt: str, cards: list[int]) -> Flow:
        c = yield from self._choose_card(p, prompt, cards)
        self.guilds[q].remove(c)
        self.discard.append(c)
        return c

    def _assassin_0(self, p: int) -> Flow:
        q = yield from self._choose_player(p, "Whose guild?", [q for q in self._others(p) if self.guilds[q]])
        yield from self._victim(p, q, "Discard which card?", self.guilds[q])

    def _assassin_2(self, p: int) -> Flow:
        q = yield from self._choose_player(
            p, "Whose guild?", [q for q in self._others(p) if len(self._professions(q)) >= 2]
        )
        c = yield from self._victim(p, q, "Discard which card? (1 of 2)", self.guilds[q])
        yield from self._victim(p, q, "Discard which card? (2 of 2)", [d for d in self.guilds[q] if PROF[d] != PROF[c]])

    def _assassin_4(self, p: int) -> Flow:
        q = yield from self._choose_player(p, "Whose guild?", [q for q in self._others(p) if len(self.guilds[q]) >= 2])
        yield from self._victim(p, q, "Discard which card? (1 of 2)", self.guilds[q])
        yield from self._victim(p, q, "Discard which card? (2 of 2)", self.guilds[q])

    def _dancer(self, p: int, n: int) -> Flow:
        def draw_then_act(p: int) -> Flow:
            yield from self._draw_cards(p, n)
            self.actions += 1

        yield from self._use(
            p,
            "Draw as many cards as the Dancers in your guild, then take one more action",
            n,
            [
                (0, "tier 0: Draw 1 card per Dancer in your guild, then take one more action", None, draw_then_act),
            ],
        )

    def _farmer(self, p: int, n: int) -> Flow:
        def gain(k: int) -> Callable[[int], Flow]:
            def body(p: int) -> Flow:
                self.tokens[p] += k
                yield from ()

            return body

        yield from self._use(
            p,
            "You gain VP tokens",
            n,
            [
                (1, "tier 1: Gain 1 VP token", None, gain(1)),
                (3, "tier 3: Gain 2 VP tokens", None, gain(2)),
            ],
        )

    def _weaver(self, p: int, n: int) -> Flow:
        hand, guild = self.hands[p], self.guilds[p]
        yield from self._use(
            p,
            "Exchange cards between your hand and your guild",
            n,
            [
                (
                    0,
                    "tier 0: Place 1 card from your hand into your guild",
                    lambda p: any(c not in guild for c in hand),
                    self._weaver_0,
                ),
                (
                    2,
                    "tier 2: Exchange 2 cards from your hand for 1 card from your guild",
                    lambda p: len(guild) >= 1 and self._can_place(p, [], 2, 1),
                    self._weaver_2,
                ),
                (
                    4,
                    "tier 4: Exchange any number of cards from your hand for 2 cards from your guild",
                    lambda p: len(guild) >= 2,
                    self._weaver_4,
                ),
            ],
        )

    def _weaver_0(self, p: int) -> Flow:
        hand, guild = self.hands[p], self.guilds[p]
        c = yield from self._choose_card(p, "Place which card?", [c for c in hand if c not in guild])
        hand.remove(c)
        guild.append(c)
        yield from self._settle((p,))

    def _exchange(self, p: int, ins: list[int], outs: list[int]) -> Flow:
        """A8: cards in from the hand and out of the guild (as it was) in one step, checked on the result."""
        hand = self.hands[p]
        guild = self.guilds[p] + ins
        for c in outs:
            guild.remove(c)
        if len(set(guild)) != len(guild):
            raise Fail("the exchange would put two identical cards in the guild")
        for c in ins:
            hand.remove(c)
        hand.extend(outs)
        self.guilds[p][:] = guild
        yield from self._settle((p,))

    def _weaver_2(self, p: int) -> Flow:
        ins = yield from self._choose_cards(
            p, "Place which cards?", self.hands[p], 2, lambda xs: self._can_place(p, xs, 2 - len(xs), 1)
        )
        guild = self.guilds[p]
        out = yield from self._choose_card(
            p, "Take back which card?", [c for c in guild if self._can_take_back(p, ins, [c], 1)]
        )
        yield from self._exchange(p, ins, [out])

    def _weaver_4(self, p: int) -> Flow:
        ins = yield from self._choose_any(
            p, "Place which cards?", self.hands[p], lambda xs: self._can_place(p, xs, 0, 2)
        )
        outs = yield from self._choose_cards(
            p, "Take back which cards?", self.guilds[p], 2, lambda xs: self._can_take_back(p, ins, xs, 2)
        )
        yield from self._exchange(p, ins, outs)

    def _historian(self, p: int, n: int) -> Flow:
        guild, discard = self.guilds[p], self.discard
        yield from self._use(
            p,
            "Place cards from the discard pile into your guild",
            n,
            [
                (
                    0,
                    "tier 0: Place the top card of the discard pile into your guild",
                    lambda p: bool(discard) and discard[-1] not in guild,
                    self._historian_0,
                ),
                (
                    2,
                    "tier 2: Search the discard pile and place 1 card into your guild",
                    lambda p: len(discard) >= 1,
                    self._historian_2,
                ),
                (
                    4,
                    "tier 4: Search the discard pile and place 2 cards into your guild",
                    lambda p: len(discard) >= 2,
                    self._historian_4,
                ),
            ],
        )

    def _historian_0(self, p: int) -> Flow:
        self.guilds[p].append(self.discard.pop())
        yield from self._settle((p,))

    def _historian_2(self, p: int) -> Flow:
        guild = self.guilds[p]
        c = yield from self._choose_card(p, "Place which card?", [c for c in self.discard if c not in guild])
        self.discard.remove(c)
        guild.append(c)
        yield from self._settle((p,))

    def _historian_4(self, p: int) -> Flow:
        guild = self.guilds[p]
        two = yield from self._choose_cards(
            p,
            "Place which cards?",
            [c for c in self.discard if c not in guild],
            2,
            lambda xs: len(set(xs)) == len(xs),  # not identical to a card picked (§14)
        )
        if two[0] == two[1]:
            raise Fail("the two cards are identical")
        for c in two:
            self.discard.remove(c)
        guild.extend(two)
        yield from self._settle((p,))

    def _trader(self, p: int, n: int) -> Flow:
        yield from self._use(
            p,
            "Exchange cards of your guild with cards of another player's guild",
            n,
            [
                (0, "tier 0: Exchange 1 card", lambda p: bool(self._partners(p, 1, 1)), self._trader_0),
                (2, "tier 2: Exchange 2 cards", lambda p: bool(self._partners(p, 2, 2)), self._trader_2),
                (4, "tier 4: Exchange 1 chapter", lambda p: bool(self._chapter_partners(p)), self._trader_4),
            ],
        )

    def _trader_0(self, p: int) -> Flow:
        q = yield from self._choose_player(p, "Exchange with whom?", self._partners(p, 1, 1))
        mine = yield from self._choose_card(
            p, "Give which card?", [c for c in self.guilds[p] if self._can_give(p, q, [c], 0, 1)]
        )
        theirs = yield from self._choose_card(
            p, "Take which card?", [c for c in self.guilds[q] if self._can_take(p, q, [mine], [c], 1)]
        )
        yield from self._swap(p, q, [mine], [theirs])

    def _trader_2(self, p: int) -> Flow:
        q = yield from self._choose_player(p, "Exchange with whom?", self._partners(p, 2, 2))
        mine = yield from self._choose_cards(
            p, "Give which cards?", self.guilds[p], 2, lambda xs: self._can_give(p, q, xs, 2 - len(xs), 2)
        )
        theirs = yield from self._choose_cards(
            p, "Take which cards?", self.guilds[q], 2, lambda xs: self._can_take(p, q, mine, xs, 2)
        )
        yield from self._swap(p, q, mine, theirs)

    def _trader_4(self, p: int) -> Flow:
        q = yield from self._choose_player(p, "Exchange with whom?", self._chapter_partners(p))
        mine = yield from self._choose_profession(
            p, "Give which chapter?", [a for a in self._professions(p) if self._gives_chapter(p, q, a)]
        )
        theirs = yield from self._choose_profession(
            p, "Take which chapter?", [b for b in self._professions(q) if self._chapters_fit(p, q, mine, b)]
        )
        yield from self._swap(
            p, q, [c for c in self.guilds[p] if PROF[c] == mine], [c for c in self.guilds[q] if PROF[c] == theirs]
        )

    # ------------------------------------------------------------------ VP card abilities (§9.2, A17)

    def _vp_ability(self, p: int, v: int) -> Flow:
        if v == STEAL_CHAPTER:
            yield from self._use(
                p,
                "Place 1 chapter from another player's guild into your guild",
                0,
                [
                    (
                        0,
                        "tier 0: Take a chapter",
                        lambda p: any(self._stealable(p, q) for q in self._others(p)),
                        self._steal_chapter,
                    )
                ],
            )
        elif v == DRAW_SIX:
            yield from self._use(
                p, "Draw 6 cards", 0, [(0, "tier 0: Draw 6 cards", None, lambda p: self._draw_cards(p, 6))]
            )
        elif v == SWAP_ONE_FOR_TWO:
            yield from self._use(
                p,
                "Exchange 1 card of your guild for 2 cards of another player's guild",
                0,
                [
                    (
                        0,
                        "tier 0: Give 1 card, take 2",
                        lambda p: bool(self._partners(p, 1, 2)),
                        self._swap_one_for_two,
                    )
                ],
            )
        elif v == PLACE_ANY:
            yield from self._use(
                p,
                "Place as many cards as you like from your hand into your guild",
                0,
                [(0, "tier 0: Place cards from your hand", None, self._place_any)],
            )
        elif v == TAKE_ONE:
            yield from self._use(
                p,
                "Take 1 card from another player's guild into your guild",
                0,
                [(0, "tier 0: Take a card", lambda p: bool(self._takers(p)), self._take_one)],
            )
        elif v == EXTRA_ACTION:
            yield from self._use(
                p,
                "Take one more action",
                0,
                [(0, "tier 0: Take one more action", None, lambda p: self._more_actions(1))],
            )
        elif v == TWO_ACTIONS:  # RECONSTRUCTED (§9.3, A27): +2 actions
            yield from self._use(
                p,
                "Take two more actions",
                0,
                [(0, "tier 0: Take two more actions", None, lambda p: self._more_actions(2))],
            )
        # 5 and 9 VP: no ability (RECONSTRUCTED, §9.3)

    def _more_actions(self, k: int) -> Flow:
        self.actions += k
        yield from ()

    def _steal_chapter(self, p: int) -> Flow:
        q = yield from self._choose_player(
            p, "From whose guild?", [q for q in self._others(p) if self._stealable(p, q)]
        )
        prof = yield from self._choose_profession(p, "Take which chapter?", self._stealable(p, q))
        chapter = [c for c in self.guilds[q] if PROF[c] == prof]
        guild = self.guilds[p] + chapter
        if len(set(guild)) != len(guild):
            raise Fail("a card of that chapter is already in your guild")
        self.guilds[q][:] = [c for c in self.guilds[q] if PROF[c] != prof]
        self.guilds[p][:] = guild
        yield from self._settle((p,))

    def _swap_one_for_two(self, p: int) -> Flow:
        q = yield from self._choose_player(p, "Exchange with whom?", self._partners(p, 1, 2))
        mine = yield from self._choose_card(
            p, "Give which card?", [c for c in self.guilds[p] if self._can_give(p, q, [c], 0, 2)]
        )
        theirs = yield from self._choose_cards(
            p, "Take which cards?", self.guilds[q], 2, lambda xs: self._can_take(p, q, [mine], xs, 2)
        )
        yield from self._swap(p, q, [mine], theirs)

    def _place_any(self, p: int) -> Flow:
        ins = yield from self._choose_any(
            p, "Place which cards?", self.hands[p], lambda xs: self._can_place(p, xs, 0, 0)
        )
        yield from self._exchange(p, ins, [])

    def _takers(self, p: int) -> list[int]:
        guild = self.guilds[p]
        return [q for q in self._others(p) if any(c not in guild for c in self.guilds[q])]

    def _take_one(self, p: int) -> Flow:
        guild = self.guilds[p]
        q = yield from self._choose_player(p, "From whose guild?", self._takers(p))
        c = yield from self._choose_card(p, "Take which card?", [c for c in self.guilds[q] if c not in guild])
        self.guilds[q].remove(c)
        guild.append(c)
        yield from self._settle((p,))

    # ------------------------------------------------------------------ actions and turns

    def _play_card(self, p: int, c: int) -> Flow:
        """§5: the count is read before the card goes to the action area (A1), then the ability."""
        prof = PROF[c]
        n = self._count(p, prof)
        self.hands[p].remove(c)
        self.action[p].append(c)
        self.played.add(prof)
        if prof == ASSASSIN:
            yield from self._assassin(p, n)
        elif prof == DANCER:
            yield from self._dancer(p, n)
        elif prof == FARMER:
            yield from self._farmer(p, n)
        elif prof == WEAVER:
            yield from self._weaver(p, n)
        elif prof == HISTORIAN:
            yield from self._historian(p, n)
        else:
            yield from self._trader(p, n)

    def _buy(self, p: int, v: int) -> Flow:
        """§9.1: take the card, refill the row (A14: an empty VP deck leaves it short), pay, then the ability."""
        self.row.remove(v)
        self.vp_cards[p].append(v)
        if self.vp_deck:
            self.row.append((yield from self._draw(self.vp_deck, VP_NAME, VP_OF, "draw from vp_deck")))
        for _ in range(VP_COST[v]):
            yield from self._discard_chapter(p)
        yield from self._vp_ability(p, v)

    def _action(self, p: int) -> Flow:
        """§4: one action; the answer names the move (A23: only playable cards and affordable VP cards)."""
        hand, guild, played = self.hands[p], self.guilds[p], self.played
        labels = [PLAY[c] for c in dict.fromkeys(hand) if PROF[c] not in played and c not in guild]
        chapters = len(self.closed[p])
        labels += [BUY[v] for v in dict.fromkeys(self.row) if VP_COST[v] <= chapters]
        labels.append(DISCARD_AND_DRAW)
        answer = labels[0] if len(labels) == 1 else (yield Decision(p, "Your action", labels))
        if answer == DISCARD_AND_DRAW:
            yield from self._discard_any(p)
            if len(hand) < HAND:
                yield from self._draw_cards(p, HAND - len(hand))
        else:
            play, x = MOVE_OF[answer]
            yield from (self._play_card(p, x) if play else self._buy(p, x))

    def _turn(self, p: int) -> Flow:
        self.actions = ACTIONS
        self.played = set()
        while self.actions > 0:
            self.actions -= 1
            yield from self._action(p)
        # §11: the action area joins the guild, an incoming duplicate is discarded (A19).
        guild = self.guilds[p]
        for c in self.action[p]:
            if c in guild:
                self.discard.append(c)
            else:
                guild.append(c)
                yield from self._settle((p,))
        self.action[p].clear()
        if self.score(p) >= GOAL:
            self.over, self.winners = True, [p]

    def _game(self) -> Flow:
        rng = self.rng
        # §3: the decks, the centre row, 9 cards each, then each player's setup in turn.
        self.deck = [c for c in range(30) for _ in range(COPIES)]
        small = self.n <= 3
        self.vp_deck = [
            v for v, (_, _, _, copies, fewer) in enumerate(VP_KINDS) for _ in range(copies - fewer if small else copies)
        ]
        if rng is not None:
            rng.shuffle(self.deck)
            rng.shuffle(self.vp_deck)
        for _ in range(ROW):
            if self.vp_deck:
                self.row.append((yield from self._draw(self.vp_deck, VP_NAME, VP_OF, "draw from vp_deck")))
        for p in range(self.n):
            yield from self._draw_cards(p, DEAL)
        for p in range(self.n):
            yield from self._setup_player(p)
        while self.rounds < MAX_ROUNDS:
            self.rounds += 1
            for p in range(self.n):
                yield from self._turn(p)
                if self.over:
                    return
        # The guard of the rulebook: after MAX_ROUNDS rounds the most VP wins, ties share.
        best = max(self.score(p) for p in range(self.n))
        self.over, self.winners = True, [p for p in range(self.n) if self.score(p) == best]


def play_random(players: int, seed: int, *, chance_as_decisions: bool = False) -> Game:
    """A whole game: seeded chance, and uniformly random answers from a generator of the same seed.

    With `chance_as_decisions`, every draw is a decision of the table, answered here by a weighted
    pick among its labels (the same odds; it shows what listing chance's options costs).
    """
    game = Game(players, seed, auto_chance=not chance_as_decisions)
    rng = random.Random(seed * 7919 + 1)
    pick, choices = rng.randrange, rng.choices
    while (decision := game.pending) is not None:
        labels = decision.labels
        if decision.weights is not None:
            game.apply(choices(labels, decision.weights)[0])
        else:
            game.apply(labels[pick(len(labels))])
    return game


def run(seed: int, players: int = 2) -> tuple[int | None, int, None, dict[str, float]]:
    """One random game, as examples/benchmarks/compare.py counts it: (sole winner's seat or None,
    decisions answered by the players, no return, {rounds, winning score})."""
    game = play_random(players, seed)
    winner = game.winners[0] if len(game.winners) == 1 else None
    return (
        winner,
        game.decisions,
        None,
        {"rounds": float(game.rounds), "winning_score": float(max(game.score(p) for p in range(players)))},
    )


if __name__ == "__main__":
    import sys
    import time

    n = int(sys.argv[1]) if len(sys.argv) > 1 else 200
    for listed in (False, True):
        start = time.process_time()
        games = [play_random(2, seed, chance_as_decisions=listed) for seed in range(n)]
        spent = time.process_time() - start
        print(
            f"{n} games{' (chance as decisions)' if listed else ''} in {spent:.2f} s CPU ({n / spent:.1f} games/s); "
            f"first player wins {sum(1 for g in games if g.winners == [0]) / n:.3f}; "
            f"mean decisions {sum(g.decisions for g in games) / n:.1f}; "
            f"mean rounds {sum(g.rounds for g in games) / n:.1f}"
        )
