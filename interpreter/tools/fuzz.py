"""Fuzz the front end: mutated and generated rulebooks must fail only with located errors.

A *case* is one rulebook text: a bundled rulebook or example mutated a few times (tokens and
lines deleted, duplicated, swapped; random text and unicode injected), or a program generated
at random from the grammar. The promise under test: loading a case (parse + check) either
succeeds or raises `RulebookError` whose every diagnostic names a real place (`file:line:col`,
line >= 1); and a case that loads plays a few random decisions raising nothing but a located
`RulebookError` either. Anything else (a Python exception escaping) is a crash: it is printed
with the case number and seed, and the text is written out so it can be reproduced.

An *unwound* case puts statements that often fail (values of the wrong kind, missing cards,
indexes out of range, `fail`) inside `attempt`s and an ability's tier, after changes of every
kind. Its promise is stronger: no failure escapes (only a budget may stop the game), and an
attempt or tier that fails leaves the state exactly as it found it (the rulebook compares a
fingerprint of the state and fails outside any attempt if not).

A *budget* case (`--budgets`) is a small rulebook that asks for a great deal of work inside
expressions: ranges, comprehensions and sorts of shared lists, texts of them, functions that call
themselves twice or deeply, rules of two bindings over long lists, values that double. Each runs in
a child process under the hostile corpus's limits (CASE_MEMORY of address space, CASE_TIMEOUT
seconds): it must end, loaded or with a located error, never killed, out of memory or a traceback.

    rulecraft fuzz --cases 10000          # the nightly-size run
    rulecraft fuzz --cases 300                      # the same, through the command line
    rulecraft fuzz --budgets --cases 50             # cases aimed at the budgets, each in a child process
"""

from __future__ import annotations

import argparse
import json
import random
import re
import resource
import subprocess
import sys
import time
import traceback
from collections.abc import Callable, Iterable, Sequence
from importlib import resources
from pathlib import Path
from typing import Any

import attrs

from ..console import SEED, add_quiet, progress, whole
from ..errors import GameError, RulebookError, RulecraftError
from ..language.builtins import BUILTINS
from ..rulebook import bundled_names, load_text
from ..runtime.basics import RuntimeFailure
from .fuzz_grammar import generate, splice, unwound

# ---------------------------------------------------------------------------- the corpus


def corpus(extra: Iterable[str | Path] = ()) -> dict[str, str]:
    """The texts to mutate: every bundled rulebook, `examples/*.rules` if present here, and `extra`."""
    texts: dict[str, str] = {}
    root = resources.files("rulecraft.rulebooks")
    for name in bundled_names():
        texts[f"{name}.rules"] = root.joinpath(f"{name}.rules").read_text(encoding="utf-8")
    for path in sorted(Path("examples").glob("*.rules")):
        if path.is_file():
            texts[path.name] = path.read_text(encoding="utf-8")
    for path in map(Path, extra):  # a file named on the command line must be there
        try:
            texts[path.name] = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            why = getattr(exc, "strerror", None) or exc
            raise RulecraftError(f"--corpus {path}: cannot read the file: {why}") from None
    return texts


# ---------------------------------------------------------------------------- mutations

