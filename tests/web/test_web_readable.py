"""The dashboard reads well: Discord's markup rendered safely in the audit log, where each change
came from, members' Discord names, times in a zone the reader picks and sees named, pages that
clamp, forms that land on addresses that open again, one spelling of the units, a favicon, and
the words a Chinese page must not leave in English. Over real HTTP to the dashboard on mcsim."""

from __future__ import annotations

import json
import re
from collections.abc import AsyncIterator
from typing import Any

import pytest

from bot.testkit.harness import ADMIN, MOD
from tests.web.webclient import Client
from tests.web.webdash import Dash
from web.auth import LINK_TTL
from web.names import MemberNames

ZH = {"Accept-Language": "zh-CN"}
HOSTILE = '<script>alert(1)</script><img src=x onerror="alert(2)">'
# Discord's markup as an event's outcome has it, with markup a user could type in a name
OUTCOME = (
    f"Event #1 **Build contest {HOSTILE}** made: Discord event <t:1796164654:F> to"
    " <t:1796168254:F> (<t:1796168254:R>); run `say <b>hi</b>`.\n```\n**not bold** <i>x</i>\n```"
)


@pytest.fixture
async def anon(dash: Dash) -> AsyncIterator[Client]:
    client = Client(dash)
    yield client
    await client.close()


def cells(html: str, row_text: str) -> list[str]:
    """The cells (inner HTML) of the first table row containing `row_text`; CLDR's narrow
    no-break space (before AM/PM) as a space."""
    for row in re.findall(r"<tr>(.*?)</tr>", html.replace("\u202f", " "), re.DOTALL):
        if row_text in row:
            return re.findall(r"<td[^>]*>(.*?)</td>", row, re.DOTALL)
    raise AssertionError(f"no row with {row_text!r}")


async def test_audit_renders_discord_markup_safely_in_the_readers_zone(
    dash: Dash, mod: Client
) -> None:
    await dash.harness.services.audit.record(
        MOD.id, "user7002", "main", "event create", {}, OUTCOME
    )
    status, html = await mod.get("/audit")
    assert status == 200
    outcome = cells(html, "Build contest")[5]
    assert "<strong>Build contest &lt;script&gt;alert(1)&lt;/script&gt;" in outcome
    assert "&lt;img src=x onerror=" in outcome
    assert "<script" not in html.split("</head>", 1)[1].replace("<script src=", "")
    assert "<img" not in html and "<b>" not in outcome and "<i>" not in outcome
    assert "<code>say &lt;b&gt;hi&lt;/b&gt;</code>" in outcome
    assert "<pre><code>**not bold** &lt;i&gt;x&lt;/i&gt;" in outcome  # a code block stays code
    assert "<t:" not in html and "&lt;t:" not in html and "**" not in outcome.split("<pre>")[0]
    # written as every face writes a time: weekday, day, the locale's clock, the zone
    assert '<time datetime="2026-12-01T22:37:34+00:00">Tue, Dec 1, 2026, 10:37 PM UTC</time>' in (
        outcome
    )
    # Discord's relative style reads as how far away it is, not the time a second time
    assert re.search(r'11:37 PM UTC</time> \(<time datetime="[^"]+">[^<U]+</time>\)', outcome)
    # a reader who picked Shanghai sees the same moment there, the zone named
    status, html = await mod.get("/audit", cookies={"doom_tz": "Asia/Shanghai"})
    assert "Wed, Dec 2, 2026, 6:37 AM CST</time>" in cells(html, "Build contest")[5]
    assert "Times: Asia/Shanghai" in html


async def test_audit_says_where_each_change_came_from(kept: Dash, mod: Client) -> None:
    h = kept.harness
    csrf = await mod.csrf()
    status, _ = await mod.post("/servers/main/tasks/keep/pause", data={"csrf_token": csrf})
    assert status == 303
    token = json.loads((await mod.get("/api/token"))[1])["token"]
    status, _ = await mod.post(
        "/api/servers/main/tasks/keep/resume", headers={"Authorization": f"Bearer {token}"}
    )
    assert status == 200
    # an entry from before faces were recorded, by someone Discord no longer knows
    await h.services.audit.record(1, "old", "main", "clear", {}, "Removed 0 task(s) from main.")
    status, html = await mod.get("/audit")
    assert status == 200
    froms = [c[2] for c in (cells(html, w) for w in ("Resumed", "Paused", "Scheduled", "old"))]
    assert froms == ["API", "web page", "Discord", "–"]  # noqa: RUF001
    api = json.loads((await mod.get("/api/audit"))[1])["mutations"]
    assert [m["face"] for m in api] == [None, "api", "web", "discord"]
    assert [r.path for r in h.discord.refused] == ["/guilds/{guild_id}/members/{member_id}"]
    h.discord.refused.clear()  # the lookup of user 1's name, refused as Discord would
    # the When column is a time as every page writes it and how long ago, not a paragraph
    when = cells(html, "Paused")[0]
    assert re.fullmatch(
        r'<time datetime="[^"]+">\w{3}, \w{3} \d+, \d{4}, \d+:\d\d [AP]M UTC</time><br>'
        r'<span class="muted">[^<]+</span>',
        when,
    ), when


