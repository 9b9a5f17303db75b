"""Confirm and pager buttons: pressed through component interactions, as Discord sends them."""

from __future__ import annotations

import discord
from discord import app_commands

from bot.testkit.harness import MOD, NOBODY, Harness
from cogs.reads import PageView
from cogs.schedule import ConfirmView


def add_confirm_command(harness: Harness, done: list[int], timeout: float) -> None:
    """A command of the test's own that asks before acting, like /clear does."""

    @app_commands.command(description="Asks, then counts.")
    async def danger(interaction: discord.Interaction) -> None:
        await interaction.response.defer(thinking=True)

        async def action(pressed: discord.Interaction) -> str:
            done.append(pressed.user.id)
            return f"Done {len(done)}."

        view = ConfirmView(interaction.user.id, action, timeout=timeout)
        view.message = await interaction.followup.send("Really?", view=view, wait=True)

    harness.bot.tree.add_command(danger)


async def test_only_the_invoker_can_confirm(bare: Harness) -> None:
    done: list[int] = []
    add_confirm_command(bare, done, timeout=30)
    prompt = await bare.run("danger", MOD)
    assert not prompt.ephemeral  # the question is public: others see it, only MOD may answer
    message_id = prompt.messages[-1].message_id
    assert message_id is not None
    assert prompt.messages[-1].message_id == prompt.sent[0].message_id  # filled the deferral

    wrong = await bare.press(message_id, "Confirm", NOBODY)
    assert wrong.ephemeral and "Only the person who ran the command" in wrong.text
    assert done == []
    assert not any(b.get("disabled") for b in bare.buttons(message_id))

    right = await bare.press(message_id, "Confirm", MOD)
    assert done == [MOD.id]
    assert "Done 1." in right.text
    assert bare.message(message_id)["content"] == "Done 1."
    assert all(b.get("disabled") for b in bare.buttons(message_id))

    again = await bare.press(message_id, "Confirm", MOD)  # a stopped view ignores late clicks
    assert again.sent == [] and done == [MOD.id]


async def test_cancel_changes_nothing(bare: Harness) -> None:
    done: list[int] = []
    add_confirm_command(bare, done, timeout=30)
    prompt = await bare.run("danger", MOD)
    message_id = prompt.messages[-1].message_id
    assert message_id is not None
    await bare.press(message_id, "Cancel", MOD)
    assert done == []
    assert bare.message(message_id)["content"] == "Cancelled; nothing was changed."
    assert all(b.get("disabled") for b in bare.buttons(message_id))


async def test_timeout_disables_the_buttons(bare: Harness) -> None:
    done: list[int] = []
    add_confirm_command(bare, done, timeout=0.2)
    prompt = await bare.run("danger", MOD)
    message_id = prompt.messages[-1].message_id
    assert message_id is not None
    await bare.discord.wait_for(lambda: all(b.get("disabled") for b in bare.buttons(message_id)))
    assert bare.message(message_id)["content"] == "No answer in time; nothing was changed."
    assert done == []


async def test_pager_turns_pages_for_the_invoker_only(bare: Harness) -> None:
    @app_commands.command(description="Pages.")
    async def pages(interaction: discord.Interaction) -> None:
        async def fetch(page: int) -> discord.Embed:
            return discord.Embed(title=f"page {page + 1}")

        view = PageView(interaction.user.id, fetch, 3)
        await interaction.response.send_message(embed=await fetch(0), view=view)

    bare.bot.tree.add_command(pages)
    first = await bare.run("pages", MOD)
    message_id = first.messages[-1].message_id
    assert message_id is not None
    labels = {b["label"]: b.get("disabled", False) for b in bare.buttons(message_id)}
    assert labels == {"Previous": True, "Next": False}
    await bare.press(message_id, "Next", MOD)
    await bare.press(message_id, "Next", MOD)
    assert bare.message(message_id)["embeds"][0]["title"] == "page 3"
    labels = {b["label"]: b.get("disabled", False) for b in bare.buttons(message_id)}
    assert labels == {"Previous": False, "Next": True}
    refused = await bare.press(message_id, "Previous", NOBODY)
    assert refused.ephemeral
    assert bare.message(message_id)["embeds"][0]["title"] == "page 3"
