"""The layout rules, kept by a test so that new work finds its room instead of
growing bot/ flat again: at most ten modules directly in bot/, none over 650 lines in bot/,
cogs/, console/ or web/, and the data flows one way (faces never reach the Minecraft side
directly)."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MAX_TOP_MODULES = 10
MAX_LINES = 650


def _python_files(folder: str) -> list[Path]:
    base = ROOT / folder
    return sorted(base.rglob("*.py")) if base.is_dir() else []


def test_at_most_ten_modules_directly_in_bot() -> None:
    top = sorted(p.name for p in (ROOT / "bot").glob("*.py") if p.name != "__init__.py")
    assert len(top) <= MAX_TOP_MODULES, top


def test_no_module_over_650_lines() -> None:
    long = {
        str(p.relative_to(ROOT)): n
        for folder in ("bot", "cogs", "console", "web")
        for p in _python_files(folder)
        if (n := len(p.read_text(encoding="utf-8").splitlines())) > MAX_LINES
    }
    assert not long, long


def _imports(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
        elif isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
    return names


def test_faces_reach_servers_only_through_services() -> None:
    # Faces may use the Minecraft side's data types and errors, never its RCON client, and never
    # mcsim; nor the log tailer or poller.
    offenders: dict[str, set[str]] = {}
    for path in _python_files("cogs") + _python_files("console") + _python_files("web"):
        bad = {
            name
            for name in _imports(path)
            if name.startswith(("mcsim", "bot.minecraft.rcon", "bot.events.log_tail"))
            or name in {"aiomcrcon", "bot.events.storage_poll"}
        }
        if bad:
            offenders[str(path.relative_to(ROOT))] = bad
    assert not offenders, offenders


def test_the_minecraft_and_events_sides_never_import_discord() -> None:
    offenders = {
        str(path.relative_to(ROOT)): names
        for folder in (
            "bot/minecraft",
            "bot/events",
            "bot/store",
            "bot/background",
            "bot/wallclock",
            "bot/times",
        )
        for path in _python_files(folder)
        if (names := {n for n in _imports(path) if n.split(".")[0] == "discord"})
    }
    assert not offenders, offenders
