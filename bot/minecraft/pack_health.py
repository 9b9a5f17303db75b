"""Whether the pack's own state on the server is whole: its objectives with their constants, and
the lists and settings of its storages that every task depends on.

Damage comes from outside the bot (an op's `scoreboard objectives remove doom.schedule`, `data
remove storage doom.schedule:data queue`, an edited world); the pack does not notice and keeps
answering, so /status and the selftest ask: a few read-only commands over RCON, none of which
prints a whole list (the queue may be long). `/setup` reinstalls and reloads: the pack's #load
recreates what is missing; what is there but of the wrong kind it leaves alone (it may still be
someone's data), so that is named for an admin to look at.
"""

from __future__ import annotations

__all__ = ["DAMAGE_ADVICE", "pack_damage"]

import re
from typing import TYPE_CHECKING, Final

from bot.i18n import Text, lazy
from bot.minecraft.software import strip_colours

if TYPE_CHECKING:
    from bot.minecraft.rcon import RconClient

OBJECTIVE: Final = "doom.schedule"
LEFT_OBJECTIVE: Final = "doom.schedule.left"
CONSTANTS: Final = (("#2", 2), ("#256", 256))  # set by #load, used by the id and time maths
# (storage, path) of each list the pack appends to and reads every tick
LISTS: Final = (
    ("doom.schedule:data", "queue"),
    ("doom.schedule:data", "offline"),
    ("doom.schedule:data", "paused"),
    ("doom.schedule:data", "uuids"),
    ("doom.schedule:events", "entries"),
)
# values #load sets when absent (numbers and compounds: only their presence is checked)
VALUES: Final = (
    ("doom.schedule:data", "cfg.cap"),
    ("doom.schedule:data", "cfg.log"),
    ("doom.schedule:data", "cfg.admins"),
    ("doom.schedule:data", "cfg.events_max"),
    ("doom.schedule:data", "dyn"),
    ("doom.schedule:data", "stats"),
    ("doom.schedule:events", "seq"),
    ("doom.schedule:const", "units"),
    ("doom.schedule:const", "hex"),
)
DAMAGE_ADVICE: Final = lazy(
    "Run /setup (or `python -m bot install-datapack`): the pack's #load recreates what is missing."
)
_HAS = re.compile(r"^(\S+) has (-?\d+) \[")


async def _passes(rcon: RconClient, *conditions: str) -> bool:
    """Whether every `storage path` condition holds (one command for all of them)."""
    tests = " ".join(f"if data storage {c}" for c in conditions)
    reply = strip_colours(await rcon.command(f"execute {tests}")).strip()
    return reply.startswith("Test passed")


async def pack_damage(rcon: RconClient) -> list[Text]:
    """Each thing found missing or malformed, as a sentence; empty when the state is whole."""
    problems: list[Text] = []
    for holder, value in CONSTANTS:
        reply = strip_colours(await rcon.command(f"scoreboard players get {holder} {OBJECTIVE}"))
        if reply.startswith("Unknown scoreboard objective"):
            problems.append(
                lazy("the scoreboard objective {objective} is missing", objective=OBJECTIVE)
            )
            break
        found = _HAS.match(reply.strip())
        if found is None or int(found[2]) != value:
            problems.append(
                lazy(
                    "the constant {holder} on {objective} is not {value}",
                    holder=holder,
                    objective=OBJECTIVE,
                    value=value,
                )
            )
    reply = strip_colours(await rcon.command(f"scoreboard players get #none {LEFT_OBJECTIVE}"))
    if reply.startswith("Unknown scoreboard objective"):
        problems.append(
            lazy("the scoreboard objective {objective} is missing", objective=LEFT_OBJECTIVE)
        )
    for storage, path in LISTS:
        # a non-empty list has elements; an empty one matches `{path:[]}`; neither: not a list
        if await _passes(rcon, f"{storage} {path}[]") or await _passes(
            rcon, f"{storage} {{{path}:[]}}"
        ):
            continue
        if await _passes(rcon, f"{storage} {path}"):
            problems.append(
                lazy(
                    "{storage} {path} is there but is not a list; /setup keeps it, so an admin "
                    "must reset it in the server console: `data modify storage {storage} {path} "
                    "set value []`",
                    storage=storage,
                    path=path,
                )
            )
        else:
            problems.append(lazy("{storage} {path} is missing", storage=storage, path=path))
    if await _passes(rcon, *(f"{storage} {path}" for storage, path in VALUES)):
        return problems
    for storage, path in VALUES:
        if not await _passes(rcon, f"{storage} {path}"):
            problems.append(lazy("{storage} {path} is missing", storage=storage, path=path))
    return problems
