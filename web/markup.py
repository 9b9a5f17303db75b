"""Discord's markup in texts the bot wrote for Discord (audit outcomes, alert details), as HTML:
bold, inline code, code blocks and ``<t:…>`` timestamps, shown as Discord shows them; and as
plain text for the JSON API (:func:`discord_plain`: no markup, times in ISO 8601).

markdown-it-py parses it with raw HTML off, so any ``<tag>`` in the text (a command, a task id,
an event's name) comes out escaped; only the few rules below are on, so a ``#`` or a ``-`` at the
start of a line stays the text it is. A timestamp becomes a ``<time>`` in the reader's zone,
the zone named (:func:`web.zones.time_text`).
"""

from __future__ import annotations

__all__ = ["PROSE", "discord_html", "discord_inline", "discord_plain", "discord_text", "plain_json"]

import functools
import re
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any
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


# "<t:N:F> (<t:N:R>)", a time with how far away it is, is one instant in JSON
_WITH_DISTANCE = re.compile(r"<t:(-?\d{1,12}):[fF]> \(<t:\1:R>\)")


def _iso(when: datetime) -> str:
    return when.isoformat().replace("+00:00", "Z")


def _plain_inline(tokens: Sequence[Token]) -> str:
    parts: list[str] = []
    for token in tokens:
        if token.type in ("text", "code_inline"):
            parts.append(token.content)
        elif token.type in ("softbreak", "hardbreak"):
            parts.append("\n")
        elif token.type == "discord_time":
            parts.append(_iso(token.meta["when"]))
        # emphasis and strong open/close tokens say nothing in plain text
    return "".join(parts)


def discord_plain(text: object) -> str:
    """``text`` without Discord's markup, for JSON: code and bold as their words, a code block
    as its lines, every timestamp as an ISO 8601 instant in UTC."""
    source = _WITH_DISTANCE.sub(lambda m: f"<t:{m[1]}:F>", str(text))
    blocks: list[str] = []
    for token in _parser().parse(source):
        if token.type == "inline":
            blocks.append(_plain_inline(token.children or []))
        elif token.type == "fence":
            blocks.append(token.content.rstrip("\n"))
    return "\n\n".join(blocks)


# the API's keys whose values are the bot's sentences (an outcome, a refusal, a verdict), which
# are written for Discord; every other value is data (a command, an id, a name) and stays as is
PROSE = frozenset({"outcome", "error", "verdict", "detail", "warning", "note", "pack_damage"})


def plain_json(value: Any, *, prose: bool = False) -> Any:
    """A JSON body with the values of the :data:`PROSE` keys as :func:`discord_plain`."""
    if isinstance(value, dict):
        return {k: plain_json(v, prose=k in PROSE) for k, v in value.items()}
    if isinstance(value, list):
        return [plain_json(v, prose=prose) for v in value]
    if prose and isinstance(value, str):
        return discord_plain(value)
    return value
