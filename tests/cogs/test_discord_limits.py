"""LocalDiscord refuses what Discord refuses: one row per documented limit, each sent
through discord.py's own HTTP client, accepted at the limit and refused one over with Discord's
status, JSON code and the failing field's path (as discord.py prints it: "In embeds.0.title")."""

from __future__ import annotations

import io
from collections.abc import Awaitable, Callable
from typing import Any

import discord
import pytest
from discord.http import Route, handle_message_parameters

from bot.testkit.harness import Harness
from bot.testkit.localdiscord.emulator import APPLICATION_ID, CHANNEL_ID

Body = dict[str, Any]


def embed(**fields: Any) -> Body:
    return {"type": "rich", **fields}


def button(custom_id: str = "b", label: str = "ok") -> Body:
    return {"type": 2, "style": 1, "custom_id": custom_id, "label": label}


def rows(count: int, per_row: int = 1) -> list[Body]:
    return [
        {"type": 1, "components": [button(f"r{r}b{b}") for b in range(per_row)]}
        for r in range(count)
    ]


# name -> (body at the limit, body one over, Discord's code, the path discord.py prints)
MESSAGES: dict[str, tuple[Body, Body, int, str]] = {
    "content 2000": ({"content": "x" * 2000}, {"content": "x" * 2001}, 50035, "In content"),
    "content counts code points": (
        {"content": "😀" * 2000},
        {"content": "中" * 2001},
        50035,
        "In content",
    ),
    "10 embeds": (
        {"embeds": [embed(title="t")] * 10},
        {"embeds": [embed(title="t")] * 11},
        50035,
        "In embeds: Must be 10 or fewer",
    ),
    "title 256": (
        {"embeds": [embed(title="t" * 256)]},
        {"embeds": [embed(title="t" * 257)]},
        50035,
        "In embeds.0.title",
    ),
    "description 4096": (
        {"embeds": [embed(description="d" * 4096)]},
        {"embeds": [embed(description="d" * 4097)]},
        50035,
        "In embeds.0.description",
    ),
    "25 fields": (
        {"embeds": [embed(fields=[{"name": "n", "value": "v"}] * 25)]},
        {"embeds": [embed(fields=[{"name": "n", "value": "v"}] * 26)]},
        50035,
        "In embeds.0.fields: Must be 25 or fewer",
    ),
    "field name 256": (
        {"embeds": [embed(fields=[{"name": "n" * 256, "value": "v"}])]},
        {"embeds": [embed(fields=[{"name": "n" * 257, "value": "v"}])]},
        50035,
        "In embeds.0.fields.0.name",
    ),
    "field value 1024": (
        {"embeds": [embed(fields=[{"name": "n", "value": "v" * 1024}])]},
        {"embeds": [embed(fields=[{"name": "n", "value": "v" * 1025}])]},
        50035,
        "In embeds.0.fields.0.value",
    ),
    "field value required": (
        {"embeds": [embed(fields=[{"name": "n", "value": "v"}])]},
        {"embeds": [embed(fields=[{"name": "n", "value": "   "}])]},
        50035,
        "In embeds.0.fields.0.value: This field is required",
    ),
    "footer 2048": (
        {"embeds": [embed(footer={"text": "f" * 2048})]},
        {"embeds": [embed(footer={"text": "f" * 2049})]},
        50035,
        "In embeds.0.footer.text",
    ),
    "author 256": (
        {"embeds": [embed(author={"name": "a" * 256})]},
        {"embeds": [embed(author={"name": "a" * 257})]},
        50035,
        "In embeds.0.author.name",
    ),
    "6000 across embeds": (
        {"embeds": [embed(description="d" * 3000), embed(description="e" * 2990, title="t" * 10)]},
        {"embeds": [embed(description="d" * 3000), embed(description="e" * 2990, title="t" * 11)]},
        50035,
        "In embeds: Embed size exceeds maximum size of 6000",
    ),
    "whitespace is trimmed": (
        {"embeds": [embed(title=" " * 10 + "t" * 256 + " " * 10)]},
        {"embeds": [embed(title=" " + "t" * 257)]},
        50035,
        "In embeds.0.title",
    ),
    "5 action rows": (
        {"content": "c", "components": rows(5)},
        {"content": "c", "components": rows(6)},
        50035,
        "In components: Must be 5 or fewer",
    ),
    "5 buttons a row": (
        {"content": "c", "components": rows(1, 5)},
        {"content": "c", "components": rows(1, 6)},
        50035,
        "In components.0.components: Must be 5 or fewer",
    ),
    "custom_id 100": (
        {"content": "c", "components": [{"type": 1, "components": [button("i" * 100)]}]},
        {"content": "c", "components": [{"type": 1, "components": [button("i" * 101)]}]},
        50035,
        "In components.0.components.0.custom_id",
    ),
    "label 80": (
        {"content": "c", "components": [{"type": 1, "components": [button(label="l" * 80)]}]},
        {"content": "c", "components": [{"type": 1, "components": [button(label="l" * 81)]}]},
        50035,
        "In components.0.components.0.label",
    ),
    "custom_id unique": (
        {"content": "c", "components": [{"type": 1, "components": [button("a"), button("b")]}]},
        {"content": "c", "components": [{"type": 1, "components": [button("a"), button("a")]}]},
        50035,
        "In components.0.components.1.custom_id",
    ),
    "not empty": ({"content": "."}, {"content": "   "}, 50006, "Cannot send an empty message"),
}


