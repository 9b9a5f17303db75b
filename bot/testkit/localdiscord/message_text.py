"""A message payload as plain text: what the tests read back from the local Discord
(:attr:`bot.testkit.localdiscord.emulator.Exchange.text`); the console renders with rich instead."""

from __future__ import annotations

__all__ = ["buttons", "render"]

from collections.abc import Mapping
from datetime import datetime, tzinfo
from typing import Any

from bot.i18n import _
from bot.i18n.formats import stamps_in_zone


def buttons(message: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The buttons of a message payload, across its action rows."""
    return [
        c
        for row in message.get("components") or []
        for c in row.get("components", [])
        if c.get("type") == 2
    ]


def render(
    data: Mapping[str, Any], *, zone: tzinfo | None = None, now: datetime | None = None
) -> str:
    """A message payload as plain text: content, embeds, buttons, attachments; a Discord
    timestamp reads as the console reads it (:func:`discord_times`)."""
    lines: list[str] = []
    if data.get("content"):
        lines.append(str(data["content"]))
    for embed in data.get("embeds") or []:
        if embed.get("title"):
            lines.append(f"== {embed['title']} ==")
        if embed.get("description"):
            lines.append(str(embed["description"]))
        lines += [f"  {f['name']}: {f['value']}" for f in embed.get("fields", [])]
        if embed.get("footer", {}).get("text"):
            lines.append(f"  -- {embed['footer']['text']}")
    off = _(" (disabled)")  # outside the f-string, where the extractor sees it
    labels = [f"[{b.get('label')}]{off if b.get('disabled') else ''}" for b in buttons(data)]
    if labels:
        lines.append(" ".join(labels))
    lines += [
        _("(attached: {name})", name=a.get("filename")) for a in data.get("attachments") or []
    ]
    return stamps_in_zone("\n".join(lines), zone=zone, now=now)
