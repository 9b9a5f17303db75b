"""Every page of the dashboard in a real browser (Debian's chromium under Playwright), 1280 and
390 pixels wide, in English and Chinese: nothing wider than the window or a table than its card,
every button on screen, no time broken over lines, no raw Discord markup, and on a Chinese page
no English sentence the catalog translates.
Screenshots of each page go to test-artifacts/web/<test>/."""

from __future__ import annotations

import asyncio
import functools
import re
from pathlib import Path
from typing import Any

import pytest
from babel.messages.pofile import read_po

from bot.i18n import catalog_dir
from bot.testkit.harness import ADMIN, MOD
from tests.web.webdash import Dash

pytestmark = pytest.mark.slow  # a real browser, a server at 20 TPS, processes

TIMEOUT = 20_000  # ms: generous, the machine is shared
WIDTHS = (1280, 390)
LONG_RUN = "say " + "the-build-contest-starts-soon-" * 8  # one long word: it must wrap
MARKUP = (
    "Event #1 **Build contest** made: Discord event <t:1796164654:F> to <t:1796168254:F> at "
    + "the-spawn-plaza-" * 10
    + "; its start and end tasks are planned on main. https://discord.com/events/1/2\n```\n"
    + "say " * 40
    + "\n```"
)
PAGES = (
    "/servers",
    "/triggers",
    "/servers/main/queue",
    "/servers/main/offline",
    "/servers/main/paused",
    "/servers/main/planned",
    "/servers/main/tasks/long",
    "/servers/main/clear",
    "/events",
    "/audit",
    "/extensions",
    "/timezone",
    "/x/commands/",
    "/servers/nope/queue",
    "/discord-events",
    "/discord-events/1",
    "/servers/main/admin",
    "/servers/main/tasks/long/cancel_all",
    "/groups/all",
    "/groups/all/queue",
    "/groups/all/planned",
    "/groups/all/tasks/long",
    "/groups/all/history/hourly",
    "/groups/all/clear",
    "/groups/all/tasks/long/cancel_all",
    "/servers/main/history/hourly",
)

# what a page shows, read in the browser: its width, buttons off screen, its text nodes
READ_PAGE = """() => {
  const off = [];
  for (const el of document.querySelectorAll("main button, main a, main input, main select")) {
    const box = el.getBoundingClientRect();
    if (box.width && (box.left < 0 || box.right > window.innerWidth + 0.5)) {
      off.push((el.textContent || el.name || el.tagName).trim() + " " + Math.round(box.right));
    }
  }
  // a table wider than its card (scrolled inside it), a time broken over lines
  const wide = [...document.querySelectorAll(".table-wrap")]
    .filter((w) => w.scrollWidth > w.clientWidth + 1).map((w) => w.scrollWidth);
  const broken = [...document.querySelectorAll("main time")]
    .filter((t) => t.getClientRects().length > 1).map((t) => t.textContent);
  const texts = [];
  const walk = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  while (walk.nextNode()) {
    const node = walk.currentNode, parent = node.parentElement;
    if (node.textContent.trim() && !parent.closest("code, pre, script, option")) {
      texts.push(node.textContent.trim());
    }
  }
  for (const el of document.querySelectorAll("[placeholder], [aria-label], [title]")) {
    for (const name of ["placeholder", "aria-label", "title"]) {
      if (el.getAttribute(name)) { texts.push(el.getAttribute(name)); }
    }
  }
  return {scroll: document.documentElement.scrollWidth, width: window.innerWidth,
          off, wide, broken, texts, text: document.body.innerText};
}"""


@functools.cache
def translated_english() -> tuple[frozenset[str], tuple[str, ...]]:
    """The English sentences zh_CN translates differently: whole texts without placeholders,
    and the longer literal pieces of those with placeholders."""
    with (catalog_dir() / "zh_CN" / "LC_MESSAGES" / "messages.po").open("rb") as f:
        catalog = read_po(f, locale="zh_CN")
    whole: set[str] = set()
    pieces: set[str] = set()
    for m in catalog:
        if not isinstance(m.id, str) or not m.id or not m.string or m.string == m.id:
            continue
        if m.context is not None and m.context.startswith("slash"):
            continue  # a Discord command's or option's name, not a sentence of a page
        if "{" not in m.id:
            whole.add(m.id)
        else:
            pieces.update(p for p in re.split(r"\{\w+\}", m.id) if len(p.strip()) >= 14)
    return frozenset(whole), tuple(sorted(pieces))