_TOKEN = re.compile(r'\s+|"(?:[^"\\\n]|\\.)*"|[A-Za-z_][A-Za-z0-9_]*|[0-9]+|\.\.|[=!<>+\-/]=?|//|.', re.S)
_KEYWORDS = (
    "game",
    "players",
    "include",
    "enum",
    "card",
    "zone",
    "var",
    "const",
    "fn",
    "proc",
    "ability",
    "tier",
    "rule",
    "when",
    "setup",
    "play",
    "let",
    "set",
    "move",
    "to",
    "bottom of",
    "draw",
    "from",
    "create",
    "in",
    "if",
    "elif",
    "else",
    "for",
    "while",
    "true",
    "repeat",
    "match",
    "attempt",
    "together",
    "secret",
    "fail",
    "require",
    "choose",
    "one",
    "exactly",
    "upto",
    "any",
    "order",
    "by",
    "prompt",
    "option",
    "use",
    "return",
    "end game",
    "winners",
    "say",
    "where",
    "sorted by",
    "max by",
    "min by",
    "group by",
    "map",
    "not",
    "and",
    "or",
    "then",
    "none",
    "list of",
    "public",
    "owner",
    "hidden",
    "top",
    "count",
    "shuffled",
    "table",
    "players",
    "it",
    "Player",
    "int",
    "bool",
    "str",
)
_JUNK = (
    "{",
    "}",
    "(",
    ")",
    "[",
    "]",
    ",",
    ":",
    ".",
    "..",
    "=",
    "+=",
    "-=",
    "==",
    "#",
    '"',
    "\\",
    "\n",
    "0",
    "-1",
    "99999999999999999999",
    "1..1000000",
    "é",
    "ß",
    "→",
    "\u200b",
    "\ufeff",
    "\x00",
    "\t",
    "\r",
    "\u2028",
    "😀",
    "𝔸",
    '"{x}"',
    '"{',
    "{it.",
    "len(",
    "top(",
    "next(",
    "key_of(",
)


@attrs.frozen
class Mutation:
    """One edit of a text: `kind` and two positions (fractions of the token or line count) and a text."""

    kind: str
    a: float
    b: float
    text: str = ""


KINDS = (
    "delete_token",
    "duplicate_token",
    "swap_tokens",
    "replace_token",
    "delete_line",
    "duplicate_line",
    "swap_lines",
    "inject",
    "truncate",
)


def _at(n: int, x: float) -> int:
    return min(n - 1, max(0, int(x * n)))


def mutate(text: str, mutations: Sequence[Mutation]) -> str:
    """Apply the mutations one after the other."""
    for m in mutations:
        if m.kind.endswith(("_token", "_tokens")):
            toks = _TOKEN.findall(text)
            if not toks:
                continue
            words = [i for i, t in enumerate(toks) if not t.isspace()] or list(range(len(toks)))
            i, j = words[_at(len(words), m.a)], words[_at(len(words), m.b)]
            if m.kind == "delete_token":
                del toks[i]
            elif m.kind == "duplicate_token":
                toks.insert(i, toks[i] + " ")
            elif m.kind == "swap_tokens":
                toks[i], toks[j] = toks[j], toks[i]
            else:
                toks[i] = m.text
            text = "".join(toks)
        elif m.kind.endswith(("_line", "_lines")):
            lines = text.split("\n")
            i, j = _at(len(lines), m.a), _at(len(lines), m.b)
            if m.kind == "delete_line":
                del lines[i]
            elif m.kind == "duplicate_line":
                lines.insert(i, lines[i])
            else:
                lines[i], lines[j] = lines[j], lines[i]
            text = "\n".join(lines)
        elif m.kind == "inject":
            i = _at(len(text) + 1, m.a)
            text = text[:i] + m.text + text[i:]
        elif m.kind == "truncate":
            text = text[: _at(len(text) + 1, m.a)]
    return text


def _random_text(rng: random.Random) -> str:
    roll = rng.random()
    if roll < 0.4:
        return rng.choice(_KEYWORDS) + rng.choice((" ", "", "\n"))
    if roll < 0.7:
        return rng.choice(_JUNK)
    if roll < 0.85:
        return " ".join(rng.choice(_KEYWORDS + _JUNK) for _ in range(rng.randint(2, 6)))
    return "".join(
        chr(rng.choice((rng.randint(32, 126), rng.randint(0x80, 0x2FFF), rng.randint(0x10000, 0x1F9FF))))
        for _ in range(rng.randint(1, 8))
    )


def random_mutations(rng: random.Random) -> list[Mutation]:
    """One to four random mutations (what the seeded command uses)."""
    out = []
    for _ in range(rng.choice((1, 1, 1, 2, 2, 3, 4))):
        kind = rng.choice(KINDS[:-1] if rng.random() < 0.97 else KINDS)
        out.append(Mutation(kind, rng.random(), rng.random(), _random_text(rng)))
    return out


