"""`python -m bot export` and `python -m bot import FILE`: the plan file from a shell, through
the same operations (bot.operations.plan) as the dashboard, audited as the console's.

The one running these has the bot's settings and data folder, so acts as an admin. A running
bot's scheduler reads its rows at start: rows imported from a shell while it runs are armed at
its next start (import from the dashboard to have them armed at once).
"""

from __future__ import annotations

__all__ = ["export", "import_file"]

import asyncio
import sys
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from bot.cli import shell_caller
from bot.errors import BotError
from bot.i18n import _
from bot.operations import Operations, plan
from bot.operations.base import StoreAuditor

if TYPE_CHECKING:
    from bot.config import Settings


async def export(settings: Settings, only: str | None, out: TextIO) -> int:
    from bot.services import build_services

    services = await build_services(settings)
    try:
        ops = Operations(services, StoreAuditor(services))
        made = await plan.export(ops, shell_caller(), plan.ExportRequest(server=only))
        out.write(made.text)
        return 0
    finally:
        await services.close()


def import_file(
    settings: Settings, only: str | None, file: Path | None, dry_run: bool, out: TextIO
) -> int:
    """Read the file (2 when it cannot be read), then import it (1 when it is refused)."""
    assert file is not None
    try:
        text = sys.stdin.read() if str(file) == "-" else file.read_text(encoding="utf-8")
    except OSError as exc:
        print(_("Cannot read {file}: {error}", file=str(file), error=exc.strerror), file=sys.stderr)
        return 2
    return asyncio.run(_import(settings, only, text, dry_run, out))


async def _import(
    settings: Settings, only: str | None, text: str, dry_run: bool, out: TextIO
) -> int:
    from bot.services import build_services

    services = await build_services(settings)
    try:
        ops = Operations(services, StoreAuditor(services))
        request = plan.ImportRequest(document=text, server=only, dry_run=dry_run)
        try:
            done = await plan.import_plan(ops, shell_caller(), request)
        except BotError as exc:
            print(exc, file=sys.stderr)
            return 1
        print(done.text, file=out)
        return 0
    finally:
        await services.close()
