"""Server groups: `/schedule server:<group>` (and `all`) makes the task on each server of the
group through the one-server operation, says each server's outcome, and a server that is down
stops none of the others; the same from the API. Three mcsims over TCP RCON."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable
from pathlib import Path

import pydantic
import pytest

from bot.config import Settings
from bot.services import build_services
from mcsim.server import Server
from tests.cogs.harness import MOD, NOBODY, Harness, make_settings
from tests.fixtures import server_config

PASSWORD = "groups-Pw"
NAMES = ("main", "creative", "lobby")


def _queue(server: Server) -> list[str]:
    data = server.storage("doom.schedule:data")
    return [str(t["id"]) for t in data.get("queue", [])]  # type: ignore[union-attr]


@pytest.fixture
async def grouped(
    mcsim: Callable[..., Server], tmp_path: Path
) -> AsyncIterator[tuple[Harness, dict[str, Server]]]:
    sims = {n: mcsim(password=PASSWORD, name=n) for n in NAMES}
    configs = [server_config(s, PASSWORD, name=n) for n, s in sims.items()]
    settings = make_settings(tmp_path, configs, server_groups={"build": ["main", "creative"]},
                             rcon_timeout=2.0)  # fmt: skip
    harness = await Harness(settings, await build_services(settings)).start()
    try:
        yield harness, sims
    finally:
        await harness.close()


async def test_a_group_gets_one_task_per_server_and_a_line_each(
    grouped: tuple[Harness, dict[str, Server]],
) -> None:
    harness, sims = grouped
    reply = await harness.run("schedule", MOD, run="say build", time=900, id="b1", server="build")
    assert reply.ephemeral
    assert "build: done on 2 of 2 servers." in reply.text, reply.text
    assert "**main**: Scheduled `b1` on main." in reply.text, reply.text
    assert "**creative**: Scheduled `b1` on creative." in reply.text, reply.text
    assert (_queue(sims["main"]), _queue(sims["creative"]), _queue(sims["lobby"])) == (
        ["b1"], ["b1"], [])  # fmt: skip
    every = await harness.run("schedule", MOD, run="say all", time=900, id="a1", server="all")
    assert "all: done on 3 of 3 servers." in every.text, every.text
    assert all("a1" in _queue(s) for s in sims.values())
    refused = await harness.run("schedule", MOD, run="stop", time=5, id="x", server="all")
    assert "done on 0 of 3 servers" in refused.text and "deny-list" in refused.text, refused.text
    nobody = await harness.run("schedule", NOBODY, run="say no", time=5, id="n", server="all")
    assert "moderator" in nobody.text and all("n" not in _queue(s) for s in sims.values())
    names = {c["value"] for c in await harness.autocomplete("schedule", "server", MOD,
                                                            run="say x", server="")}  # fmt: skip
    assert {"main", "creative", "lobby", "build", "all"} <= names, names


@pytest.mark.slow
async def test_a_server_that_is_down_stops_none_of_the_others(
    grouped: tuple[Harness, dict[str, Server]],
) -> None:
    harness, sims = grouped
    sims["creative"].stop()
    reply = await harness.run("schedule", MOD, run="say up", time=900, id="u1", server="all")
    assert "all: done on 2 of 3 servers." in reply.text, reply.text
    assert "**creative**: not done:" in reply.text, reply.text
    assert _queue(sims["main"]) == ["u1"] and _queue(sims["lobby"]) == ["u1"]
    planned = await harness.run("schedule", MOD, run="say later", id="p1", server="build",
                                when="in 2h")  # fmt: skip
    # a planned row waits in the bot's database: a server that is down gets it too
    assert "build: done on 2 of 2 servers." in planned.text, planned.text


def test_a_group_names_configured_servers_only(tmp_path: Path) -> None:
    configs = [{"name": "main", "rcon_password": "x", "world_dir": str(tmp_path)}]
    for groups, said in (({"build": ["main", "nope"]}, "unknown: nope"),
                         ({"all": ["main"]}, "name is taken"),
                         ({"main": ["main"]}, "name is taken"),
                         ({"empty": []}, "it is empty")):  # fmt: skip
        with pytest.raises(pydantic.ValidationError, match=said):
            Settings(_env_file=None, servers=configs, server_groups=groups)  # type: ignore[call-arg]
    ok = Settings(_env_file=None, servers=configs, server_groups={"b": ["main"]})  # type: ignore[call-arg]
    assert ok.server_groups == {"b": ["main"]}
    assert json.loads(json.dumps(ok.server_groups)) == {"b": ["main"]}
