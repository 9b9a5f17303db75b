# ruff: noqa: RUF001  (Chinese text uses full-width punctuation on purpose)
"""Languages end to end: a zh-CN moderator's /schedule on a real mcsim over RCON is answered in
Chinese (the caret message, the refusal, the reply and its embed, the buttons); the same
commands from en-US are answered in English."""

from __future__ import annotations

from bot.testkit.harness import ADMIN, MOD, Harness
from mcsim.server import Server

ZH = "zh-CN"


async def test_the_caret_message_in_chinese_and_in_english(live: Harness) -> None:
    zh = await live.run_in(ZH, "schedule", MOD, run="sya hello", time=5, unit="tick", id="typo")
    assert zh.ephemeral
    lines = zh.text.splitlines()
    assert lines[0].startswith("该命令无法解析："), zh.text
    assert lines[lines.index("sya hello") + 1] == "^"
    en = await live.run_in(
        "en-US", "schedule", MOD, run="sya hello", time=5, unit="tick", id="typo"
    )
    assert en.text.splitlines()[0].startswith("That command does not parse: ")
    assert "sya hello\n^" in en.text


async def test_a_refusal_in_chinese(live: Harness) -> None:
    reply = await live.run_in(
        ZH, "schedule", MOD, run="execute as @a run op @s", time=5, unit="tick", id="sneaky"
    )
    assert (
        reply.text == "已拒绝：`op` 在此服务器的禁用列表中（位于 `execute as @a run op @s` 中）。"
        " 管理员可将其从 DOOM_DENY_COMMANDS 中去掉来允许它，或用某台服务器自己的 ALLOW_COMMANDS"
        " 只对该服务器允许（例如 DOOM_SERVERS__0__ALLOW_COMMANDS=op）。"
    )


async def test_the_reply_and_its_embed_in_chinese(live: Harness, mc: Server) -> None:
    reply = await live.run_in(
        ZH, "schedule", MOD, run="say hi", time=2, unit="minute", id="greet", retry=2
    )
    # nobody is online and the server pauses when empty: the note about it is Chinese too
    first, note = reply.messages[-1].data["content"].split("\n")
    assert first == "已在 main 上计划 `greet`。"
    assert note.startswith("注意：main 上没有人在线") and "`when`" in note, note
    [embed] = reply.embeds
    assert embed["title"] == "已计划"
    fields = {f["name"]: f["value"] for f in embed["fields"]}
    assert fields["编号"] == "`greet`" and fields["服务器"] == "main"
    assert fields["列表"] == "队列" and fields["重试"] == "2 次（每 1 刻）"
    assert fields["到期"].startswith(f"第 {mc.game_time + 2400} 刻（<t:")
    shown = await live.run_in(ZH, "show", MOD, id="greet")
    [task] = shown.embeds
    assert task["title"] == "任务 `greet`" and task["description"].endswith(
        f"到期于第 {mc.game_time + 2400} 刻"
    )
    english = await live.run_in("en-US", "show", MOD, id="greet")
    assert english.embeds[0]["title"] == "Task `greet`"


async def test_buttons_and_their_outcome_in_chinese(live: Harness) -> None:
    await live.run("schedule", MOD, run="say a", time=900, unit="tick", id="a")
    prompt = await live.run_in(ZH, "clear", ADMIN)
    assert "要移除 main 上的所有定时任务吗？此操作无法撤销。" in prompt.text
    message_id = prompt.messages[-1].message_id
    assert message_id is not None
    assert [b["label"] for b in live.buttons(message_id)] == ["确认", "取消"]
    pressed = await live.press_in(ZH, message_id, "确认", ADMIN)
    await live.discord.wait_for(lambda: "已从 main 移除 1 个任务。" in pressed.text)


async def test_a_timed_out_prompt_says_so_in_the_invokers_language(live: Harness) -> None:
    """The timeout runs later, in no interaction: it keeps the language of the one that asked."""
    prompt = await live.run_in(ZH, "clear", ADMIN)
    message_id = prompt.messages[-1].message_id
    assert message_id is not None
    await live.discord.wait_for(
        lambda: live.message(message_id)["content"] == "未及时回应；未做任何更改。"
    )
    assert all(b.get("disabled") for b in live.buttons(message_id))


async def test_the_role_boundary_refusals_in_chinese(live: Harness, mc: Server) -> None:
    reply = await live.run_in(
        ZH,
        "schedule",
        MOD,
        run="execute as @a run data remove storage doom.schedule:data queue",
        time=5,
        unit="tick",
        id="wipe",
    )
    assert reply.text == (
        "已拒绝：此命令涉及数据包自己的存储 doom.schedule:data：只有机器人自己的命令可以修改它。"
    )
    reply = await live.run_in(
        ZH,
        "schedule",
        MOD,
        run='summon command_block_minecart ~ ~ ~ {Command:"op @p"}',
        time=5,
        unit="tick",
    )
    assert reply.text == (
        "已拒绝：此命令会生成 minecraft:command_block_minecart，它之后会绕过此检查运行命令："
        "定时任务不能生成命令方块。"
    )
    mc.run("scoreboard objectives remove doom.schedule")
    status = await live.run_in(ZH, "status", ADMIN)
    fields = {f["name"]: f["value"] for f in status.embeds[0]["fields"]}
    assert fields["数据包状态"] == (
        "已损坏：记分项 doom.schedule 缺失。请运行 /setup（或 `python -m bot install-datapack`）："
        "数据包的 #load 会重新创建缺失的部分。"
    )
