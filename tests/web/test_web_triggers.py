"""The triggers pages of the dashboard (web/triggers.py) over real HTTP to the dashboard, on the
bot's services with mcsim over TCP RCON: the list of what the operations hold, the add form for
each kind (a mistake refused naming its field, the form kept as typed), the log kind for admins
only (a moderator's forged one refused, nothing made), pause, resume and remove (after its
question), and the test form's outcome from the operation's facts. One test adds a trigger in
Debian's chromium, where the form shows only the chosen kind's fields."""

from __future__ import annotations

import html
import re
from pathlib import Path
from typing import Any

import pytest

from bot.testkit.harness import MOD
from tests.web.webclient import Client, api
from tests.web.webdash import Dash

TIMEOUT = 20_000  # ms, a browser's wait: the machine is shared
WELCOME = "- run: say welcome\n  at: 0\n- run: give @s minecraft:bread 1\n  at: +1m\n"
# what the form sends when only its first fields are filled: the selects send their blank choice
BLANKS = {"direction": "", "if_not": "", "server": "main"}


async def listed(client: Client) -> dict[str, dict[str, Any]]:
    found = await api(client, "trigger/list", {})
    return {t["name"]: t for t in found["triggers"]}


def said(page: str) -> str:
    """The page's text without its tags, spaces run together."""
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", page)).split())


def row(page: str, name: str) -> list[str]:
    """The cells of the list's row of trigger `name`, as text."""
    found = re.search(
        rf'<tr class="trigger-\w+" id="trigger-{re.escape(name)}">(.*?)</tr>', page, re.S
    )
    assert found is not None, page
    return [said(cell) for cell in re.findall(r"<td[^>]*>(.*?)</td>", found.group(1), re.S)]


def value(page: str, field: str) -> str | None:
    """The value the add form's text field `field` is filled with."""
    found = re.search(rf'<input name="{field}"[^>]*?value="([^"]*)"', page)
    return None if found is None else html.unescape(found.group(1))


def refused(page: str) -> tuple[str, str]:
    """The refusal's field (as the form names it) and sentence."""
    found = re.search(r'<div class="error" role="alert" id="[a-z-]+">\s*<p>(.*?)</p>', page, re.S)
    assert found is not None, page
    field = re.search(r"<code>([a-z_]+)</code>:", found.group(1))
    return (field.group(1) if field else ""), said(found.group(1))


async def test_the_list_shows_a_trigger_added_through_the_operation(mod: Client) -> None:
    await api(mod, "program/save", {"name": "welcome", "steps": WELCOME})
    await api(
        mod,
        "trigger/add",
        {"name": "crowd", "kind": "players", "program": "welcome", "players": 3, "direction": "up"},
    )
    status, page = await mod.get("/triggers")
    assert status == 200, page
    assert '<a href="/triggers">Triggers</a>' in page  # in the navigation
    assert row(page, "crowd")[:8] == [
        "crowd",
        "Players online",
        "when the players online rises to 3",
        "welcome",
        "main",
        "on",
        "never",
        "0 of 24",
    ]
    assert "Pause crowd" in page and "Resume crowd" not in page
    status, page = await mod.get("/triggers/crowd")
    assert status == 200 and "when the players online rises to 3" in said(page), page
    status, page = await mod.get("/triggers/nothing")
    assert status == 404 and "There is no trigger" in page, page


async def test_each_kind_is_added_through_the_form(dash: Dash, admin: Client) -> None:
    await api(admin, "program/save", {"name": "welcome", "steps": WELCOME})
    reply = await dash.harness.run("event create", MOD, name="Build Battle", start="in 3h")
    assert "made" in reply.text, reply.text
    csrf = await admin.csrf()
    forms = {
        "boot": {"kind": "started"},
        "crowd": {"kind": "players", "players": "2", "direction": "down", "per_day": "5"},
        "hello": {"kind": "join", "player": "Steve", "cooldown": "30s"},
        "boss": {"kind": "log", "pattern": "The dragon was slain by {player}*"},
        "signups": {
            "kind": "interest",
            "event": "1",
            "interested": "3",
            "deadline": "2h",
            "if_not": "postpone",
            "postpone": "1d",
        },
    }
    for name, fields in forms.items():
        form = {"csrf_token": csrf, **BLANKS, "name": name, "program": "welcome", **fields}
        status, page = await admin.post("/triggers", data=form)
        assert status == 303, (name, said(page))
    found = await listed(admin)
    assert set(found) == set(forms)
    assert (found["crowd"]["players"], found["crowd"]["direction"]) == (2, "down")
    assert found["crowd"]["per_day"] == 5
    assert (found["hello"]["player"], found["hello"]["cooldown_seconds"]) == ("Steve", 30)
    assert found["boss"]["pattern"] == "The dragon was slain by {player}*"
    assert found["signups"]["kind"] == "interest" and found["boot"]["kind"] == "started"
    status, page = await admin.get("/triggers")
    assert row(page, "hello")[2] == "when Steve joins"
    assert row(page, "boss")[2] == "when a log line matches The dragon was slain by {player}*"
    assert row(page, "crowd")[7] == "0 of 5"