# ---------------------------------------------------------------------------- one case


@attrs.frozen
class Outcome:
    """What one case did: `loaded`, `error` (a located RulebookError), or `crash` (with the traceback)."""

    kind: str
    detail: str = ""
    decisions: int = 0


def _located(exc: RulebookError, files: set[str]) -> str | None:
    """Why a RulebookError is not properly located, or None if every diagnostic names a place."""
    if not exc.diagnostics:
        return "a RulebookError without diagnostics"
    for d in exc.diagnostics:
        if d.span.line < 1 or d.span.column < 0:
            return f"diagnostic without a line: {d.span}: {d.message}"
        if d.span.file not in files and not d.span.file.endswith(".rules"):
            return f"diagnostic in an unknown file: {d.span}: {d.message}"
    return None


def run_case(
    text: str, file: str = "fuzz.rules", play_decisions: int = 30, seed: int = 0, *, unwinds: bool = False
) -> Outcome:
    """Load the text; if it loads, play a few random decisions. Never raises.

    With `unwinds` (an unwound case), a failure that reaches the top is a crash too: every
    statement that may fail stands inside an attempt or a tier, which must undo it.
    """
    files = {file}
    try:
        rb = load_text(text, file)
    except RulebookError as exc:
        why = _located(exc, files | set(exc.sources))
        return Outcome("crash", why) if why else Outcome("error", exc.messages[0])
    except RecursionError:
        return Outcome("crash", "RecursionError while loading")
    except Exception:
        return Outcome("crash", traceback.format_exc(limit=8))
    decisions = 0
    try:
        rng = random.Random(seed)
        for players in sorted({rb.program.min_players, rb.program.max_players}):
            game = rb.new_game(players=players, seed=seed)
            while not game.over and decisions < play_decisions:
                labels = game.legal_answers()
                game.apply(labels[rng.randrange(len(labels))])
                decisions += 1
    except RulebookError as exc:
        why = _located(exc, files | set(exc.sources))
        if why is None and unwinds and isinstance(exc, RuntimeFailure):
            why = f"a failure was not undone by its attempt or tier: {exc.messages[0]}"
        return Outcome("crash", why, decisions) if why else Outcome("error", exc.messages[0], decisions)
    except GameError as exc:
        return Outcome("crash", f"GameError while answering legal labels: {exc}", decisions)
    except Exception:
        return Outcome("crash", traceback.format_exc(limit=8), decisions)
    return Outcome("loaded", "", decisions)


# ---------------------------------------------------------------------------- budget cases

CASE_MEMORY = 1 << 30  # bytes of address space a budget case (and a case of the hostile corpus) may use
CASE_TIMEOUT = 120  # seconds before such a case is killed: a safety net on a loaded machine, no measure of speed


def _big(rng: random.Random) -> int:
    return rng.choice([3, 50, 2_000, 99_999])


