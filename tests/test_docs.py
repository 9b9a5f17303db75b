"""The developer docs say what the code has: every file, module and name docs/architecture.md and
docs/interfaces.md write as code exists, every link of the Markdown files leads to a file, and
interfaces.md's settings tables name every setting with its default."""

from __future__ import annotations

import importlib
import io
import json
import re
from pathlib import Path

import pytest
from pydantic import BaseModel
from pydantic_core import PydanticUndefined

from bot.config import DEFAULT_DENY, RENAMED_EXTENSIONS, ServerConfig, Settings

ROOT = Path(__file__).resolve().parent.parent
DOCS = [ROOT / "docs" / "architecture.md", ROOT / "docs" / "interfaces.md"]
LINKED = [*DOCS, ROOT / "docs" / "plan-file.md", ROOT / "README.md", ROOT / "CONTRIBUTING.md"]
# a path of the repository in backticks: `bot/minecraft/rcon.py`, `datapack/`
_PATH = re.compile(r"`((?:bot|cogs|console|web|mcsim|tests|bench|datapack|locale)/[\w/.-]*)`")
# a dotted name of our packages in backticks: `bot.discord.launch.run_bot`,
# `web.auth.action(rank, what)`
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


# a command with its options, as the README writes one to type: `/schedule run:say hi time:5 ...`
# (not a fragment: `/schedule ... on_doubt:run`, `/cancel id:`)
_EXAMPLE = re.compile(r"/[a-z_]+(?: [a-z_]+)* [a-z_]+:\S.*")
_REFUSED = ("Refused", "is wrong", "unknown option", "went wrong", "not enabled", "is one of")


def readme_examples() -> list[str]:
    spans = re.findall(r"`([^`\n]+)`", (ROOT / "README.md").read_text(encoding="utf-8"))
    return sorted(
        {
            span
            for span in spans
            if _EXAMPLE.fullmatch(span)
            and "..." not in span
            and not re.search(r"\b[a-z_]+:(\s|$)", span)
        }
    )


def _needs(example: str) -> str:
    """What the README says an example needs, in the sentences right after it ("" when none)."""
    text = (ROOT / "README.md").read_text(encoding="utf-8").replace("\n", " ")
    after = text.split(f"`{example}`", 1)[1].split(". ", 2)
    found = re.search(r"needs .*?`(DOOM_[A-Z_]+)`", ". ".join(after[:2]))
    return found.group(1) if found else ""


def _run(tmp_path: Path, example: str, **extra: object) -> str:
    from bot.testkit.harness import make_settings
    from console.front import main

    settings = make_settings(
        tmp_path, admin_role_ids=[], moderator_role_ids=[], admin_user_ids=[], **extra
    )
    out = io.StringIO()
    assert main(settings, stdin=io.StringIO(f"{example}\nquit\n"), stdout=out) == 0
    said = out.getvalue().split("type /help, or quit.", 1)[1]
    assert said.split("Buttons: type yes, no or a label.", 1)[1].strip(), said  # a reply came
    return said


def test_the_readme_has_examples_to_run() -> None:
    found = readme_examples()
    assert "/schedule run:say hello time:5 unit:second id:greet" in found
    assert any(
        example.startswith("/schedule run:kill @e[type=item] when:06:00") for example in found
    )


@pytest.mark.slow
@pytest.mark.parametrize("example", readme_examples())
def test_a_readme_example_runs_as_written_or_says_what_it_needs(
    example: str, tmp_path: Path
) -> None:
    """Each, typed into the console on the default setup (the embedded server): accepted, or
    refused with a reply that names the setting the README says the example needs; with that
    setting, accepted."""
    said = _run(tmp_path / "default", example)
    if not any(word in said for word in _REFUSED):
        return
    needs = _needs(example)
    assert needs, f"{example!r} is refused and the README does not say what it needs:\n{said}"
    assert needs in said, said  # the refusal names the same setting
    assert needs == "DOOM_DENY_COMMANDS", needs  # the one this test knows how to set
    root = re.search(r"\brun:(\S+)", example)
    assert root is not None
    deny = [c for c in DEFAULT_DENY if c != root.group(1)]
    said = _run(tmp_path / "set", example, deny_commands=deny)
    assert not any(word in said for word in _REFUSED), said