async def test_a_mistake_is_refused_naming_the_field_with_the_form_kept(admin: Client) -> None:
    await api(admin, "program/save", {"name": "welcome", "steps": WELCOME})
    csrf = await admin.csrf()
    base = {"csrf_token": csrf, **BLANKS, "name": "boss", "program": "welcome", "kind": "log"}
    status, page = await admin.post("/triggers", data={**base, "pattern": "*", "cooldown": "2m"})
    assert status == 400, page
    field, sentence = refused(page)
    assert field == "pattern" and "fixed text" in sentence, sentence
    assert (value(page, "name"), value(page, "pattern"), value(page, "cooldown")) == (
        "boss",
        "*",
        "2m",
    )
    assert re.search(r'<option value="log" selected>', page), page
    assert re.search(r'name="pattern"[^>]*aria-invalid="true"', page), page
    hello = {**base, "name": "hello", "kind": "join", "player": "Steve"}
    for fields, named, words in (
        ({"cooldown": "1s"}, "cooldown", "between 10 seconds and 7 days"),
        ({"per_day": "many"}, "per_day", ""),
        ({"kind": "players", "players": "2", "player": ""}, "direction", "Give direction"),
        ({"pattern": "joined"}, "pattern", "is not for a trigger of kind join"),
        ({"program": "nothing"}, "program", "There is no program"),
        ({"name": "two words"}, "name", "is not a word"),
        ({"colour": "red"}, "colour", "colour"),
    ):
        status, page = await admin.post("/triggers", data={**hello, **fields})
        assert status == 400, (fields, said(page))
        field, sentence = refused(page)
        assert field == named and words in sentence, (fields, sentence)
        assert value(page, "player") == {**hello, **fields}["player"]  # as typed
    assert await listed(admin) == {}


async def test_a_moderator_is_not_offered_the_log_kind_and_a_forged_one_is_refused(
    admin: Client, mod: Client
) -> None:
    await api(mod, "program/save", {"name": "welcome", "steps": WELCOME})
    status, page = await mod.get("/triggers")
    kinds = re.findall(
        r'<option value="([a-z]+)"', page.split('name="kind"')[1].split("</select>")[0]
    )
    assert kinds == ["started", "players", "join", "interest"]
    assert 'name="pattern"' not in page
    status, page = await admin.get("/triggers")
    assert '<option value="log">' in page and 'name="pattern"' in page
    forged = {
        "csrf_token": await mod.csrf(),
        **BLANKS,
        "name": "boss",
        "kind": "log",
        "program": "welcome",
        "pattern": "The dragon was slain by {player}*",
    }
    status, page = await mod.post("/triggers", data=forged)
    assert status == 403, page
    field, sentence = refused(page)
    assert field == "kind" and "admin" in sentence, sentence
    assert await listed(mod) == {}
    # an admin's log trigger: the moderator sees it, but not its buttons, and a forged pause
    # or removal is refused
    await api(
        admin,
        "trigger/add",
        {"name": "boss", "kind": "log", "program": "welcome", "pattern": forged["pattern"]},
    )
    status, page = await mod.get("/triggers")
    assert row(page, "boss")[8] == "Test admins only", row(page, "boss")
    csrf = {"csrf_token": await mod.csrf()}
    assert (await mod.post("/triggers/boss/pause", data=csrf))[0] == 403
    assert (await mod.post("/triggers/boss/remove", data={**csrf, "confirm": "yes"}))[0] == 403
    assert (await listed(mod))["boss"]["enabled"] is True


