"""How the local Discord shows a message payload: its buttons, and as terminal text (the
console prints what the bot sent this way)."""

from __future__ import annotations

__all__ = ["buttons", "render"]

import re
from collections.abc import Mapping
from datetime import datetime
from typing import Any

from bot.i18n import _
from bot.i18n.formats import datetime_text, relative


def buttons(message: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The buttons of a message payload, across its action rows."""
    return [c for row in message.get("components") or [] for c in row.get("components", [])
            if c.get("type") == 2]  # fmt: skip


_TIMESTAMP = re.compile(r"<t:(-?\d+)(?::([tTdDfFR]))?>")


def _timestamp(match: re.Match[str]) -> str:
    when = datetime.fromtimestamp(int(match.group(1)))
    if match.group(2) == "R":
        return f"{when:%H:%M:%S} ({relative(when)})"  # "in 5 minutes" / "5分钟后"
    return datetime_text(when)


def render(data: Mapping[str, Any]) -> str:
    """A message payload as terminal text: content, embeds, buttons, attachments."""
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
    labels = [f"[{b.get('label')}]{off if b.get('disabled') else ''}"
              for b in buttons(data)]  # fmt: skip
    if labels:
        lines.append(" ".join(labels))
    lines += [
        _("(attached: {name})", name=a.get("filename")) for a in data.get("attachments") or []
    ]
    return _TIMESTAMP.sub(_timestamp, "\n".join(lines))
