"""What the local Discord (bot.testkit.localdiscord.emulator) keeps of each request: what was
sent, what it refused as Discord would, one interaction's exchange, and a clock that moves when
told."""

from __future__ import annotations

__all__ = ["EPHEMERAL", "Exchange", "Refusal", "Sent", "VirtualClock", "channel_name"]

import asyncio
from dataclasses import dataclass, field
from datetime import UTC
from typing import Any

from bot.testkit.localdiscord.message_text import render

EPHEMERAL = 1 << 6  # the message flag Discord shows to the invoker only
# the channels the settings name, by what goes there (the local Discord has no names for them)
_CHANNEL_ROLES = (
    ("alert_channel_id", "alerts"),
    ("audit_channel_id", "audit"),
    ("discord_event_channel_id", "events"),
)


def channel_name(channel_id: int | None, local: int, settings: object) -> str:
    """A channel's name as Discord would show it: the local channel (`local`) is #general,
    the alert, audit and event channels of `settings` are named for what they carry."""
    if channel_id == local:
        return "general"
    for setting, name in _CHANNEL_ROLES:
        if channel_id is not None and getattr(settings, setting, None) == channel_id:
            return name
    return str(channel_id)


@dataclass(slots=True)
class Sent:
    """One request discord.py made towards Discord, as Discord would have received it."""

    method: str
    path: str
    kind: str  # response, autocomplete, followup, edit, delete, channel, channel_edit, sync,
    # scheduled_event, other; "refused" only reaches listeners
    payload: dict[str, Any]
    token: str | None = None  # the interaction's, for interaction routes
    message_id: int | None = None
    channel_id: int | None = None
    files: list[tuple[str, bytes]] = field(default_factory=list)

    @property
    def data(self) -> dict[str, Any]:
        """The message part: callbacks nest it under ``data``, other routes send it bare."""
        inner = self.payload.get("data") if self.path.endswith("/callback") else None
        return inner if isinstance(inner, dict) else self.payload


@dataclass(slots=True)
class Refusal:
    """A request LocalDiscord answered with an error, as Discord would have."""

    method: str
    path: str
    status: int
    error: dict[str, Any]  # Discord's JSON error body
    body: Any  # what the bot sent
    token: str | None = None

    @property
    def code(self) -> int:
        return int(self.error.get("code", 0))


class VirtualClock:
    """A clock that moves only when told to: interaction deadlines without real waiting."""

    def __init__(self, start: float = 0.0) -> None:
        self.now = start

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


# what the Discord client shows when an interaction got no (timely) response
_FAILURE = {
    2: "The application did not respond",
    3: "This interaction failed",
    4: "Loading options failed",
    5: "Something went wrong. Try again.",
}


@dataclass(slots=True)
class Exchange:
    """What one interaction sent back: its response, follow-ups and edits, in order."""

    token: str
    user_id: int
    sent: list[Sent] = field(default_factory=list)
    task: asyncio.Task[Any] | None = None
    type: int = 2
    acknowledged: bool = False  # an initial response was accepted in time
    refused: list[Refusal] = field(default_factory=list)

    async def done(self, limit: float = 10.0) -> Exchange:
        if self.task is not None:
            await asyncio.wait_for(asyncio.shield(self.task), limit)
        return self

    @property
    def messages(self) -> list[Sent]:
        return [s for s in self.sent if s.kind in ("response", "followup", "edit")]

    @property
    def text(self) -> str:
        """Every content and embed text sent, joined: what the user read, as a reader in UTC
        reads it (a Discord timestamp in the console's format, the zone named)."""
        return "\n".join(t for t in (render(s.data, zone=UTC) for s in self.messages) if t)

    @property
    def embeds(self) -> list[dict[str, Any]]:
        return [e for s in self.messages for e in s.data.get("embeds") or []]

    @property
    def ephemeral(self) -> bool:
        first = next((s for s in self.sent if s.kind == "response"), None)
        return first is not None and bool(first.data.get("flags", 0) & EPHEMERAL)

    @property
    def choices(self) -> list[dict[str, Any]]:
        auto = [s for s in self.sent if s.kind == "autocomplete"]
        return list(auto[-1].data.get("choices", [])) if auto else []

    @property
    def failure(self) -> str | None:
        """What the Discord client shows instead of a reply, or None when the bot answered."""
        return None if self.acknowledged else _FAILURE.get(self.type, _FAILURE[2])