async def test_pause_resume_and_remove_change_the_trigger(mod: Client) -> None:
    await api(mod, "program/save", {"name": "welcome", "steps": WELCOME})
    await api(mod, "trigger/add", {"name": "hello", "kind": "join", "program": "welcome"})
    csrf = {"csrf_token": await mod.csrf()}
    status, page = await mod.post("/triggers/hello/pause", data=csrf)
    assert status == 303, page
    assert (await listed(mod))["hello"]["enabled"] is False
    status, page = await mod.get("/triggers")
    assert "Trigger hello is paused: it fires nothing until resumed." in said(page)
    assert row(page, "hello")[5] == "paused" and "Resume hello" in page
    status, page = await mod.post("/triggers/hello/pause", data=csrf)  # again: its sentence
    status, page = await mod.get("/triggers")
    assert "Trigger hello is paused already." in said(page), said(page)
    status, page = await mod.post("/triggers/hello/resume", data=csrf)
    assert status == 303 and (await listed(mod))["hello"]["enabled"] is True
    # removed only after its question
    status, page = await mod.post("/triggers/hello/remove", data=csrf)
    assert status == 400 and "hello" in await listed(mod), page
    status, page = await mod.get("/triggers/hello/remove")
    assert status == 200 and "Remove the trigger <code>hello</code>?" in page, page
    assert 'name="confirm" value="yes"' in page
    status, page = await mod.post("/triggers/hello/remove", data={**csrf, "confirm": "yes"})
    assert status == 303, page
    assert await listed(mod) == {}
    status, page = await mod.get("/triggers")
    assert "Trigger hello removed; the runs it started go on." in said(page)
    status, page = await mod.post("/triggers/hello/remove", data={**csrf, "confirm": "yes"})
    assert status == 404 and "There is no trigger" in page, page


async def test_the_test_form_says_whether_a_line_would_fire_it_and_what_would_run(
    mod: Client,
) -> None:
    await api(mod, "program/save", {"name": "welcome", "steps": WELCOME})
    await api(mod, "trigger/add", {"name": "hello", "kind": "join", "program": "welcome"})
    csrf = await mod.csrf()
    status, page = await mod.post(
        "/triggers/hello/test", data={"csrf_token": csrf, "line": "Steve joined the game"}
    )
    assert status == 200, page
    assert re.search(r'id="test-fires" class="fires">would fire it<', page), page
    assert '<dd id="test-player">Steve</dd>' in page
    steps = re.findall(r'<tr class="(taken|refused)">(.*?)</tr>', page, re.S)
    cells = [[said(c) for c in re.findall(r"<td[^>]*>(.*?)</td>", s, re.S)] for _, s in steps]
    assert cells == [
        ["1", "say welcome", "0", "Steve", "would take it"],
        ["2", "give @s minecraft:bread 1", "+1m", "Steve", "would take it"],
    ], cells
    assert value(page, "line") == "Steve joined the game"
    # a player's chat saying the same words fires nothing
    chat = "<Steve> Alex joined the game"
    status, page = await mod.post("/triggers/hello/test", data={"csrf_token": csrf, "line": chat})
    assert status == 200 and 'class="misses">would not fire it<' in page, page
    assert 'id="test-player"' not in page and value(page, "line") == chat
    # no line: the operation's refusal, naming it
    status, page = await mod.post("/triggers/hello/test", data={"csrf_token": csrf, "line": " "})
    assert status == 400, page
    assert refused(page)[0] == "line" and 'id="test-outcome"' not in page
    assert (await listed(mod))["hello"]["fired_today"] == 0  # a test fires nothing


async def test_a_test_without_a_line_shows_the_count_and_a_step_the_server_would_refuse(
    dash: Dash, mod: Client
) -> None:
    await api(mod, "program/save", {"name": "broken", "steps": "- run: say fine\n"})
    await api(
        mod,
        "trigger/add",
        {"name": "crowd", "kind": "players", "program": "broken", "players": 2, "direction": "up"},
    )
    # a newer version the server refuses (trigger add checked the one it was given)
    await api(mod, "program/save", {"name": "broken", "steps": "- run: frobnicate the world\n"})
    dash.mc.join("Steve")
    csrf = await mod.csrf()
    status, page = await mod.get("/triggers/crowd")
    assert status == 200 and 'name="line"' not in page, page  # no line to try for this kind
    status, page = await mod.post("/triggers/crowd/test", data={"csrf_token": csrf})
    assert status == 200, page
    assert 'id="test-fires"' not in page
    assert re.search(r"<dt>Players online now</dt><dd>1</dd>", page), page
    [(kind, cells)] = re.findall(r'<tr class="(taken|refused)">(.*?)</tr>', page, re.S)
    shown = [said(c) for c in re.findall(r"<td[^>]*>(.*?)</td>", cells, re.S)]
    assert kind == "refused" and shown[:4] == ["1", "frobnicate the world", "0", ""], shown
    assert shown[4].startswith("would refuse it: "), shown


