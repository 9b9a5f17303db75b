"""The developer docs say what the code has: every file, module and name docs/architecture.md and
docs/interfaces.md write as code exists, every link of the Markdown files leads to a file, and
interfaces.md's settings tables name every setting with its default."""

from __future__ import annotations

import importlib
import json
import re
from pathlib import Path

import pytest
from pydantic import BaseModel
from pydantic_core import PydanticUndefined

from bot.config import RENAMED_EXTENSIONS, ServerConfig, Settings

ROOT = Path(__file__).resolve().parent.parent
DOCS = [ROOT / "docs" / "architecture.md", ROOT / "docs" / "interfaces.md"]
LINKED = [*DOCS, ROOT / "docs" / "plan-file.md", ROOT / "README.md", ROOT / "CONTRIBUTING.md"]
# a path of the repository in backticks: `bot/minecraft/rcon.py`, `datapack/`
_PATH = re.compile(r"`((?:bot|cogs|console|web|mcsim|tests|bench|datapack|locale)/[\w/.-]*)`")
# a dotted name of our packages in backticks: `bot.launch.run_bot`, `web.auth.action(rank, what)`
_NAME = re.compile(r"`((?:bot|cogs|console|web|mcsim)(?:\.\w+)+)")
# written like a module and not one: the database's file, and the old cogs' names still loaded
NOT_MODULES = {"bot.sqlite3", *RENAMED_EXTENSIONS}
_LINK = re.compile(r"\]\(([^)#\s]+)(?:#[^)]*)?\)")


def _spans(path: Path, pattern: re.Pattern[str]) -> set[str]:
    return set(pattern.findall(path.read_text(encoding="utf-8")))


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: p.name)
def test_every_path_named_exists(doc: Path) -> None:
    missing = sorted(p for p in _spans(doc, _PATH) if not (ROOT / p.rstrip("/")).exists())
    assert not missing, missing


def _resolves(dotted: str) -> bool:
    """The longest importable module of `dotted`, then each attribute after it."""
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            found: object = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        for attr in parts[cut:]:
            if not hasattr(found, attr):
                return False
            found = getattr(found, attr)
        return True
    return False


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: p.name)
def test_every_module_and_name_written_exists(doc: Path) -> None:
    names = _spans(doc, _NAME) - NOT_MODULES
    missing = sorted(name for name in names if not _resolves(name))
    assert not missing, missing


@pytest.mark.parametrize("doc", LINKED, ids=lambda p: p.name)
def test_every_link_leads_to_a_file(doc: Path) -> None:
    links = {link for link in _spans(doc, _LINK) if "://" not in link}
    missing = sorted(link for link in links if not (doc.parent / link).exists())
    assert not missing, missing


def _table(section: str) -> dict[str, str]:
    """Each name a settings table's first column gives, with the default its second says."""
    said: dict[str, str] = {}
    for line in section.splitlines():
        if not line.startswith("| `"):
            continue
        names_cell, default_cell = (cell.strip() for cell in line.strip("|").split("|")[:2])
        names = re.findall(r"`([A-Z_]+)`", names_cell)
        defaults = re.findall(r"`([^`]*)`", default_cell) or [default_cell]
        if len(defaults) == 1:
            defaults *= len(names)
        assert len(defaults) == len(names), line
        said.update(zip(names, defaults, strict=True))
    return said


def _default(model: type[BaseModel], field: str) -> str:
    """A field's default as the tables write it."""
    info = model.model_fields[field]
    if info.default is PydanticUndefined and info.default_factory is None:
        return "required"
    value = info.get_default(call_default_factory=True)
    if value is None:
        return "unset"
    if isinstance(value, list):
        return ",".join(map(str, value)) if value else "[]"
    if isinstance(value, dict):
        return json.dumps(value) if value else "{}"
    return str(value)


def _settings_tables() -> tuple[dict[str, str], dict[str, str]]:
    text = (ROOT / "docs" / "interfaces.md").read_text(encoding="utf-8")
    section = text.split("\n## Settings\n", 1)[1].split("\n## ", 1)[0]
    first, servers = section.split("\nEach server ", 1)
    return _table(first), _table(servers)


def test_the_settings_tables_name_every_setting_with_its_default() -> None:
    bot_table, server_table = _settings_tables()
    expected = {f"DOOM_{name.upper()}": _default(Settings, name) for name in Settings.model_fields}
    assert bot_table == expected
    per_server = {name.upper(): _default(ServerConfig, name) for name in ServerConfig.model_fields}
    assert server_table == per_server