def _budget_statement(rng: random.Random) -> tuple[str, str]:
    """One statement asking for much work, and the declarations it needs."""
    n, m = _big(rng), _big(rng)
    shared = f"  let b = 1..{n}\n"
    kind = rng.randrange(12)
    if kind == 0:
        return "", f"  set v = len([[j for j in 1..{n}] for i in 1..{m}])"
    if kind == 1:
        # any built-in of one argument, those that sort, compare or copy a list among them
        op = rng.choice(sorted(name for name, b in BUILTINS.items() if b.min_args == 1))
        return "", shared + f"  set v = len([{op}([b for i in 1..{m}])])"
    if kind == 2:
        return "", shared + f'  say "{{[b for i in 1..{m}]}}"'
    if kind == 3:
        depth = rng.choice([5, 15, 40, 150])
        fn = "fn f(n: int, k: int) = if n <= 0 then k else f(n - 1, k * 2) + f(n - 1, k * 2 + 1)"
        return fn, f"  set v = f({depth}, 1)"
    if kind == 4:
        depth = rng.choice([50, 99, 500])
        return "fn r(n: int) = if n <= 0 then 0 else r(n - 1) + 1", f"  set v = r({depth})"
    if kind == 5:
        return f"rule r(i in 1..{n}, j in 1..{m}) when v + i + j < 0 {{ set v = 1 }}", "  set v = 2"
    if kind == 6:
        return "", f"  repeat {rng.choice([10, 25, 60])} {{ set v = [v, v] }}"
    if kind == 7:
        return "", f'  set v = "ab"\n  repeat {rng.choice([10, 20, 60])} {{ set v = v + v }}'
    if kind == 8:
        return "", f"  repeat {rng.choice([10, 1000, 100_000])} {{ set v = len(1..{n}) }}"
    if kind == 9:
        return "", shared + f"  let c = 1..{n}\n  set v = [b for i in 1..{m}] == [c for i in 1..{m}]"
    if kind == 10:
        query = rng.choice(["sorted by it.n", "group by it.n", "max by it.n", "where it.n > 3", "map it.n"])
        return "", f"  let xs = [{{n: i % 7}} for i in 1..{n}]\n  set v = len(xs - xs) + len(xs {query})"
    literal = ", ".join(["1"] * rng.choice([10, 2_000]))
    return f"fn big() = len([{literal}])", f"  repeat {rng.choice([10, 100_000])} {{ set v = big() }}"


def _numbered(text: str, i: int) -> str:
    """The text with its functions, rule and local names numbered `i` (`f(` -> `f2(`, `b` -> `b2`)."""
    return re.sub(r"\b(f|r|big)\(|\b(b|c|xs)\b", lambda m: f"{m[1]}{i}(" if m[1] else f"{m[2]}{i}", text)


def budget_case(rng: random.Random) -> str:
    """A rulebook of one to three statements that ask for much work, then a decision."""
    declarations, body = [], []
    for i in range(rng.randint(1, 3)):
        decl, stmt = _budget_statement(rng)
        # each statement's function, rule and names of its own
        declarations.append(_numbered(decl, i))
        body.append(_numbered(stmt, i))
    return (
        "game Budget players 1..1\nvar v: any = 0 public\n"
        + "\n".join(d for d in declarations if d)
        + "\nplay {\n"
        + "\n".join(body)
        + '\n  choose by players[0] { option "a" { } option "b" { } }\n}\n'
    )


# The child process of a budget case: the text on stdin, the outcome as JSON on stdout.
_CHILD = (
    "import json, sys\n"
    "from rulecraft.tools.fuzz import run_case\n"
    "o = run_case(sys.stdin.read(), play_decisions=3)\n"
    "print(json.dumps([o.kind, o.detail, o.decisions]))\n"
)


def _limit_memory() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (CASE_MEMORY, CASE_MEMORY))


def run_limited(text: str, timeout: float = CASE_TIMEOUT) -> Outcome:
    """`run_case` in a child process under CASE_MEMORY of address space and a timeout: a kill, an
    exit by an exception (a MemoryError included) or the timeout is a crash."""
    try:
        done = subprocess.run(
            [sys.executable, "-c", _CHILD],
            input=text.encode("utf-8", "surrogatepass"),
            capture_output=True,
            timeout=timeout,
            preexec_fn=_limit_memory,  # sets a resource limit only, before exec
            check=False,
        )
    except subprocess.TimeoutExpired:
        return Outcome("crash", f"did not end within {timeout:g} s")
    err = done.stderr.decode("utf-8", "replace")
    if done.returncode != 0:
        return Outcome("crash", f"exit {done.returncode}: {err[-2000:]}")
    kind, detail, decisions = json.loads(done.stdout.decode("utf-8").splitlines()[-1])
    return Outcome(kind, detail, decisions)


