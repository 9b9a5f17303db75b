"""Discord's markup in texts the bot wrote for Discord (audit outcomes, alert details), as HTML:
bold, inline code, code blocks and ``<t:…>`` timestamps, shown as Discord shows them.

markdown-it-py parses it with raw HTML off, so any ``<tag>`` in the text (a command, a task id,
an event's name) comes out escaped; only the few rules below are on, so a ``#`` or a ``-`` at the
start of a line stays the text it is. A timestamp becomes a ``<time>`` in the reader's zone,
the zone named (:func:`web.zones.time_text`).
"""

from __future__ import annotations

__all__ = ["discord_html", "discord_inline", "discord_text"]

import functools
import re
from collections.abc import Sequence
from datetime import UTC, datetime
from zoneinfo import ZoneInfo

from markdown_it import MarkdownIt
from markdown_it.rules_inline import StateInline
from markdown_it.token import Token
from markupsafe import Markup, escape

from bot.i18n import formats
from web.zones import time_text

# Discord's <t:seconds> and <t:seconds:style>; a time far outside datetime's range stays text
TIMESTAMP = re.compile(r"<t:(-?\d{1,12})(?::([tTdDfFR]))?>")


def _moment(seconds: str) -> datetime | None:
    try:
        return datetime.fromtimestamp(int(seconds), UTC)
    except (OverflowError, OSError, ValueError):
        return None


def _timestamp(state: StateInline, silent: bool) -> bool:
    found = TIMESTAMP.match(state.src, state.pos)
    if found is None or (when := _moment(found[1])) is None:
        return False
    if not silent:
        token = state.push("discord_time", "time", 0)
        token.meta = {"when": when, "relative": found[2] == "R"}
    state.pos = found.end()
    return True


def _render_time(
    self: object, tokens: Sequence[Token], idx: int, options: object, env: object
) -> str:
    when: datetime = tokens[idx].meta["when"]
    shown = _said(when, relative=tokens[idx].meta["relative"])
    return f'<time datetime="{when.isoformat()}">{escape(shown)}</time>'


def _said(when: datetime, *, relative: bool, zone: ZoneInfo | None = None) -> str:
    """A timestamp as Discord shows its style: `R` as how far away it is ("in 5 days"), any
    other as the time in the reader's zone."""
    return formats.relative(when) if relative else time_text(when, zone=zone)


@functools.cache
def _parser() -> MarkdownIt:
    md = MarkdownIt("zero", {"html": False, "breaks": True})
    md.enable(["fence", "backticks", "emphasis", "newline", "escape"])
    md.inline.ruler.before("backticks", "discord_time", _timestamp)
    md.add_render_rule("discord_time", _render_time)
    return md


def discord_html(text: object) -> Markup:
    """``text`` with Discord's markup as HTML, everything else escaped."""
    return Markup(_parser().render(str(text)))


def discord_inline(text: object) -> Markup:
    """``discord_html`` of one line, without the paragraph around it (a table cell's fact)."""
    return Markup(_parser().renderInline(str(text)))


def discord_text(text: object, zone: ZoneInfo | None = None) -> str:
    """``text`` with its timestamps as times in the reader's zone (or `zone`), for plain-text
    places (the live feed's cells, which the page's script fills as text)."""

    def said(found: re.Match[str]) -> str:
        when = _moment(found[1])
        return found[0] if when is None else _said(when, relative=found[2] == "R", zone=zone)

    return TIMESTAMP.sub(said, str(text))