def english_in(texts: list[str]) -> list[str]:
    whole, pieces = translated_english()
    found = [t for t in texts if t in whole or t.rstrip(":").strip() in whole]
    found += [f"{t!r} has {p!r}" for t in texts for p in pieces if p in t]
    return found


async def prepare(dash: Dash) -> None:
    """Something on every page: long commands, a paused task, planned rows that ran, audit
    entries with Discord's markup, a pack event and a missed planned run in the feed, a
    Discord event with a long name and command."""
    h = dash.harness
    made = await h.run(
        "event create",
        MOD,
        name="The " + "long-" * 17 + "contest",
        start="in 2h",
        start_run=LONG_RUN,
        repeat="7d",
    )
    assert "Event #1" in made.text, made.text
    await h.run("schedule", MOD, run=LONG_RUN, time=900, unit="tick", id="long")
    await h.run("schedule", MOD, run="say nap", time=900, unit="tick", id="nap")
    await h.run("pause", MOD, id="nap")
    await h.run("schedule", MOD, run=LONG_RUN, id="raid", when="fri 20:00")
    await h.run("schedule", MOD, run="say hourly", id="hourly", repeat="0 * * * *")
    scheduler = h.services.scheduler
    assert scheduler is not None
    await h.run("schedule", MOD, run="say late", id="latecomer", when="in 1m")
    await scheduler.stop()
    dash.wall.advance(60 + 601)  # past max_late: missed, and the hourly row's first run
    await scheduler.start()
    await scheduler.settled()
    await h.run(
        "schedule",
        MOD,
        run="execute if entity @e[type=minecraft:pig]",
        time=1,
        unit="tick",
        retry=1,
        retry_delay=1,
        id="nopig",
    )
    await asyncio.to_thread(dash.mc.step, 10)
    await h.services.audit.record(
        ADMIN.id, "user7001", "main", "event create", {}, MARKUP, face="discord"
    )


async def visit(browser: Any, dash: Dash, width: int, lang: str, shots: Path) -> list[str]:
    """Every page at this width and language; what is wrong with each, said."""
    ctx = await browser.new_context(viewport={"width": width, "height": 900}, locale=lang)
    ctx.set_default_timeout(TIMEOUT)
    page = await ctx.new_page()
    faults: list[str] = []
    try:
        await page.goto(await dash.link(ADMIN))
        named = [("login", await page.evaluate(READ_PAGE))]
        await page.screenshot(path=shots / f"{lang}-{width}-login.png", full_page=True)
        await page.locator("form[action='/login'] button").click()
        await page.wait_for_url("**/servers")
        for path in PAGES:
            await page.goto(dash.url + path)
            name = path.strip("/").replace("/", "-") or "root"
            await page.screenshot(path=shots / f"{lang}-{width}-{name}.png", full_page=True)
            named.append((path, await page.evaluate(READ_PAGE)))
        for path, seen in named:
            if seen["scroll"] > seen["width"]:
                faults.append(f"{path}: {seen['scroll']} px wide in {seen['width']}")
            if seen["off"]:
                faults.append(f"{path}: off screen: {seen['off']}")
            if seen["wide"]:
                faults.append(f"{path}: a table wider than its card: {seen['wide']} px")
            if seen["broken"]:
                faults.append(f"{path}: times over several lines: {seen['broken']}")
            for raw in ("**", "```", "<t:"):
                if raw in seen["text"]:
                    faults.append(f"{path}: raw {raw}")
            if lang.startswith("zh"):
                faults += [f"{path}: English: {t}" for t in english_in(seen["texts"])]
    finally:
        await ctx.close()
    return faults


@pytest.mark.parametrize("lang", ["en-US", "zh-CN"])
async def test_every_page_fits_and_reads_in_its_language(
    dash: Dash, browser: Any, shots: Path, lang: str
) -> None:
    await prepare(dash)
    faults = []
    for width in WIDTHS:
        faults += [f"{width} px {f}" for f in await visit(browser, dash, width, lang, shots)]
    assert not faults, "\n".join(faults)
    saved = await asyncio.to_thread(lambda: list(shots.glob("*.png")))
    assert len(saved) == len(WIDTHS) * (len(PAGES) + 1)
