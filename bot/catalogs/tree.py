"""The slash command tree of a bot that never logs in, every extension loaded.

The catalogs' CLI (``python -m bot.catalogs``) reads its strings for the template and prints it
as the golden tree. Building a bot needs the whole application, so this sits above it, apart
from ``bot.i18n``, which every layer imports.
"""

from __future__ import annotations

__all__ = ["tree_payload", "tree_strings"]

import asyncio
import tempfile
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, TypeVar

from bot.config import Settings
from bot.discord.app import DoomBot
from bot.discord.slash.translator import DoomTranslator, tree_messages
from bot.services import Services
from bot.store.audit import AuditStore

T = TypeVar("T")


def _with_tree(read: Callable[[Any], Awaitable[T]]) -> T:
    """``read(tree)`` on the command tree of a bot that never logs in (every extension loaded)."""

    async def run() -> T:
        with tempfile.TemporaryDirectory() as tmp:
            settings = Settings(_env_file=None, data_dir=Path(tmp))  # type: ignore[call-arg]
            services = Services(settings, {}, AuditStore(Path(tmp) / "extract.sqlite3"))
            bot = DoomBot(settings, services)
            try:
                await bot.tree.set_translator(DoomTranslator())
                bot.add_registered_commands()
                for name in settings.extensions:
                    try:
                        await bot.load_extension(name)
                    except Exception as exc:  # the catalog would miss its commands: say so
                        raise SystemExit(f"cannot load {name} to read its commands: {exc}") from exc
                return await read(bot.tree)
            finally:
                await bot.close()

    return asyncio.run(run())


def tree_strings() -> list[tuple[str, str | None, str]]:
    """(message, context, where) of every command tree string."""

    async def read(tree: Any) -> list[tuple[str, str | None, str]]:
        return [(m.message, m.context, m.where) for m in tree_messages(tree)]

    return _with_tree(read)


def tree_payload() -> dict[str, Any]:
    """Every command as ``CommandTree.sync`` sends it, with its zh-CN (and other) localizations."""

    async def read(tree: Any) -> dict[str, Any]:
        return {
            c.name: await c.get_translated_payload(tree, tree.translator)
            for c in tree.get_commands()
        }

    return _with_tree(read)