def make_case(rng: random.Random, texts: dict[str, str]) -> tuple[str, str]:
    """Draw one case: (how it was made, text)."""
    roll = rng.random()
    if roll < 0.15 or not texts:
        return "generated", generate(rng)
    if roll < 0.35:
        return "spliced", splice(rng)
    if roll < 0.5:
        return "unwound", unwound(rng)
    name = rng.choice(sorted(texts))
    muts = random_mutations(rng)
    return f"{name} " + ",".join(m.kind for m in muts), mutate(texts[name], muts)


@attrs.define
class Summary:
    cases: int = 0
    loaded: int = 0
    errors: int = 0
    crashes: list[tuple[int, str, str]] = attrs.Factory(list)
    decisions: int = 0


def fuzz(
    cases: int,
    seed: int = 0,
    texts: dict[str, str] | None = None,
    out_dir: Path | None = None,
    progress: Callable[[int, Summary], None] | None = None,
    *,
    budgets: bool = False,
) -> Summary:
    """Run `cases` seeded cases; case k is reproducible from (seed, k). With `budgets`, budget cases,
    each in a child process under the limits (`run_limited`)."""
    texts = texts if texts is not None else corpus()
    summary = Summary()
    for k in range(cases):
        rng = random.Random(f"{seed}:{k}")
        if budgets:
            how, text = "budget", budget_case(rng)
            outcome = run_limited(text)
        else:
            how, text = make_case(rng, texts)
            outcome = run_case(text, seed=k, unwinds=how == "unwound")
        summary.cases += 1
        summary.decisions += outcome.decisions
        if outcome.kind == "loaded":
            summary.loaded += 1
        elif outcome.kind == "error":
            summary.errors += 1
        else:
            summary.crashes.append((k, how, outcome.detail))
            if out_dir is not None:
                out_dir.mkdir(parents=True, exist_ok=True)
                (out_dir / f"crash-{seed}-{k}.rules").write_text(text, encoding="utf-8", errors="surrogatepass")
        if progress is not None:
            progress(k, summary)
    return summary


# ---------------------------------------------------------------------------- the command


def register(sub: Any) -> None:
    """Add `rulecraft fuzz` to the command line."""
    p = sub.add_parser(
        "fuzz",
        help="fuzz the parser and checker with mutated and generated rulebooks",
        description="Mutate the bundled rulebooks and examples, generate rulebooks from the "
        "grammar; every case must load or fail with a located error.",
    )
    _arguments(p)
    p.set_defaults(func=_command)


def _arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--cases", type=whole(1, 100_000_000), default=1000, help="how many cases (default 1000)")
    p.add_argument("--seed", type=SEED, default=0, help="seed of the run (case k is reproducible from seed and k)")
    p.add_argument("--corpus", nargs="*", default=[], metavar="FILE", help="more rulebook files to mutate")
    p.add_argument("--out", default="fuzz-crashes", help="folder for the texts of crashing cases")
    p.add_argument(
        "--budgets",
        action="store_true",
        help="cases that ask for much work inside expressions, each run in a child process under "
        f"{CASE_MEMORY >> 20} MB of address space and a {CASE_TIMEOUT} s timeout",
    )
    add_quiet(p)


def _command(args: argparse.Namespace) -> int:
    texts = corpus(args.corpus)
    start = time.monotonic()

    with progress(args.cases, "cases", "fuzz", args.quiet) as advance:
        summary = fuzz(
            args.cases, args.seed, texts, Path(args.out), lambda k, summary: advance(1), budgets=args.budgets
        )
    for k, how, detail in summary.crashes[:20]:
        print(f"CRASH case {k} (seed {args.seed}; {how}); text in {args.out}/crash-{args.seed}-{k}.rules\n{detail}")
    over = "budget cases" if args.budgets else f"cases over {len(texts)} rulebooks ({', '.join(sorted(texts))})"
    print(
        f"fuzz: {summary.cases} {over}: "
        f"{summary.loaded} loaded, {summary.errors} located errors, {len(summary.crashes)} crashes; "
        f"{summary.decisions} decisions played in {time.monotonic() - start:.0f}s"
    )
    return 1 if summary.crashes else 0
