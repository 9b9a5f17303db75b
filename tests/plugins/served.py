"""What the plugin end-to-end tests share: the bot's CLI run as a process with an installed
plugin's folder on its path, and `python -m bot serve` on an mcsim process with a moderator's
API token and an admin's dashboard session (both made by the CLI beside it, as an admin would)."""

from __future__ import annotations

import asyncio
import os
import re
import subprocess
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path

import aiohttp

from tests.e2e.bot_process import WAIT, BotProcess, mcsim_process

ROOT = Path(__file__).resolve().parents[2]
BOT = [sys.executable, "-m", "bot"]


def run(
    argv: list[str], env: dict[str, str], cwd: Path, stdin: str = ""
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        argv, input=stdin, env=env, cwd=cwd, capture_output=True, text=True, timeout=300
    )


def plugin_env(tmp_path: Path, site: Path) -> dict[str, str]:
    """The environment of a bot with the plugins installed in `site` (and no DOOM_ settings of
    the test run's own)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("DOOM_")}
    env["PYTHONPATH"] = os.pathsep.join([str(site), str(ROOT)])
    env["DOOM_DATA_DIR"] = str(tmp_path / "botdata")
    env["DOOM_LOCALE"] = "en"
    return env


@dataclass
class Served:
    base: str  # the dashboard's address
    api: aiohttp.ClientSession  # with a moderator's bearer token
    browser: aiohttp.ClientSession  # logged in as an admin, by a one-time code


@asynccontextmanager
async def serving(tmp_path: Path, env: dict[str, str]) -> AsyncIterator[Served]:
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
            token = await asyncio.to_thread(
                run, [*BOT, "token", "new", "ci", "--rank", "moderator"], bot.env, bot.cwd
            )
            assert token.returncode == 0, token.stderr
            link = await asyncio.to_thread(
                run, [*BOT, "login", "--name", "Ada", "--rank", "admin"], bot.env, bot.cwd
            )
            assert link.returncode == 0, link.stderr
            auth = {"Authorization": f"Bearer {token.stdout.strip()}"}
            timeout = aiohttp.ClientTimeout(total=WAIT)
            async with (
                aiohttp.ClientSession(timeout=timeout, headers=auth) as api,
                aiohttp.ClientSession(cookie_jar=aiohttp.CookieJar(unsafe=True)) as browser,
            ):
                code = link.stdout.strip().split("c=", 1)[1]
                async with browser.post(f"{found[0]}/login", data={"c": code}) as r:
                    assert r.status == 200
                yield Served(found[0], api, browser)
        finally:
            await bot.kill()
