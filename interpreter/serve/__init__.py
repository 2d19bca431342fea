"""`rulecraft serve`: a live table in the browser, for people and agents together (docs/SERVE.md).

table.py is a game at the table and what each seat is shown; store.py the data folder (the SQLite
index, the records, the host's secret); app.py the Starlette application on uvicorn (the `serve`
extra), which relays answers and messages; lobby.html, table.html, table.js the pages, which draw
with the viewer's draw.js.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from ..console import whole
from ..errors import RulecraftError
from ..inputs import clip


def register(sub: Any) -> None:
    """Add `rulecraft serve` to the command line."""
    p = sub.add_parser(
        "serve",
        help="host games in the browser: a lobby, a link per seat, agents on the server (docs/SERVE.md)",
        description="Serve a lobby and live tables: any rulebook played in the browser by people and agents "
        "together. Each seat's link carries its own secret. Every game is a record under --data, written "
        "after every answer; a restarted server goes on with every unfinished game.",
    )
    p.add_argument(
        "--host", default="127.0.0.1", help="the address to listen on (default 127.0.0.1: this machine only)"
    )
    p.add_argument(
        "--port", type=whole(0, 65535), default=8000, help="the port (default 8000; 0: any free port, printed)"
    )
    p.add_argument(
        "--data", default="rulecraft-data", metavar="DIR", help="the folder of the games (default ./rulecraft-data)"
    )
    p.add_argument(
        "--rulebooks", metavar="DIR", help="a folder of .rules files the lobby may start, beside the bundled"
    )
    p.set_defaults(func=_command)


def _command(args: argparse.Namespace) -> int:
    try:
        from . import app
    except ImportError as exc:
        raise RulecraftError(
            f"rulecraft serve needs the serve extra ({exc.name} is missing): pip install 'rulecraft[serve]'"
        ) from None
    rulebooks = Path(args.rulebooks) if args.rulebooks else None
    if rulebooks is not None and not rulebooks.is_dir():
        raise RulecraftError(f"--rulebooks {clip(args.rulebooks)}: not a folder")
    return app.serve(args.host, args.port, Path(args.data), rulebooks)
