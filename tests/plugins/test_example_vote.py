"""The project's example plugin, examples/vote, as an admin gets it: built as a wheel, installed
with pip (beside the bot, on the path of the processes here), it is listed as loaded, runs a
vote in the console (start, cast, close: the winner planned by /schedule), answers through the
API (`POST /api/operations/vote/...`) and shows its page on the dashboard of `serve`, and its own
tests pass with a plain `pytest` in its folder. And it imports nothing of the bot but bot.api
(its tests also bot.testkit), read from its files."""

from __future__ import annotations

import ast
import re
import shutil
import sys
from pathlib import Path

import pytest

from tests.plugins.served import ROOT, plugin_env, run, serving

EXAMPLE = ROOT / "examples" / "vote"
CHOICES = "Parkour = function event:parkour | PvP = say pvp night"


def _install(tmp_path: Path, env: dict[str, str]) -> Path:
    """The example built as a wheel (from a copy: the build leaves nothing in the tree) and
    installed into tmp_path/site; that folder."""
    source, wheels, site = tmp_path / "vote", tmp_path / "wheels", tmp_path / "site"
    shutil.copytree(EXAMPLE, source, ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
    pip = [sys.executable, "-m", "pip"]
    built = run(
        [*pip, "wheel", "-q", "--no-deps", "--no-build-isolation", "-w", str(wheels), str(source)],
        env,
        tmp_path,
    )
    assert built.returncode == 0, built.stderr
    [wheel] = wheels.glob("doom_schedule_vote-0.1.0-*.whl")
    done = run(
        [*pip, "install", "-q", "--no-deps", "--target", str(site), str(wheel)], env, tmp_path
    )
    assert done.returncode == 0, done.stderr
    return site


async def _serve(tmp_path: Path, env: dict[str, str]) -> None:
    """`serve` on an mcsim: a vote through the API (a moderator's token), its page after login."""
    async with serving(tmp_path, env) as served:
        base, http = served.base, served.api
        api = f"{base}/api/operations/vote"
        async with http.get(f"{base}/api/openapi.json") as r:
            paths = (await r.json())["paths"]
            assert {f"/api/operations/vote/{n}" for n in ("start", "cast")} <= set(paths)
        asked = {"question": "<i>Next</i> event?", "choices": CHOICES, "when": "in 2h"}
        async with http.post(f"{api}/start", json=asked) as r:
            assert r.status == 200, await r.text()
            assert (await r.json())["facts"]["poll"] == 1
        ballot = {"poll": 1, "choice": "pvp"}
        async with http.post(f"{api}/cast", json=ballot) as r:
            assert r.status == 200, await r.text()
            assert (await r.json())["outcome"] == "Your vote for PvP in poll 1 is counted."
        async with http.post(f"{api}/cast", json={"poll": 1, "choice": "x"}) as r:
            assert r.status == 400, await r.text()  # refused in the users' words
            assert "no choice called 'x'" in await r.text()
        async with http.post(f"{api}/show", json={"poll": 1}) as r:
            assert (await r.json())["facts"]["counts"] == {"Parkour": 0, "PvP": 1}
        async with http.post(f"{api}/close", json={"poll": 1}) as r:
            assert r.status == 200, await r.text()
            closed = await r.json()
            assert "PvP wins. Planned vote-1 on main for " in closed["outcome"]
        async with served.browser.get(f"{base}/x/vote/") as r:
            page = await r.text()
            assert r.status == 200 and "<h1>Votes</h1>" in page, page
            assert "&lt;i&gt;Next&lt;/i&gt; event?" in page  # escaped
            assert "<td>PvP</td>\n<td><code>say pvp night</code></td><td>1</td>" in page
        async with served.browser.get(f"{base}/servers") as r:
            assert 'href="/x/vote/"' in await r.text()  # in the navigation


@pytest.mark.slow
async def test_the_example_plugin_installed_as_a_wheel_is_in_every_face(tmp_path: Path) -> None:
    env = plugin_env(tmp_path, tmp_path / "site")
    _install(tmp_path, env)

    listed = run([sys.executable, "-m", "bot", "plugins"], env, tmp_path)
    assert listed.returncode == 0, listed.stderr
    assert (
        "vote 0.1.0: loaded operations: /vote start, /vote cast, /vote show, /vote close "
        "pages: /x/vote/" in listed.stdout
    ), listed.stdout

    # the console on its embedded world: a whole vote, the winner planned by /schedule
    lines = [
        f"/vote start question:Next event? choices:{CHOICES} when:in 2h",
        "/vote cast poll:1 choice:PvP",
        "/vote close poll:1",
        "/list which:planned",
        "quit",
    ]
    console = run([sys.executable, "-m", "bot", "console"], env, tmp_path, "\n".join(lines) + "\n")
    assert console.returncode == 0, console.stderr
    out = " ".join(console.stdout.split())  # rich wraps long lines
    assert "Poll 1 is open: Next event?" in out, out
    assert "Your vote for PvP in poll 1 is counted." in out, out
    assert "Poll 1 is closed (Parkour 0, PvP 1). PvP wins. Planned vote-1 on embedded" in out, out

    # a new process on the same data: the poll was kept in the bot's database
    again = run([sys.executable, "-m", "bot", "console"], env, tmp_path, "/vote show\nquit\n")
    assert again.returncode == 0, again.stderr
    assert "Poll 1 is closed: Parkour 0, PvP 1." in again.stdout, again.stdout

    await _serve(tmp_path, env)

    # the example's own tests, with a plain pytest in its folder (a copy: nothing left behind)
    tests = tmp_path / "vote"
    tested = run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"], env, tests)
    assert tested.returncode == 0, tested.stdout[-3000:] + tested.stderr[-2000:]
    assert re.search(r"\b1[0-9] passed\b", tested.stdout), tested.stdout


# -- what it imports -------------------------------------------------------------------------


def bot_imports(source: str) -> set[str]:
    """The modules of `bot` a file's source imports (`from bot import api` is bot.api)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names if a.name.split(".")[0] == "bot")
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            if node.module == "bot":
                found.update(f"bot.{a.name}" for a in node.names)
            elif node.module.startswith("bot."):
                found.add(node.module)
    return found


def not_allowed(source: str, *, tests: bool) -> set[str]:
    """What of `bot` a plugin's file imports beyond bot.api (and bot.testkit in its tests)."""
    allowed = ("bot.api", "bot.testkit") if tests else ("bot.api",)
    return {
        name
        for name in bot_imports(source)
        if not any(name == a or name.startswith(a + ".") for a in allowed)
    }


def test_the_example_imports_only_the_public_api() -> None:
    files = sorted(EXAMPLE.rglob("*.py"))
    assert {p.name for p in files} >= {"__init__.py", "polls.py", "page.py", "test_vote.py"}
    seen: set[str] = set()
    for path in files:
        source = path.read_text(encoding="utf-8")
        seen |= bot_imports(source)
        bad = not_allowed(source, tests="tests" in path.relative_to(EXAMPLE).parts)
        assert not bad, f"{path.relative_to(ROOT)} imports {sorted(bad)}"
    assert seen == {"bot.api", "bot.testkit.harness"}  # the reading finds its imports


@pytest.mark.parametrize(
    ("source", "tests", "bad"),
    [
        ("from bot.core import build_core", False, {"bot.core"}),
        ("import bot.operations.registry", False, {"bot.operations.registry"}),
        ("from bot import errors", False, {"bot.errors"}),
        ("import bot", False, {"bot"}),
        ("def f():\n    from bot.store.db import Database", False, {"bot.store.db"}),
        ("from bot.testkit.harness import MOD", False, {"bot.testkit.harness"}),
        ("from bot.apis import x", True, {"bot.apis"}),
        ("from bot.testkit.harness import MOD", True, set()),
        ("from bot.api import run\nfrom bot import api", False, set()),
        ("from .polls import Poll\nimport botany", False, set()),
    ],
)
def test_the_import_check_catches_a_plugin_reaching_inside(
    source: str, tests: bool, bad: set[str]
) -> None:
    assert not_allowed(source, tests=tests) == bad
