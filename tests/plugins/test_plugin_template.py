"""A new plugin from the template, as its author makes one: `python -m bot plugins new hello DIR`,
installed with pip (beside the bot, on the path of the processes here), is listed as loaded,
answers `/hello` in the console, is an API route in the OpenAPI document that runs it, shows its
page on the dashboard, and its own tests pass with a plain `pytest` in DIR (the test kit's
fixtures come from the installed bot: the core on mcsim, the dashboard, the local Discord)."""

from __future__ import annotations

import asyncio
import os
import re
import subprocess
import sys
from pathlib import Path

import aiohttp
import pytest

from tests.e2e.bot_process import WAIT, BotProcess, mcsim_process

ROOT = Path(__file__).resolve().parents[2]


def _run(
    argv: list[str], env: dict[str, str], cwd: Path, stdin: str = ""
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        argv, input=stdin, env=env, cwd=cwd, capture_output=True, text=True, timeout=300
    )


def _env(tmp_path: Path, site: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("DOOM_")}
    env["PYTHONPATH"] = os.pathsep.join([str(site), str(ROOT)])
    env["DOOM_DATA_DIR"] = str(tmp_path / "botdata")
    return env


@pytest.mark.slow
async def test_a_plugin_made_from_the_template_is_in_every_face(tmp_path: Path) -> None:
    project, site = tmp_path / "hello", tmp_path / "site"
    env = _env(tmp_path, site)
    made = _run(
        [sys.executable, "-m", "bot", "plugins", "new", "hello", str(project)], env, tmp_path
    )
    assert made.returncode == 0, made.stderr
    assert (project / "pyproject.toml").is_file() and (
        project / "tests" / "test_hello.py"
    ).is_file()
    again = _run(
        [sys.executable, "-m", "bot", "plugins", "new", "hello", str(project)], env, tmp_path
    )
    assert again.returncode == 2 and "not an empty folder" in again.stderr  # nothing over it
    pip = [sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--no-build-isolation"]
    installed = _run([*pip, "--target", str(site), str(project)], env, tmp_path)
    assert installed.returncode == 0, installed.stderr

    listed = _run([sys.executable, "-m", "bot", "plugins"], env, tmp_path)
    assert listed.returncode == 0, listed.stderr
    assert "hello 0.1.0: loaded operations: /hello pages: /x/hello/" in listed.stdout, listed.stdout

    # the console (its embedded world): the operation with no console code
    console = _run([sys.executable, "-m", "bot", "console"], env, tmp_path, "/hello\n/help\nquit\n")
    assert console.returncode == 0, console.stderr
    assert re.search(r"Hello from hello: it is tick \d+ \(day \d+\) on embedded\.", console.stdout)
    assert "/hello: Say hello with the server's game time." in console.stdout

    # the API and the dashboard, with no Discord: the route, its document, the page
    async with mcsim_process(tmp_path / "mc") as mcsim:
        (tmp_path / "serve").mkdir()
        bot = BotProcess(tmp_path / "serve", mcsim.port)
        bot.env["PYTHONPATH"] = env["PYTHONPATH"]
        bot.env["DOOM_WEB_PORT"] = "0"
        await bot.start("-m", "bot", "serve")
        try:
            said = await bot.expect("Serving the dashboard and API at ")
            found = re.search(r"http://127\.0\.0\.1:\d+", said)
            assert found is not None
            base = found[0]
            cli = [sys.executable, "-m", "bot"]
            token = await asyncio.to_thread(
                _run, [*cli, "token", "new", "ci", "--rank", "moderator"], bot.env, bot.cwd
            )
            assert token.returncode == 0, token.stderr
            auth = {"Authorization": f"Bearer {token.stdout.strip()}"}
            async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=WAIT)) as http:
                async with http.get(f"{base}/api/openapi.json") as r:
                    assert "/api/operations/hello" in (await r.json())["paths"]
                async with http.get(f"{base}/api/operations", headers=auth) as r:
                    listed_ops = {o["name"]: o for o in (await r.json())["operations"]}
                    assert listed_ops["hello"]["path"] == "/api/operations/hello"
                async with http.post(f"{base}/api/operations/hello", json={}, headers=auth) as r:
                    assert r.status == 200, await r.text()
                    answer = await r.json()
                    assert answer["outcome"].startswith("Hello from hello: it is tick ")
                    assert answer["facts"]["server"] == "main"
            link = await asyncio.to_thread(
                _run, [*cli, "login", "--name", "Ada", "--rank", "admin"], bot.env, bot.cwd
            )
            assert link.returncode == 0, link.stderr
            code = link.stdout.strip().split("c=", 1)[1]
            jar = aiohttp.CookieJar(unsafe=True)
            async with aiohttp.ClientSession(cookie_jar=jar) as browser:
                async with browser.post(f"{base}/login", data={"c": code}) as r:
                    assert r.status == 200
                async with browser.get(f"{base}/x/hello/") as r:
                    page = await r.text()
                    assert r.status == 200 and "<h1>Hello</h1>" in page, page
                async with browser.get(f"{base}/servers") as r:
                    assert 'href="/x/hello/"' in await r.text()  # in the navigation
        finally:
            await bot.kill()

    # the template's own tests, with a plain pytest in its folder
    tested = _run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"], env, project)
    assert tested.returncode == 0, tested.stdout[-3000:] + tested.stderr[-2000:]
    assert "5 passed" in tested.stdout, tested.stdout
