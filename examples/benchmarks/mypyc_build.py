"""Build a copy of the engine with some of its modules compiled by mypyc, to measure it (MYPYC.md).

    python examples/benchmarks/mypyc_build.py DIR [--modules runtime/store,runtime/decisions,...] [--rev HEAD]
    PYTHONPATH=DIR/src python examples/benchmarks/compare.py ...     # the compiled engine, measured

Issue 40's item 6 asks to measure the engine compiled with mypyc, and to ship it as an optional build only
if it pays. This script makes the build that is measured, so that the measurement can be made again on
any commit: the commit's package (`git archive`) laid out as `DIR/src/rulecraft` (mypyc names a module by
its folders, and the package's source lives in interpreter/, grammar/ and rulebooks/), the modules named
compiled in place beside their sources (`mypycify`, `build_ext --inplace`), the rest left as Python. With
`DIR/src` first on `PYTHONPATH`, `import rulecraft` is the build (the editable install's finder comes after
the path's).

One change of the source is needed, made in the copy only (`bind_compiled`): `Game` has the functions of
evaluate.py and store.py as class attributes (`move = store.move`), so that `g.move(...)` passes the game;
a function compiled by mypyc is not a descriptor, so read from the class it binds nothing, and each is
made a method that passes the game on (`def move(self, *a, **k): return store.move(self, *a, **k)`), a
Python call more for each call of them from the generated code.

It needs mypy (mypyc comes with it, as the `test` extra installs it) and a C compiler.
"""

from __future__ import annotations

import argparse
import io
import re
import shutil
import subprocess
import sys
import tarfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

# The modules compiled by default: those measured in MYPYC.md (2026-12-06), the engine's functions over the game
# and its decisions; the frames (machine.py), the game's class and the state's attrs classes are left as Python
# (MYPYC.md says why).
MODULES = (
    "runtime/store",
    "runtime/statements",
    "runtime/decisions",
    "runtime/tally",
    "runtime/operations",
    "runtime/evaluate",
    "language/builtins",
)
# The package's folders in the checkout -> in the build (pyproject.toml's `package-dir`).
LAYOUT = {"interpreter": "rulecraft", "grammar": "rulecraft/grammar", "rulebooks": "rulecraft/rulebooks"}
_ALIAS = re.compile(r"^    (\w+) = (ev|store)\.(\w+)$", re.M)

SETUP = """from setuptools import setup
from mypyc.build import mypycify

setup(name="rulecraft", version="0.0", package_dir={{"": "src"}}, packages=[],
      ext_modules=mypycify({modules!r}, opt_level="3"))
"""


def bind_compiled(game_source: str) -> tuple[str, int]:
    """game.py's source with each class attribute that is a function of evaluate.py or store.py made a method
    that passes the game on (see the module), and how many were."""
    return _ALIAS.subn(
        lambda m: (
            f"    def {m[1]}(self, *a, **k):  # (mypyc build: a compiled function binds no self)\n"
            f"        return {m[2]}.{m[3]}(self, *a, **k)"
        ),
        game_source,
    )


def lay_out(rev: str, src: Path) -> None:
    """The package of commit `rev` laid out under `src` as `rulecraft`, game.py's functions bound (`bind_compiled`)."""
    archive = subprocess.run(
        ["git", "-C", str(ROOT), "archive", "--format=tar", rev, *LAYOUT], check=True, capture_output=True
    ).stdout
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        for member in tar.getmembers():
            top, _, rest = member.name.partition("/")
            if not member.isfile() or top not in LAYOUT:
                continue
            target = src / LAYOUT[top] / rest
            target.parent.mkdir(parents=True, exist_ok=True)
            extracted = tar.extractfile(member)
            assert extracted is not None
            target.write_bytes(extracted.read())
    game = src / "rulecraft" / "runtime" / "game.py"
    text, count = bind_compiled(game.read_text(encoding="utf-8"))
    if count == 0:
        raise SystemExit(f"mypyc_build: no function of evaluate.py or store.py found as an attribute in {game}")
    game.write_text(text, encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dir", type=Path, help="where to build (made anew)")
    parser.add_argument("--modules", default=",".join(MODULES), help="the modules compiled, comma-separated")
    parser.add_argument("--rev", default="HEAD", help="the commit built (default HEAD)")
    args = parser.parse_args(argv)
    if shutil.which("cc") is None and shutil.which("gcc") is None:
        parser.error("no C compiler (cc or gcc) on PATH: mypyc needs one")
    out: Path = args.dir.resolve()
    if out.exists():
        shutil.rmtree(out)
    src = out / "src"
    lay_out(args.rev, src)
    modules = [f"src/rulecraft/{m.strip()}.py" for m in args.modules.split(",") if m.strip()]
    missing = [m for m in modules if not (out / m).is_file()]
    if missing:
        parser.error(f"no such module in the package: {', '.join(missing)}")
    (out / "setup.py").write_text(SETUP.format(modules=modules), encoding="utf-8")
    subprocess.run([sys.executable, "setup.py", "build_ext", "--inplace"], cwd=out, check=True)
    print(f"built: PYTHONPATH={src} python ...  (compiled: {', '.join(args.modules.split(','))})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