async def refusal(call: Awaitable[Any]) -> tuple[int, int, str]:
    """(status, Discord code, discord.py's text) of a refused request; (200, 0, "") if accepted."""
    try:
        await call
    except discord.HTTPException as exc:
        return exc.status, exc.code, exc.text
    return 200, 0, ""


def post(h: Harness, body: Body) -> Awaitable[Any]:
    route = Route("POST", "/channels/{channel_id}/messages", channel_id=CHANNEL_ID)
    return h.bot.http.request(route, json=body)


@pytest.mark.parametrize("case", list(MESSAGES))
async def test_channel_message_limits(bare: Harness, case: str) -> None:
    at_limit, over, code, where = MESSAGES[case]
    assert await refusal(post(bare, at_limit)) == (200, 0, "")
    status, got, text = await refusal(post(bare, over))
    assert (status, got) == (400, code)
    assert where in text
    assert len(bare.discord.refused) == 1 and bare.discord.refused[0].code == code
    assert len(bare.posts(CHANNEL_ID)) == 1  # the refused one was not posted
    bare.discord.refused.clear()


def files(count: int, size: int = 1) -> list[discord.File]:
    return [discord.File(io.BytesIO(b"x" * size), filename=f"f{i}.txt") for i in range(count)]


@pytest.mark.parametrize(
    ("count", "size", "expected"),
    [
        (10, 1, (200, 0)),
        (11, 1, (400, 30015)),  # "Maximum number of attachments in a message reached (10)"
        (1, 10 * 1024 * 1024, (200, 0)),
        (1, 10 * 1024 * 1024 + 1, (413, 40005)),  # "Request entity too large"
    ],
)
async def test_attachment_count_and_size(
    bare: Harness, count: int, size: int, expected: tuple[int, int]
) -> None:
    params = handle_message_parameters(content="files", files=files(count, size))
    status, code, _ = await refusal(bare.bot.http.send_message(CHANNEL_ID, params=params))
    assert (status, code) == expected
    if status == 200:
        assert len(bare.posts(CHANNEL_ID)[-1].files) == count
    bare.discord.refused.clear()


# -- interaction responses --------------------------------------------------------------------


def add_command(h: Harness, name: str, respond: Callable[[discord.Interaction[Any]], Any]) -> None:
    @discord.app_commands.command(name=name, description="test")
    async def command(interaction: discord.Interaction[Any], text: str) -> None:
        await respond(interaction)

    @command.autocomplete("text")
    async def complete(interaction: discord.Interaction[Any], current: str) -> list[Any]:
        return [discord.app_commands.Choice(name=n, value=v) for n, v in h.choices]  # type: ignore[attr-defined]

    h.bot.tree.add_command(command)


