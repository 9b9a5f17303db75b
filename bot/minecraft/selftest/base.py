"""What every group of selftest checks shares: the names it uses, the run's state, plumbing."""

from __future__ import annotations

__all__ = [
    "HOSTILE",
    "KINDS",
    "MARKER_DELAY",
    "OBJECTIVE",
    "PAUSE_DELAY",
    "RETRIES",
    "RETRY_DELAY",
    "SELFTEST_PREFIX",
    "STORAGE",
    "Base",
    "is_selftest_id",
]

from pathlib import Path
from typing import TYPE_CHECKING, Final

from bot.errors import PackError
from bot.i18n import Text
from bot.minecraft.selftest import facts
from bot.minecraft.snbt_text import SnbtSyntaxError, parse_printed_snbt

if TYPE_CHECKING:
    from bot.minecraft.pack_client import PackClient
    from bot.minecraft.rcon import RconClient
    from bot.minecraft.selftest.probe import EventProbe
    from bot.minecraft.selftest.result import SelftestResult, Status
    from bot.services import ServerServices

SELFTEST_PREFIX: Final = "doom.selftest."
OBJECTIVE: Final = "doom.selftest"
STORAGE: Final = "doom.selftest:run"
KINDS: Final = ("marker", "pause", "many", "hostile")  # the task ids of a run end in these

MARKER_DELAY: Final = 20  # ticks
RETRIES: Final = 2
RETRY_DELAY: Final = 5
PAUSE_DELAY: Final = 400
# quotes of both kinds, backslashes (one before a quote), non-ASCII: what a macro cannot carry
HOSTILE: Final = 'say "hi" it\'s a \\ back\\slash \\" and \\\\ é ü ✓'


def is_selftest_id(task_id: str) -> bool:
    """A task (and its events) made by a selftest: alerts ignore them."""
    return task_id.startswith(SELFTEST_PREFIX)


class Base:
    """The state of one run, shared by the check groups (runner.Selftest combines them)."""

    server: ServerServices
    rcon: RconClient
    pack: PackClient
    pack_dir: Path
    token: str
    ids: dict[str, str]
    result: SelftestResult
    probe: EventProbe | None
    g0: tuple[float, int]  # (monotonic s, game time) at the start
    ticking: bool
    _hostile_queued: str | None

    def _add(self, status: Status, name: str, detail: Text = "") -> None:
        self.result.add(status, name, detail)

    async def _game_time(self) -> int:
        reply = facts.strip_codes(await self.rcon.command("time query gametime"))
        if not reply.startswith("The time is "):
            raise PackError("bad_reply", f"Unexpected answer to `time query gametime`: {reply}")
        return int(reply.split()[3])

    async def _read(self, storage: str, path: str) -> object | None:
        reply = facts.strip_codes(await self.rcon.command(f"data get storage {storage} {path}"))
        head = f"Storage {storage} has the following contents: "
        if not reply.startswith(head):
            return None
        try:
            return parse_printed_snbt(reply[len(head) :])
        except SnbtSyntaxError:
            return None

    def _failing(self) -> str:
        # fails every time it runs (an unset score is never 1) and changes nothing
        return f"execute if score #never {OBJECTIVE} matches 1"

    def _harmless(self) -> str:
        return f"scoreboard players add #ran {OBJECTIVE} 1"
