"""`python -m bot console` in a pseudo-terminal, as a person types it: `/plan export` writes the
plan file to the data dir and names it; `/show` of a long command shows it all (Discord's reply
attaches it instead)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

from tests.e2e.test_e2e_console_pty import CONSOLE, Terminal, console_env

LONG = "say " + "far " * 260  # 1,044 characters: Discord's /show attaches it


@pytest.fixture
def terminal(tmp_path: Path) -> Iterator[Terminal]:
    term = Terminal(CONSOLE, env=console_env(tmp_path, "dumb"), cwd=tmp_path)
    try:
        yield term
    finally:
        term.close()


@pytest.mark.slow
def test_plan_export_and_a_long_show_in_a_terminal(terminal: Terminal, tmp_path: Path) -> None:
    terminal.expect("type /help, or quit")
    terminal.expect("> ")
    mark = terminal.type(f"/schedule run:{LONG.strip()} time:2 unit:hour id:far")
    terminal.expect("Scheduled far on embedded.", after=mark)
    mark = terminal.type("/plan export")
    screen = terminal.expect(".yaml)", after=mark)
    plan = re.search(r"\(attached: plan-embedded\.yaml, saved as (\S+\.yaml)\)", screen[mark:])
    assert plan is not None, screen[mark:]
    mark = terminal.type("/show id:far")
    screen = terminal.expect("ETA", after=mark)
    assert "Task far" in screen[mark:] and "attached" not in screen[mark:], screen[mark:]
    # the whole command, however the terminal wraps it
    assert re.sub(r"\s+", "", screen[mark:]).count("far") >= LONG.count("far"), screen[mark:]
    terminal.type("quit")
    assert terminal.proc.wait(60) == 0
    assert "went wrong" not in terminal.screen and "Traceback" not in terminal.screen
    folder = tmp_path / "botdata" / "console"
    assert Path(plan.group(1)).parent == folder
    tasks = yaml.safe_load(Path(plan.group(1)).read_text(encoding="utf-8"))["tasks"]
    assert [(t["id"], t["run"]) for t in tasks] == [("far", LONG.strip())]
