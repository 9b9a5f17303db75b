"""`python -m bot serve` as a real process beside mcsim as a real process: the core, its
background work and the dashboard/API with no Discord; `token` and `login` from the CLI beside
it; discord.py never imported (read from `python -X importtime`)."""

from __future__ import annotations

import asyncio
import re
import signal
import sys
from pathlib import Path

import aiohttp

from tests.e2e.bot_process import WAIT, BotProcess, mcsim_process


async def _cli(bot: BotProcess, *argv: str) -> tuple[int, str, str]:
    """`python -m bot <argv>` beside the serving process, on its data folder."""
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "bot",
        *argv,
        env=bot.env,
        cwd=bot.cwd,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    out, err = await asyncio.wait_for(proc.communicate(), WAIT)
    assert proc.returncode is not None
    return proc.returncode, out.decode(), err.decode()


def _discord_modules(importtime_log: str) -> list[str]:
    """The modules of discord.py the import log names (its last column is the module)."""
    found = []
    for line in importtime_log.splitlines():
        if line.startswith("import time:") and "|" in line:
            module = line.rsplit("|", 1)[1].strip()
            if module == "discord" or module.startswith("discord."):
                found.append(module)
    return found


async def test_serve_runs_the_core_and_api_without_discord(tmp_path: Path) -> None:
    async with mcsim_process(tmp_path) as mcsim:
        bot = BotProcess(tmp_path, mcsim.port)
        bot.env["DOOM_WEB_PORT"] = "0"
        await bot.start("-X", "importtime", "-m", "bot", "serve")
        try:
            said = await bot.expect("Serving the dashboard and API at ")
            found = re.search(r"http://127\.0\.0\.1:\d+", said)
            assert found is not None
            base = found[0]
            async with aiohttp.ClientSession() as http:
                async with http.get(f"{base}/healthz") as r:
                    assert r.status == 200
                # no token yet: the refusal says how to get one without Discord
                async with http.get(f"{base}/api/servers") as r:
                    assert r.status == 401
                    assert "python -m bot token new" in (await r.json())["error"]

                rc, token, err = await _cli(bot, "token", "new", "ci", "--rank", "moderator")
                assert rc == 0, err
                token = token.strip()
                assert token.startswith("doom_") and "shown only now" in err
                auth = {"Authorization": f"Bearer {token}"}
                api = f"{base}/api/servers/main"

                # a game-time task and a wall-clock row: scheduled, listed, cancelled
                # (their sentences plain, the times ISO 8601: JSON is no Discord message)
                body = {"run": "say g", "time": 100000, "unit": "tick", "id": "g1"}
                async with http.post(f"{api}/tasks", json=body, headers=auth) as r:
                    assert r.status == 201, await r.text()
                    assert (await r.json())["outcome"].startswith("Scheduled g1 on main.")
                body = {"run": "say w", "when": "in 2h", "id": "w1"}
                async with http.post(f"{api}/tasks", json=body, headers=auth) as r:
                    assert r.status == 201, await r.text()
                    made = await r.json()
                    planned = made["planned"]
                    assert re.search(r" \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", made["outcome"])
                    assert not [m for m in ("`", "**", "<t:") if m in made["outcome"]], made
                async with http.get(f"{api}/lists/queue", headers=auth) as r:
                    assert [t["id"] for t in (await r.json())["tasks"]] == ["g1"]
                async with http.get(f"{api}/lists/planned", headers=auth) as r:
                    assert [t["id"] for t in (await r.json())["tasks"]] == [planned["id"]]
                async with http.post(f"{api}/tasks/g1/cancel", headers=auth) as r:
                    assert r.status == 200, await r.text()
                async with http.post(f"{api}/planned/{planned['id']}/cancel", headers=auth) as r:
                    assert r.status == 200, await r.text()
                async with http.get(f"{api}/lists/queue", headers=auth) as r:
                    assert (await r.json())["tasks"] == []

                # a moderator's token does not do an admin's work
                async with http.post(f"{api}/setup", headers=auth) as r:
                    assert r.status == 403
                # Discord events: said plainly that there is no Discord here
                event = {"name": "Build night", "start": "in 1h"}
                async with http.post(f"{base}/api/discord-events", json=event, headers=auth) as r:
                    assert r.status == 400
                    assert "Discord is not configured here" in (await r.json())["error"]

                # the audit log says the token did it
                async with http.get(f"{base}/api/audit", headers=auth) as r:
                    entries = (await r.json())["mutations"]
                    assert any(e["user_name"] == "token ci" for e in entries), entries

                # the CLI's refusals change nothing and say why
                rc, _out, err = await _cli(bot, "token", "new", "ci")
                assert rc == 2 and "already a token called ci" in err
                rc, _out, err = await _cli(bot, "token", "new", "no spaces")
                assert rc == 2 and "is not one" in err
                rc, listed, _err = await _cli(bot, "token", "list")
                assert rc == 0 and listed.startswith("ci\tmoderator\t")

                # revoked: the next request is refused
                rc, _out, err = await _cli(bot, "token", "revoke", "ci")
                assert rc == 0, err
                async with http.get(f"{api}/lists/queue", headers=auth) as r:
                    assert r.status == 401
                rc, _out, err = await _cli(bot, "token", "revoke", "ci")
                assert rc == 2 and "There is no token called 'ci'" in err

            # a one-time dashboard link: opening it spends nothing, pressing Log in does, once
            rc, link, err = await _cli(bot, "login", "--name", "Ada", "--rank", "admin")
            assert rc == 0, err
            link = link.strip()
            assert link.startswith(f"{base}/login?c=")
            code = link.split("c=", 1)[1]
            jar = aiohttp.CookieJar(unsafe=True)
            async with aiohttp.ClientSession(cookie_jar=jar) as browser:
                async with browser.get(link) as r:
                    assert r.status == 200 and "This link is for Ada" in await r.text()
                async with browser.post(f"{base}/login", data={"c": code}) as r:
                    assert r.status == 200 and str(r.url).endswith("/servers")
                async with browser.get(f"{base}/api/me") as r:
                    me = await r.json()
                    assert me["name"] == "Ada" and me["rank"] == "admin"
                async with browser.get(f"{base}/extensions") as r:
                    assert r.status == 200  # no cogs to list, and no error
            async with (
                aiohttp.ClientSession() as other,
                other.post(f"{base}/login", data={"c": code}) as r,
            ):
                assert r.status == 403 and "already used" in await r.text()

            rc, took = await bot.stop_with(signal.SIGTERM, 10)
            assert rc == 0 and took < 5, bot.err[-2000:]
            assert _discord_modules(bot.err) == []
            assert "import time:" in bot.err  # the log was read, not absent
        finally:
            await bot.kill()


async def test_serve_without_a_port_says_which_setting_and_starts_nothing(tmp_path: Path) -> None:
    bot = BotProcess(tmp_path, 1)  # refused before any server is reached
    await bot.start("-m", "bot", "serve")
    try:
        assert bot.proc is not None
        rc = await asyncio.wait_for(bot.proc.wait(), WAIT)
        await asyncio.gather(*bot._readers)
        assert rc == 2 and "DOOM_WEB_PORT" in bot.err, bot.err[-2000:]
        assert not (tmp_path / "botdata").exists()
    finally:
        await bot.kill()