async def test_bad_input_is_never_a_server_error(admin: Client, mod: Client) -> None:
    await api(mod, "program/save", {"name": "welcome", "steps": WELCOME})
    await api(mod, "trigger/add", {"name": "hello", "kind": "join", "program": "welcome"})
    csrf = await admin.csrf()
    base = {"csrf_token": csrf, "name": "x", "program": "welcome", "kind": "players"}
    bad: list[dict[str, str]] = [
        {},
        {"kind": "nope"},
        {"name": ""},
        {"name": "n" * 5000},
        {"players": "-1", "direction": "up"},
        {"players": "99999999999999999999999", "direction": "up"},
        {"players": "2", "direction": "sideways"},
        {"per_day": "0"},
        {"per_day": "1e9"},
        {"cooldown": "forever"},
        {"kind": "log", "pattern": "a\nb c d"},
        {"kind": "log", "pattern": "{player} {player} slain"},
        {"kind": "interest", "event": "999"},
        {"kind": "interest", "event": "1", "deadline": "soon", "if_not": "later"},
        {"kind": "join", "player": "not a name!"},
        {"program": "\u0000\ud7ff"},
    ]
    for fields in bad:
        status, page = await admin.post("/triggers", data={**base, **fields})
        assert 400 <= status < 500, (fields, status, said(page))
    for path, data in (
        ("/triggers/hello/explode", {"csrf_token": csrf}),
        ("/triggers/nothing/pause", {"csrf_token": csrf}),
        ("/triggers/nothing/test", {"csrf_token": csrf, "line": "x"}),
        ("/triggers/hello/test", {"csrf_token": csrf, "line": "x" * 5000}),
        ("/triggers/hello/test", {"csrf_token": csrf, "line": "x", "colour": "red"}),
        ("/triggers/hello/pause", {}),  # no CSRF token
    ):
        status, page = await admin.post(path, data=data)
        assert 400 <= status < 500, (path, status, said(page))
    assert set(await listed(admin)) == {"hello"}


@pytest.mark.slow
async def test_a_join_trigger_added_in_a_browser_is_listed(
    dash: Dash, mod: Client, browser: Any, shots: Path
) -> None:
    await api(mod, "program/save", {"name": "welcome", "steps": WELCOME})
    ctx = await browser.new_context()
    ctx.set_default_timeout(TIMEOUT)
    page = await ctx.new_page()
    await page.goto(await dash.link(MOD))
    await page.get_by_role("button", name="Log in").click()
    await page.wait_for_url("**/servers")
    await page.get_by_role("link", name="Triggers").click()
    await page.get_by_label("Name", exact=True).fill("hello")
    await page.get_by_label("Kind").select_option("join")
    # the script shows the chosen kind's fields only
    assert await page.locator('input[name="player"]').is_visible()
    assert not await page.locator('input[name="players"]').is_visible()
    await page.get_by_label("Kind").select_option("players")
    await page.locator('input[name="players"]').fill("4")  # hidden again below: not sent
    await page.get_by_label("Kind").select_option("join")
    await page.get_by_label("Program").fill("welcome")
    await page.get_by_label("Only this player (optional)").fill("Steve")
    await page.screenshot(path=shots / "add.png", full_page=True)
    await page.get_by_role("button", name="Add the trigger").click()
    await page.wait_for_url("**/triggers")
    await page.get_by_text("Trigger hello starts program welcome").wait_for()
    line = page.get_by_role("row").filter(has_text="hello")
    text = " ".join((await line.inner_text()).split())
    assert "when Steve joins" in text and "0 of 24" in text, text
    await page.screenshot(path=shots / "triggers.png", full_page=True)
    await page.get_by_role("link", name="Test hello").click()
    await page.get_by_label("Log line").fill("Steve joined the game")
    await page.get_by_role("button", name="Test", exact=True).click()
    await page.locator("#test-fires").get_by_text("would fire it").wait_for()
    await page.set_viewport_size({"width": 390, "height": 844})
    await page.screenshot(path=shots / "test.png", full_page=True)
    await ctx.close()
    assert (await listed(mod))["hello"]["player"] == "Steve"
