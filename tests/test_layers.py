"""The layers as import-linter keeps them (the contracts in pyproject.toml's [tool.importlinter]):
they hold, a bad import breaks the one it should, and the packages import each other in no
circle but through an import a contract allows with its reason.

``python -m tests.test_layers`` prints the package graph's cycles (docs/architecture.md's figures).
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import tomllib
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import grimp
import networkx as nx

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("bot", "cogs", "console", "web", "mcsim")
LINT_IMPORTS = Path(sys.executable).with_name("lint-imports")
LIMIT = 120  # seconds; a run takes ~1 s


def _contracts(pyproject: Path = ROOT / "pyproject.toml") -> list[dict[str, Any]]:
    with pyproject.open("rb") as f:
        contracts: list[dict[str, Any]] = tomllib.load(f)["tool"]["importlinter"]["contracts"]
    return contracts


def _lint(root: Path) -> tuple[int, str]:
    """lint-imports on the checkout at ``root`` (its pyproject.toml, its packages)."""
    done = subprocess.run(
        [str(LINT_IMPORTS), "--config", str(root / "pyproject.toml"), "--no-cache"],
        cwd=root,
        env={"PYTHONPATH": str(root), "PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"},
        capture_output=True,
        text=True,
        timeout=LIMIT,
    )
    return done.returncode, done.stdout + done.stderr


def _verdicts(output: str) -> dict[str, str]:
    names = [str(c["name"]) for c in _contracts()]
    found = {}
    for name in names:
        match = re.search(rf"^{re.escape(name)} (KEPT|BROKEN)", output, re.MULTILINE)
        found[name] = match.group(1) if match else "not reported"
    return found


def test_every_contract_holds() -> None:
    code, output = _lint(ROOT)
    assert set(_verdicts(output).values()) == {"KEPT"}, output
    assert code == 0, output


def test_every_part_of_bot_has_a_layer() -> None:
    # a new subpackage or top-level module outside the layers would be checked by nothing
    (layers,) = [c["layers"] for c in _contracts() if c["type"] == "layers"]
    listed = {part.strip() for layer in layers for part in re.split(r"[:|]", layer)}
    parts = {f"bot.{p.stem}" for p in (ROOT / "bot").glob("*.py") if p.stem != "__init__"}
    parts |= {f"bot.{p.parent.name}" for p in (ROOT / "bot").glob("*/__init__.py")}
    assert parts == listed, (sorted(parts - listed), sorted(listed - parts))


FACES = "the faces cogs, web and console never import each other"

# a bad import for each contract: (the file it goes in, the import, the contract it breaks)
BAD_IMPORTS = [
    ("bot/store/db.py", "import cogs.alerts", "bot never imports the faces cogs, web and console"),
    (
        "bot/discord/app.py",
        "import console.session",
        "bot never imports the faces cogs, web and console",
    ),
    ("mcsim/world.py", "import bot.config", "mcsim, the stand-in server, knows nothing of the bot"),
    ("web/markup.py", "import cogs.admin", FACES),
    ("console/render.py", "import web.markup", FACES),
    (
        "web/zones.py",
        "import bot.discord.slash.planned_ui",
        "the web face never imports the Discord adapter bot.discord, nor bot.testkit",
    ),
    (
        "bot/operations/caller.py",
        "import bot.discord.slash.fit",
        "the application layer never imports a face",
    ),
    ("bot/i18n/formats.py", "import bot.config", "bot's layers"),
    (
        "bot/discord/slash/fit.py",
        "import bot.discord.app",
        "inside the Discord adapter, the helpers never import the bot or its launch",
    ),
]


def _copy_checkout(to: Path) -> None:
    shutil.copy(ROOT / "pyproject.toml", to / "pyproject.toml")
    for package in PACKAGES:
        shutil.copytree(ROOT / package, to / package, ignore=shutil.ignore_patterns("__pycache__"))


def test_a_bad_import_breaks_its_contract(tmp_path: Path) -> None:
    _copy_checkout(tmp_path)
    for file, line, _contract in BAD_IMPORTS:
        path = tmp_path / file
        path.write_text(path.read_text(encoding="utf-8") + f"\n{line}\n", encoding="utf-8")
    code, output = _lint(tmp_path)
    assert code != 0, output
    verdicts = _verdicts(output)
    assert {verdicts[contract] for _f, _l, contract in BAD_IMPORTS} == {"BROKEN"}, output
    for file, line, _contract in BAD_IMPORTS:  # each named as the reason, from the copy
        importer = file.removesuffix(".py").replace("/", ".")
        assert f"{importer} -> {line.removeprefix('import ')}" in output, output


def _node(module: str) -> str:
    """A package's subpackage or top-level module: ``bot.store.db`` -> ``bot.store``."""
    return ".".join(module.split(".")[:2])


def _ignored() -> set[tuple[str, str]]:
    pairs = set()
    for contract in _contracts():
        for rule in contract.get("ignore_imports", []):
            importer, imported = (part.strip() for part in rule.split("->"))
            pairs.add((importer, imported))
    return pairs


def package_graph(skip: Iterable[tuple[str, str]] = ()) -> nx.DiGraph[str]:
    """The package-level graph of run-time imports (``TYPE_CHECKING`` ones left out): an edge
    from a package to each package it imports, without the module imports ``skip``."""
    graph = grimp.build_graph(*PACKAGES, exclude_type_checking_imports=True, cache_dir=None)
    left_out = set(skip)
    edges: nx.DiGraph[str] = nx.DiGraph()
    for importer in graph.modules:
        for imported in graph.find_modules_directly_imported_by(importer):
            if _node(importer) != _node(imported) and (importer, imported) not in left_out:
                edges.add_edge(_node(importer), _node(imported))
    return edges


def package_cycles(skip: Iterable[tuple[str, str]] = ()) -> list[list[str]]:
    """The strongly connected components (more than one node) of :func:`package_graph`."""
    edges = package_graph(skip)
    return sorted(sorted(c) for c in nx.strongly_connected_components(edges) if len(c) > 1)


def test_packages_import_in_no_circle() -> None:
    # every run-time import counts, the allowed ones too: none of them may close a circle
    assert package_cycles() == []


if __name__ == "__main__":
    for label, skip in (("all imports", set()), ("allowed ones left out", _ignored())):
        graph = package_graph(skip)
        cycles = package_cycles(skip)
        print(
            f"{label}: {graph.number_of_nodes()} packages, {graph.number_of_edges()} imports "
            f"between them; {len(cycles)} cycle(s), {sum(map(len, cycles))} packages in them"
        )
        for cycle in cycles:
            print("   ", " ".join(cycle))