@pytest.mark.parametrize(
    ("choices", "code", "where"),
    [
        ([("c", "c")] * 25, 0, ""),
        ([("c", "c")] * 26, 50035, "In data.choices: Must be 25 or fewer in length."),
        ([("n" * 100, "v" * 100)], 0, ""),
        ([("n" * 101, "v")], 50035, "In data.choices.0.name: Must be between 1 and 100"),
        ([("", "v")], 50035, "In data.choices.0.name: Must be between 1 and 100"),
        ([("n", "v" * 101)], 50035, "In data.choices.0.value: Must be 100 or fewer"),
        ([("任务" * 50, "任务" * 50)], 0, ""),
    ],
)
async def test_autocomplete_limits(
    bare: Harness, choices: list[tuple[str, str]], code: int, where: str
) -> None:
    bare.choices = choices  # type: ignore[attr-defined]
    add_command(bare, "probe", lambda i: i.response.send_message("x"))
    offered = await bare.autocomplete("probe", "text", text="")
    exchange = list(bare.discord.exchanges.values())[-1]
    if code == 0:
        assert len(offered) == len(choices) and exchange.failure is None
        return
    assert offered == []
    assert exchange.failure == "Loading options failed"  # what the user sees
    assert exchange.refused[0].code == code and exchange.refused[0].status == 400
    errors = discord.HTTPException(_Status(400), exchange.refused[0].error)  # type: ignore[arg-type]
    assert where in errors.text
    bare.discord.refused.clear()


class _Status:
    def __init__(self, status: int) -> None:
        self.status, self.reason = status, "Bad Request"


@pytest.mark.parametrize(("length", "refused"), [(2000, False), (2001, True)])
async def test_interaction_reply_content(bare: Harness, length: int, refused: bool) -> None:
    add_command(bare, "probe", lambda i: i.response.send_message("r" * length))
    reply = await bare.run("probe", text="x")
    if not refused:
        assert reply.text == "r" * length and reply.failure is None
        return
    assert reply.refused[0].code == 50035
    assert "data" in reply.refused[0].error["errors"]  # callbacks nest the message under data
    assert "content" in reply.refused[0].error["errors"]["data"]
    # the bot's error hook answered within the 3 seconds instead (the refusal did not ack)
    assert reply.failure is None
    bare.discord.refused.clear()


# -- the command tree at sync -----------------------------------------------------------------


def command(name: str = "cmd", description: str = "d", **extra: Any) -> Body:
    return {"type": 1, "name": name, "description": description, **extra}


def option(name: str = "o", description: str = "d", **extra: Any) -> Body:
    return {"type": 3, "name": name, "description": description, **extra}


def sized(total: int) -> Body:
    """A command of exactly `total` (7,803 to 8,003) counted characters: 3 + 100 for the
    command, 25 options of 32 + 100, 22 choices of 100 + 100 and one of 100 + the rest."""
    choices = [{"name": f"{i:03d}" + "n" * 97, "value": f"{i:03d}" + "v" * 97} for i in range(22)]
    last = total - (3 + 100 + 25 * 132 + 22 * 200 + 100)
    choices.append({"name": "x" * 100, "value": "y" * last})
    options = [option(f"{i:02d}" + "o" * 30, "d" * 100) for i in range(25)]
    options[0]["choices"] = choices
    return command("big", "d" * 100, options=options)


