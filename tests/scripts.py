"""The project's scripts (examples/benchmarks/, tests/reference/) loaded as modules by the tests that
keep them from rotting: they are files to run, not packages to import."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
BENCHMARKS = ROOT / "examples" / "benchmarks"


def load_script(path: Path, name: str) -> Any:
    """The script at `path` run as a module named `name` (its own `sys.path` changes included)."""
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
