"""A slow server must not cost a user their interaction: with every RCON reply taking
5 (virtual) seconds, every command and button still answers within Discord's 3 seconds, because
each defers before it waits on the server; autocomplete, which cannot defer, answers within its
budget from the ids the server gave last time."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import discord
import pytest

from bot.config import ServerConfig
from bot.services import build_services
from bot.testkit.harness import ADMIN, MOD, Harness, make_settings
from bot.testkit.localdiscord.emulator import Exchange, VirtualClock
from mcsim.server import Server
from tests.e2e.slow_rcon import SlowRcon

PASSWORD = "e2e-rcon-password"  # the mc fixture's (tests/e2e/conftest.py)


@pytest.fixture
async def slow(mc: Server, tmp_path: Path) -> AsyncIterator[tuple[Harness, SlowRcon]]:
    assert mc.rcon_port is not None
    clock = VirtualClock()
    proxy = await SlowRcon(mc.rcon_port, clock).start()
    config = ServerConfig(
        name="main",
        rcon_port=proxy.port,
        rcon_password=PASSWORD,  # type: ignore[arg-type]
        world_dir=mc.world,
        log_path=mc.log_path,
        event_source="log",  # no RCON polling in the background: only commands move the clock
    )
    settings = make_settings(tmp_path, [config], log_poll_interval=0.02, rcon_timeout=30)
    services = await build_services(settings)
    harness = Harness(settings, services)
    harness.discord.clock = clock
    await harness.start()
    schedule = harness.bot.get_cog("Schedule")
    schedule.confirm_timeout = 30  # type: ignore[union-attr]
    try:
        yield harness, proxy
    finally:
        await harness.close()
        await proxy.close()


def answered(exchange: Exchange) -> Exchange:
    assert exchange.failure is None, (exchange.failure, exchange.refused)
    assert not exchange.refused
    return exchange


@pytest.mark.slow
async def test_every_command_defers_before_it_waits_on_rcon(slow: tuple[Harness, SlowRcon]) -> None:
    h, proxy = slow
    for i in range(12):  # more than a page of /list
        reply = answered(
            await h.run("schedule", MOD, run=f"say {i}", time=1000, unit="tick", id=f"job{i}")
        )
        assert f"Scheduled `job{i}`" in reply.text
    assert proxy.replies >= 12  # the server really answered slowly
    answered(await h.run("schedule_dynamic", MOD, run="say d", time=100, unit="tick"))
    assert "job3" in answered(await h.run("show", MOD, id="job3")).text
    assert "Paused" in answered(await h.run("pause", MOD, id="job3")).text
    assert "Resumed" in answered(await h.run("resume", MOD, id="job3")).text
    assert "Cancelled `job3`" in answered(await h.run("cancel", MOD, id="job3")).text
    answered(await h.run("time", MOD))
    answered(await h.run("status", ADMIN))
    answered(await h.run("help", MOD))

    listing = answered(await h.run("list", MOD))
    message_id = listing.messages[-1].message_id
    assert message_id is not None
    turned = answered(await h.press(message_id, "Next", MOD))  # a page is a round trip too
    assert "page 2 of 2" in h.message(message_id)["embeds"][0]["footer"]["text"]
    assert turned.messages

    prompt = answered(await h.run("cancel_all", MOD, id="job1"))
    prompt_id = prompt.messages[-1].message_id
    assert prompt_id is not None
    done = answered(await h.press(prompt_id, "Confirm", MOD))
    assert "Cancelled 1 task(s) `job1`" in done.text

    prompt = answered(await h.run("clear", ADMIN))
    prompt_id = prompt.messages[-1].message_id
    assert prompt_id is not None
    assert "Removed" in answered(await h.press(prompt_id, "Confirm", ADMIN)).text
    # the install's outcome in time; its selftest, at 5 s a command, ends after Discord's
    # 15 minutes for a follow-up: its report goes to the channel instead of being lost
    setup = await h.run("setup", ADMIN)
    assert setup.failure is None
    assert "installed" in setup.text.lower()
    assert [r.error["code"] for r in setup.refused] == [50027]
    late = h.posts(h.discord.channel_id)[-1].payload["content"]
    assert "came after Discord's 15 minutes" in late and "PASS" in late
    h.discord.refused.clear()  # the one refusal this test expects, checked above


async def test_a_command_that_waits_first_loses_the_interaction(
    slow: tuple[Harness, SlowRcon],
) -> None:
    """The fixture bites: answering after one slow round trip is past the deadline."""
    h, _ = slow

    @discord.app_commands.command(name="probe", description="waits on RCON, then answers")
    async def probe(interaction: discord.Interaction[Any]) -> None:
        ticks = await h.bot.server(None).pack.get_time()
        await interaction.response.send_message(f"{ticks}")

    h.bot.tree.add_command(probe)
    reply = await h.run("probe", MOD)
    assert reply.failure == "The application did not respond"
    assert {r.code for r in reply.refused} == {10062}
    h.discord.refused.clear()


@pytest.mark.slow
async def test_autocomplete_answers_in_time_from_the_last_ids(
    slow: tuple[Harness, SlowRcon], monkeypatch: pytest.MonkeyPatch
) -> None:
    h, proxy = slow
    for i in range(3):
        answered(await h.run("schedule", MOD, run="say a", time=1000, unit="tick", id=f"auto{i}"))
    # the budget is real time, so here Discord's clock runs 5 times faster than the real one:
    # its 3 s are 0.6 s, a reply takes 1 s (5 s), the bot's budget is 0.2 s (1 s)
    h.discord.clock = lambda: time.monotonic() * 5
    proxy.delay, proxy.real_delay = 0.0, 1.0
    monkeypatch.setattr(h.bot.ops.suggest, "budget", 0.2)
    first = await h.autocomplete("cancel", "id", MOD, id="auto")
    assert first == []  # nothing known yet, but an answer in time rather than a failure
    exchange = list(h.discord.exchanges.values())[-1]
    assert exchange.failure is None and not exchange.refused
    # the slow answer arrives later and refreshes the ids the next keystroke is offered
    async with asyncio.timeout(30):
        while not (offered := await h.autocomplete("cancel", "id", MOD, id="auto")):
            assert list(h.discord.exchanges.values())[-1].failure is None
            await asyncio.sleep(0.2)
    assert {c["value"] for c in offered} == {"auto0", "auto1", "auto2"}
    assert list(h.discord.exchanges.values())[-1].failure is None