async def test_members_are_named_as_discord_names_them(kept: Dash) -> None:
    h = kept.harness
    h.discord.names[MOD.id] = "Moderator Mia"
    await h.services.audit.record(424242, "gone_user", "main", "clear", {}, "Removed 0 task(s).")
    client = await Client(kept).login(MOD)
    try:
        status, html = await client.get("/audit")
        assert status == 200
        assert cells(html, "Scheduled")[1].startswith("Moderator Mia<br>")
        assert cells(html, "gone_user")[1].startswith("gone_user<br>")  # left: the recorded name
        assert 'Moderator Mia <span class="badge">' in html  # the header too
        assert "user7002" not in html
    finally:
        await client.close()
    assert len(h.discord.refused) == 1  # the member who left, asked once
    h.discord.refused.clear()


async def test_member_names_are_cached_with_a_bound_and_an_expiry() -> None:
    calls: list[int] = []

    class Bot:
        def member_name(self, guild_id: int, user_id: int) -> str | None:
            return None  # nothing in the bot's cache: Discord is asked

        async def member(self, guild_id: int, user_id: int) -> dict[str, Any]:
            calls.append(user_id)
            return {"nick": None, "user": {"username": f"u{user_id}", "global_name": "G"}}

    now = [0.0]
    names = MemberNames(Bot(), clock=lambda: now[0], size=2)
    assert await names.names(1, [5, 5, 6]) == {5: "G", 6: "G"}
    assert await names.name(1, 5) == "G" and calls == [5, 6]  # asked once each
    await names.name(1, 7)  # a third name: the oldest goes (the cache holds two)
    assert len(names._cache) == 2
    now[0] += 601  # past NAME_TTL: asked again
    await names.name(1, 6)
    assert calls == [5, 6, 7, 6]


async def test_the_time_zone_is_named_and_can_be_picked(kept: Dash, mod: Client) -> None:
    status, html = await mod.get("/servers/main/queue")
    assert status == 200 and "Times: UTC" in html and 'href="/timezone"' in html
    due = re.search(r"<time datetime=\"[^\"]+\">([^<]+)</time>", html)
    assert due is not None and due[1].endswith(" UTC")
    status, html = await mod.get("/timezone")
    # the canonical zones by region, each place as read; no alias, no "Factory"
    assert status == 200 and '<optgroup label="Europe">' in html
    assert '<option value="Europe/Berlin">Berlin</option>' in html
    assert '<option value="America/New_York">New York</option>' in html
    for odd in ("Factory", "localtime", "US/Eastern", "Etc/GMT+5", "Europe/Kiev"):
        assert f'value="{odd}"' not in html
    csrf = await mod.csrf()
    status, _ = await mod.post("/timezone", data={"csrf_token": csrf, "zone": "Europe/Berlin"})
    assert status == 303
    status, html = await mod.get("/servers/main/queue")
    assert "Times: Europe/Berlin" in html
    due = re.search(r"<time datetime=\"[^\"]+\">([^<]+)</time>", html)
    assert due is not None and due[1].endswith(" CET")
    # a zone nobody has is refused, and the choice stays
    status, _ = await mod.post("/timezone", data={"csrf_token": csrf, "zone": "Mars/Olympus"})
    assert status == 303
    status, html = await mod.get("/timezone")
    assert "is not a time zone this dashboard knows" in html
    assert '<option value="Europe/Berlin" selected>Berlin</option>' in html
    # an old alias chosen elsewhere still reads, and stays the one chosen
    status, html = await mod.get("/timezone", cookies={"doom_tz": "US/Eastern"})
    assert '<option value="US/Eastern" selected>US/Eastern</option>' in html
    assert html.count(" selected>") == 1
    # back to the default
    await mod.post("/timezone", data={"csrf_token": csrf, "zone": ""})
    assert "Times: UTC" in (await mod.get("/timezone"))[1]


