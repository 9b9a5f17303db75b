"""Server administration: install the pack (`setup`; the faces follow it with the selftest when
the pack is in place) and prove it works (`selftest`). Admins only; both are audited."""

from __future__ import annotations

__all__ = ["SetupOutcome", "Tested", "selftest", "setup"]

from dataclasses import dataclass
from typing import TYPE_CHECKING

from bot import errors
from bot.i18n import _
from bot.minecraft.selftest import run_selftest
from bot.operations.ranks import Rank

if TYPE_CHECKING:
    from bot.minecraft.installer import InstallReport
    from bot.minecraft.selftest import SelftestResult
    from bot.operations.base import Operations
    from bot.operations.caller import Caller
    from bot.operations.queue import ServerRef
    from bot.services import ServerServices


@dataclass(frozen=True)
class SetupOutcome:
    """What the installer did (`text`, prefixed when it could not verify the result). When
    `report.ok` the pack is in place and the faces prove it works there with `selftest` (said
    after this, so a slow server's selftest does not hold the setup's own answer back)."""

    server: ServerServices
    report: InstallReport
    text: str


@dataclass(frozen=True)
class Tested:
    server: ServerServices
    result: SelftestResult
    text: str  # the verdict line


def installable(ops: Operations, caller: Caller, req: ServerRef) -> ServerServices:
    """The server `setup` installs on, or the sentence why it cannot (before anything runs)."""
    ops.require(caller, Rank.ADMIN, "/setup")
    target = ops.server(req.server)
    if target.installer is None:
        raise errors.ValidationError(
            _(
                "{server} has no world_dir configured, so the pack cannot be installed from "
                "here: copy it into the world's datapacks folder, then run /status.",
                server=target.name,
            )
        )
    return target


async def setup(ops: Operations, caller: Caller, req: ServerRef) -> SetupOutcome:
    target = installable(ops, caller, req)
    assert target.installer is not None
    report = await target.installer.install()
    summary = report.summary()
    await ops.audit(caller, target, "setup", {}, summary)
    text = summary if report.ok else _("Not verified. ") + summary
    return SetupOutcome(target, report, text)


async def selftest(ops: Operations, caller: Caller, req: ServerRef) -> Tested:
    ops.require(caller, Rank.ADMIN, "/selftest")
    target = ops.server(req.server)
    result = await run_selftest(target)
    verdict = result.lines()[-1]
    await ops.audit(caller, target, "selftest", {}, verdict)
    return Tested(target, result, verdict)
