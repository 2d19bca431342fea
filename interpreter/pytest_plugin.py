"""`pytest --rulecraft-cov`: rule coverage of rulebooks by a project's own tests.

Registered by entry point (`pytest11`), so it is there wherever rulecraft is installed, and does
nothing unless asked. With `--rulecraft-cov`, every game the tests run is observed (as
`rulecraft coverage` observes its games: `coverage.observe`) and the terminal summary shows the
coverage report of each bundled rulebook, or of the rulebooks named by `--rulecraft-cov-rulebook`;
`--rulecraft-cov-html DIR` also writes each report as annotated HTML in DIR/NAME/.
"""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import Any


def pytest_addoption(parser: Any) -> None:
    group = parser.getgroup("rulecraft", "rule coverage of rulecraft rulebooks")
    group.addoption(
        "--rulecraft-cov",
        action="store_true",
        help="report which statements, arms, tiers, rules and options of the rulebooks the tests ran",
    )
    group.addoption(
        "--rulecraft-cov-rulebook",
        action="append",
        default=[],
        metavar="NAME",
        help="a bundled rulebook or a rulebook path to report (repeatable; default: every bundled rulebook)",
    )
    group.addoption("--rulecraft-cov-html", metavar="DIR", help="also write annotated HTML reports in DIR/NAME/")


def pytest_configure(config: Any) -> None:
    if config.getoption("rulecraft_cov"):
        config.pluginmanager.register(RuleCoverage(config), "rulecraft-coverage")


class RuleCoverage:
    """Observe every game from the start of the session to its end; report in the terminal summary."""

    def __init__(self, config: Any):
        from .tools.coverage import Recorder

        self.config = config
        self.recorder = Recorder()
        self.stack = contextlib.ExitStack()

    def pytest_sessionstart(self, session: Any) -> None:
        from .tools.coverage import observe

        self.stack.enter_context(observe(self.recorder))

    def pytest_runtest_logfinish(self, nodeid: str, location: Any) -> None:
        self.recorder.flush(final=False)

    def pytest_sessionfinish(self, session: Any, exitstatus: int) -> None:
        self.stack.close()

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        from .rulebook import bundled_names, load
        from .tools.coverage import html_report, report, text_report

        names = self.config.getoption("rulecraft_cov_rulebook") or bundled_names()
        html = self.config.getoption("rulecraft_cov_html")
        terminalreporter.section("rulecraft coverage")
        for name in names:
            rb = load(name)
            rep = report(self.recorder, rb.program, rb.name)
            heading = f"coverage of {rb.name} by the tests"
            terminalreporter.write(text_report(rep, heading) + "\n")
            if html:
                index = html_report(rep, heading, Path(html) / rb.name)
                terminalreporter.write_line(f"wrote {index}")