async def test_doom_web_timezone_is_the_default_zone(kept: Dash, mod: Client) -> None:
    kept.harness.services.settings.web_timezone = "Asia/Tokyo"
    status, html = await mod.get("/servers/main/queue")
    assert status == 200 and "Times: Asia/Tokyo" in html
    due = re.search(r"<time datetime=\"[^\"]+\">([^<]+)</time>", html)
    assert due is not None and due[1].endswith(" JST")
    status, html = await mod.get("/timezone")
    assert "the dashboard&#39;s default (Asia/Tokyo)" in html


async def test_a_page_past_the_end_is_the_last_page(kept: Dash, mod: Client) -> None:
    for which in ("queue", "offline", "planned"):
        status, html = await mod.get(f"/servers/main/{which}?page=99")
        assert status == 200
        assert "page 1 of 1" in html and "page 99" not in html, which
    assert "say keep" in (await mod.get("/servers/main/queue?page=99"))[1]


async def test_a_refused_form_is_at_an_address_that_opens_again(kept: Dash, mod: Client) -> None:
    csrf = await mod.csrf()
    form = {"csrf_token": csrf, "run": "sya hi", "time": "5", "unit": "tick"}
    status, html = await mod.post("/servers/main/queue", data=form)
    assert status == 400 and '<pre class="caret"' in html and 'value="sya hi"' in html
    assert 'action="/servers/main/queue"' in html  # where the form posts, and so the address
    status, html = await mod.get("/servers/main/queue")
    assert status == 200 and "say keep" in html
    status, _ = await mod.get("/servers/main/schedule")  # the older address of the form
    assert status == 303
    status, _ = await mod.post("/logout", data={"csrf_token": csrf})
    assert status == 303
    status, html = await mod.get("/logged-out")
    assert status == 200 and "You are logged out" in html


async def test_an_expired_link_says_so_when_opened(dash: Dash, anon: Client) -> None:
    link = await dash.link(MOD)
    dash.clock.advance(LINK_TTL + 1)
    status, html = await anon.get(link.removeprefix(dash.url))
    assert status == 403 and "This login link has expired" in html
    assert 'action="/login"' not in html  # no button that cannot work


async def test_one_unit_spelling_and_a_favicon(mod: Client) -> None:
    status, html = await mod.get("/servers/main/queue")
    assert '<option value="game_day">game_day</option>' in html and "gameday" not in html
    assert '<link rel="icon" href="/static/favicon.svg"' in html
    status, svg = await mod.get("/static/favicon.svg")
    assert status == 200 and svg.startswith("<svg")
    status, _ = await mod.get("/favicon.ico")
    assert status == 301


async def test_a_chinese_page_says_its_words_in_chinese(dash: Dash, mod: Client) -> None:
    h = dash.harness
    scheduler = h.services.scheduler
    assert scheduler is not None
    await h.run("schedule", MOD, run="say hourly", id="hourly", repeat="0 * * * *")
    dash.wall.advance(20 * 60 + 1)  # past 15:00, its first run
    await scheduler.settled()
    status, html = await mod.get("/servers/main/planned", headers=ZH)
    assert status == 200
    head = re.search(r"<thead>(.*?)</thead>", html, re.DOTALL)
    assert head is not None and "下次运行" in head[1] and "下一页" not in head[1]
    assert "已运行" in cells(html, "say hourly")[2]
    assert "ran" not in cells(html, "say hourly")[2]
    await h.run("cancel", ADMIN, id="hourly")
    status, html = await mod.get("/audit", headers=ZH)
    assert status == 200
    cancelled = cells(html, "hourly")  # newest first: the cancel, then the schedule
    assert cancelled[4] == "取消" and cancelled[2] == "Discord"
    assert re.search(r"<td data-label=\"[^\"]+\">计划</td>", html)
    assert "Planned" not in html and "Cancelled" not in html
    assert ">schedule<" not in html and ">cancel<" not in html
    # the action filter offers the actions by their Chinese names, filtering by their ids
    assert '<option value="cancel">取消</option>' in html and "placeholder=" not in html
    status, html = await mod.get("/audit?action=cancel", headers=ZH)
    assert status == 200 and '<td data-label="操作">计划</td>' not in html
    assert '<option value="cancel" selected>取消</option>' in html
