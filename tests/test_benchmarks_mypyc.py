"""examples/benchmarks/mypyc_build.py: the build of the engine with modules compiled by mypyc that MYPYC.md
measures. These tests keep it from rotting: the one source change it makes, and a real build (one small
module, compiled by mypyc and a C compiler) that plays the same game as the pure engine."""

from __future__ import annotations

import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.scripts import BENCHMARKS, ROOT, load_script

build = load_script(BENCHMARKS / "mypyc_build.py", "benchmark_mypyc_build")

GAME_PY = ROOT / "interpreter" / "runtime" / "game.py"


def test_each_function_the_game_has_of_its_parts_becomes_a_method_that_passes_the_game() -> None:
    source = GAME_PY.read_text(encoding="utf-8")
    aliases = re.findall(r"^    (\w+) = (?:ev|store)\.\w+$", source, re.M)
    text, count = build.bind_compiled(source)
    assert count == len(aliases) > 20 and "move" in aliases and "label" in aliases
    assert not re.search(r"^    \w+ = (?:ev|store)\.\w+$", text, re.M)
    assert "    def move(self, *a, **k):" in text and "        return store.move(self, *a, **k)" in text
    compile(text, "game.py", "exec")  # still Python


PLAY = """
import json, sys
import rulecraft, rulecraft.runtime.tally as tally
from rulecraft.agents import RandomAgent, play
game = rulecraft.load(sys.argv[1]).new_game(players=2, seed=3, trace=False)
play(game, [RandomAgent(1), RandomAgent(2)], atomic=False)
print(json.dumps([tally.__file__, rulecraft.__file__, game.answers, game.steps]))
"""


@pytest.mark.skipif(
    importlib.util.find_spec("mypyc") is None or not (shutil.which("cc") or shutil.which("gcc")),
    reason="needs mypyc (the test extra's mypy) and a C compiler",
)
def test_the_build_compiles_the_modules_named_and_plays_the_same_game(tmp_path: Path) -> None:
    out = tmp_path / "build"
    assert build.main([str(out), "--modules", "runtime/tally"]) == 0
    runtime = out / "src" / "rulecraft" / "runtime"
    assert list(runtime.glob("tally.*.so")) and not list(runtime.glob("store.*.so"))  # the module named alone
    assert (out / "src" / "rulecraft" / "grammar").is_dir() and (out / "src" / "rulecraft" / "rulebooks").is_dir()
    kuhn = str(ROOT / "examples" / "games" / "kuhn_poker.rules")
    env = {**os.environ, "RULECRAFT_CACHE_DIR": "off"}
    compiled = subprocess.run(
        [sys.executable, "-c", PLAY, kuhn],
        env={**env, "PYTHONPATH": str(out / "src")},
        capture_output=True,
        text=True,
        check=True,
    )
    pure = subprocess.run([sys.executable, "-c", PLAY, kuhn], env=env, capture_output=True, text=True, check=True)
    (tally_file, package, answers, steps), (_, pure_package, pure_answers, pure_steps) = (
        json.loads(compiled.stdout),
        json.loads(pure.stdout),
    )
    assert tally_file.endswith(".so") and package.startswith(str(out))  # the build, compiled, is what ran
    assert pure_package != package
    assert (answers, steps) == (pure_answers, pure_steps) and answers