TREES: dict[str, tuple[list[Body], list[Body], int, str]] = {
    "name 32": ([command("n" * 32)], [command("n" * 33)], 50035, "In 0.name"),
    "name lowercase": (
        [command("日程-ok_'")],
        [command("Hello")],
        50035,
        "In 0.name: Command name is invalid",
    ),
    "name characters": ([command("तारीख")], [command("two words")], 50035, "In 0.name"),
    "description 100": (
        [command(description="d" * 100)],
        [command(description="d" * 101)],
        50035,
        "In 0.description",
    ),
    "description required": (
        [command(description="d")],
        [command(description="")],
        50035,
        "In 0.description",
    ),
    "25 options": (
        [command(options=[option(f"o{i}") for i in range(25)])],
        [command(options=[option(f"o{i}") for i in range(26)])],
        50035,
        "In 0.options: Must be 25 or fewer",
    ),
    "option name": (
        [command(options=[option("o" * 32)])],
        [command(options=[option("O")])],
        50035,
        "In 0.options.0.name",
    ),
    "option description": (
        [command(options=[option(description="d" * 100)])],
        [command(options=[option(description="d" * 101)])],
        50035,
        "In 0.options.0.description",
    ),
    "25 choices": (
        [command(options=[option(choices=[{"name": f"{i}", "value": f"{i}"} for i in range(25)])])],
        [command(options=[option(choices=[{"name": f"{i}", "value": f"{i}"} for i in range(26)])])],
        50035,
        "In 0.options.0.choices: Must be 25 or fewer",
    ),
    "choice name 100": (
        [command(options=[option(choices=[{"name": "c" * 100, "value": "v"}])])],
        [command(options=[option(choices=[{"name": "c" * 101, "value": "v"}])])],
        50035,
        "In 0.options.0.choices.0.name",
    ),
    "required first": (
        [command(options=[option("a", required=True), option("b")])],
        [command(options=[option("a"), option("b", required=True)])],
        50035,
        "In 0.options.1.required",
    ),
    "locale keys": (
        [command(name_localizations={"zh-CN": "日程"})],
        [command(name_localizations={"zh": "日程"})],
        50035,
        "In 0.name_localizations.zh",
    ),
    "localized description": (
        [command(description_localizations={"de": "d" * 100})],
        [command(description_localizations={"de": "d" * 101})],
        50035,
        "In 0.description_localizations.de",
    ),
    "localized name rules": (
        [command(name_localizations={"fr": "planifier"})],
        [command(name_localizations={"fr": "Planifier"})],
        50035,
        "In 0.name_localizations.fr",
    ),
    "8000 a command": (
        [sized(8000)],
        [sized(8001)],
        50035,
        "In 0: Command exceeds maximum size (8000)",
    ),
    "longest localization counts": (
        [sized(7999)],
        [{**sized(7999), "name_localizations": {"de": "bigxy"}}],
        50035,
        "In 0: Command exceeds maximum size (8000)",
    ),
    "100 commands": (
        [command(f"c{i}") for i in range(100)],
        [command(f"c{i}") for i in range(101)],
        30032,
        "Maximum number of application commands reached (100)",
    ),
    "unique names": (
        [command("a"), command("b")],
        [command("a"), command("a")],
        50035,
        "In 1.name",
    ),
}


@pytest.mark.parametrize("case", list(TREES))
async def test_command_tree_limits(bare: Harness, case: str) -> None:
    at_limit, over, code, where = TREES[case]
    http = bare.bot.http
    assert await refusal(http.bulk_upsert_global_commands(APPLICATION_ID, at_limit)) == (
        200,
        0,
        "",
    )
    assert [c["name"] for c in bare.discord.synced[None]] == [c["name"] for c in at_limit]
    status, got, text = await refusal(http.bulk_upsert_global_commands(APPLICATION_ID, over))
    assert (status, got) == (400, code)
    assert where in text, text
    bare.discord.refused.clear()


async def test_the_bot_tree_is_synced_and_checked_at_start(bare: Harness) -> None:
    synced = bare.discord.synced[None]
    assert {c["name"] for c in synced} == {c.name for c in bare.bot.tree.get_commands()}
    # a command that breaks a rule fails the sync with discord.py's CommandSyncFailure
    bare.bot.tree.add_command(
        discord.app_commands.Command(name="bad", description="d" * 100, callback=_noop)
    )
    bare.bot.tree.get_command("bad").description = "d" * 101  # type: ignore[union-attr]
    with pytest.raises(discord.app_commands.CommandSyncFailure) as failure:
        await bare.bot.tree.sync()
    assert failure.value.code == 50035 and "Must be between 1 and 100" in failure.value.text
    bare.discord.refused.clear()


async def _noop(interaction: discord.Interaction[Any]) -> None:
    return None
