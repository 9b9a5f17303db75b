"""`python -m bot selftest`: live checks of the pack, RCON and the event source on a server.

Run through the same services the bot uses (bot.services.ServerServices); one line per check,
`PASS`, `FAIL` (with what to do) or `WARN`; exit status 1 when any check fails. Modules:
`runner` (the order, setup and cleanup), `checks_pack` (no ticks needed), `checks_timed`
(ticks needed), `facts` (reading the server), `probe` (the event source), `result`.
"""

from bot.minecraft.selftest.base import OBJECTIVE, SELFTEST_PREFIX, STORAGE, is_selftest_id
from bot.minecraft.selftest.checks_pack import public_tags
from bot.minecraft.selftest.result import Check, SelftestResult, Status
from bot.minecraft.selftest.runner import Selftest, run_selftest

__all__ = [
    "OBJECTIVE",
    "SELFTEST_PREFIX",
    "STORAGE",
    "Check",
    "Selftest",
    "SelftestResult",
    "Status",
    "is_selftest_id",
    "public_tags",
    "run_selftest",
]
