"""Chat commands: say, me, tellraw.

From server/command/{Say,Me,TellRaw}Command.java and MessageArgumentType.java (1.21.11):
- the message argument is at most 256 characters of raw text
  ("Chat message was too long (%s > maximum %s characters)"); selectors in it are replaced by the
  selected names (", "-joined) when the source has level >= 2, else kept as typed;
- `say` and `me` are always logged (`[Not Secure] [<source>] <text>`, `[Not Secure] * <source>
  <text>`) and shown to every online player; they send no feedback to the source;
- `tellraw` is never logged; each target player gets the component rendered for them (`*` in a
  score component is that player). No online target: "No player was found".
"""

from __future__ import annotations

import logging
from typing import Any, cast

from mecha.ast import AstCommand, AstMessage, AstMessageText

from mcsim.errors import CommandError
from mcsim.registry import Call, handler
from mcsim.selectors import resolve_targets, select_players
from mcsim.textcomponents import render

__all__ = ["MAX_MESSAGE", "format_message"]

log = logging.getLogger(__name__)

MAX_MESSAGE = 256


def format_message(call: Call, message: AstMessage) -> str:
    """MessageArgumentType.MessageFormat.format: the text with selectors resolved to names."""
    length = message.end_location.pos - message.location.pos
    if length > MAX_MESSAGE:
        raise CommandError(
            f"Chat message was too long ({length} > maximum {MAX_MESSAGE} characters)"
        )
    sim = call.sim
    parts: list[str] = []
    for fragment in message.fragments:
        if isinstance(fragment, AstMessageText):
            parts.append(str(fragment.value))
        elif call.source.level >= 2:
            found = resolve_targets(
                fragment, call.source, sim.entities, sim.rng, scoreboard=sim.scoreboard
            )
            parts.append(", ".join(e.name for e in found))
        else:
            parts.append(_selector_text(fragment))
    return "".join(parts)


def _selector_text(node: Any) -> str:
    from mcsim.textcomponents import _mecha

    return str(_mecha().serialize(node))


@handler("say:message")
def say(call: Call, cmd: AstCommand) -> int:
    text = format_message(call, cast(AstMessage, cmd.arguments[0]))
    name = call.source.name
    call.sim.log.info(f"[Not Secure] [{name}] {text}")
    call.broadcast_to_players(f"[{name}] {text}")
    return 1


@handler("me:action")
def me(call: Call, cmd: AstCommand) -> int:
    text = format_message(call, cast(AstMessage, cmd.arguments[0]))
    name = call.source.name
    call.sim.log.info(f"[Not Secure] * {name} {text}")
    call.broadcast_to_players(f"* {name} {text}")
    return 1


@handler("tellraw:targets:message")
def tellraw(call: Call, cmd: AstCommand) -> int:
    from mcsim.nbt import from_mecha

    sim = call.sim
    targets = select_players(
        cmd.arguments[0], call.source, sim.entities, sim.rng, scoreboard=sim.scoreboard
    )
    component = from_mecha(cmd.arguments[1])
    for player in targets:
        text = render(component, sim, call.source, player)
        sim.chat.setdefault(player.name, []).append(text)
    return len(targets)
