"""Interaction timing as Discord keeps it, on LocalDiscord's injected clock: the first
response within 3 seconds (else 10062 and the user sees the failure), one initial response only
(40060), follow-ups and edits for 15 minutes (then 401, 50027). No test waits for real."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import discord
import pytest
from discord.http import handle_message_parameters
from discord.webhook.async_ import async_context

from bot.testkit.harness import Harness
from bot.testkit.localdiscord.emulator import VirtualClock

Callback = Callable[[discord.Interaction[Any]], Awaitable[None]]


def add(h: Harness, callback: Callback) -> VirtualClock:
    """A /probe command running `callback`, and a virtual clock for the local Discord."""

    @discord.app_commands.command(name="probe", description="test")
    async def probe(interaction: discord.Interaction[Any]) -> None:
        await callback(interaction)

    h.bot.tree.add_command(probe)
    clock = VirtualClock(1000.0)
    h.discord.clock = clock
    return clock


@pytest.mark.parametrize(("delay", "answered"), [(3.0, True), (3.001, False)])
async def test_first_response_within_3_seconds(bare: Harness, delay: float, answered: bool) -> None:
    async def slow(interaction: discord.Interaction[Any]) -> None:
        clock.advance(delay)  # the command worked this long before answering
        await interaction.response.send_message("done")

    clock = add(bare, slow)
    reply = await bare.run("probe")
    if answered:
        assert reply.text == "done" and reply.failure is None
        return
    assert reply.failure == "The application did not respond"  # what the user sees
    assert reply.text == ""
    # the late response and the error hook's attempt after it: both 404 Unknown interaction
    assert {(r.status, r.code) for r in reply.refused} == {(404, 10062)}
    bare.discord.refused.clear()


async def test_a_deferral_in_time_keeps_the_interaction(bare: Harness) -> None:
    async def deferring(interaction: discord.Interaction[Any]) -> None:
        await interaction.response.defer(ephemeral=True, thinking=True)
        clock.advance(600)  # ten minutes of work
        await interaction.followup.send("after ten minutes", ephemeral=True)

    clock = add(bare, deferring)
    reply = await bare.run("probe")
    assert reply.failure is None and reply.text == "after ten minutes" and reply.ephemeral


@pytest.mark.parametrize(("after", "expected"), [(900.0, None), (900.01, (401, 50027))])
async def test_follow_ups_for_15_minutes(
    bare: Harness, after: float, expected: tuple[int, int] | None
) -> None:
    async def late_follow_up(interaction: discord.Interaction[Any]) -> None:
        await interaction.response.defer(thinking=True)
        clock.advance(after)
        try:
            await interaction.followup.send("late")
        except discord.HTTPException as exc:
            outcome.append((exc.status, exc.code))

    outcome: list[tuple[int, int]] = []
    clock = add(bare, late_follow_up)
    reply = await bare.run("probe")
    if expected is None:
        assert reply.text == "late" and not outcome
    else:
        assert outcome == [expected]  # "Invalid Webhook Token"
        bare.discord.refused.clear()


async def test_one_initial_response_only(bare: Harness) -> None:
    codes: list[tuple[int, int]] = []

    async def twice(interaction: discord.Interaction[Any]) -> None:
        await interaction.response.send_message("first")
        # discord.py refuses a second response itself; sent anyway, Discord answers 40060
        message = handle_message_parameters(content="second")
        params = message._replace(payload={"type": 4, "data": message.payload})
        try:
            await async_context.get().create_interaction_response(
                interaction.id, interaction.token, session=interaction._session, params=params
            )
        except discord.HTTPException as exc:
            codes.append((exc.status, exc.code))

    add(bare, twice)
    reply = await bare.run("probe")
    assert codes == [(400, 40060)]  # "Interaction has already been acknowledged."
    assert reply.text == "first"
    bare.discord.refused.clear()


async def test_no_follow_up_before_the_first_response(bare: Harness) -> None:
    codes: list[int] = []

    async def early(interaction: discord.Interaction[Any]) -> None:
        try:
            await interaction.followup.send("too early")
        except discord.HTTPException as exc:
            codes.append(exc.code)
        await interaction.response.send_message("then the response")

    add(bare, early)
    reply = await bare.run("probe")
    assert codes == [10015]  # "Unknown Webhook": the token has no webhook before a response
    assert reply.text == "then the response"
    bare.discord.refused.clear()


async def test_the_local_discord_says_what_discord_would_refuse_or_miss(bare: Harness) -> None:
    """What the console showed when it ran on the local Discord, the harness says to a test:
    the refusal with Discord's code, and the user's "did not respond"."""
    said: list[str] = []

    async def bad(interaction: discord.Interaction[Any]) -> None:
        clock.advance(5)  # too slow, and too long: the user sees both
        await interaction.response.send_message("x" * 2001)

    clock = add(bare, bad)
    bare.discord.listeners.append(lambda sent: said.append(str(sent.data.get("content", ""))))
    reply = await bare.run("probe")
    text = "\n".join(said)
    assert "(Discord would refuse this: 404" in text and "10062" in text
    assert reply.failure is not None and "The application did not respond" in reply.failure
    bare.discord.refused.clear()
