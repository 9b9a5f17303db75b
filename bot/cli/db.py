"""``python -m bot db copy URL``: the bot's database copied into another one (the data dir's
SQLite file into PostgreSQL, when moving to several processes), checked row by row.

The copy is one transaction on the target: every table in the order its references need, the
PostgreSQL id sequences moved past the copied ids, then every row read back and compared with
its source; any difference rolls it all back, so the target is either the whole copy or as
it was. The target must be empty (a fresh database, or one only the bot's schema is in): a copy
never merges. The source is read in one transaction (one snapshot) while this command holds the
data folder, so no bot writes to it meanwhile.
"""

from __future__ import annotations

__all__ = ["copy", "db_command"]

from typing import Any, TextIO

from sqlalchemy import Table, func, insert, select, text

from bot.errors import BotError
from bot.i18n import _
from bot.store.db import Database, settings_database
from bot.store.tables import metadata

CHUNK = 1000  # rows a statement: bounded memory, few round trips


async def db_command(settings: Any, words: list[str], out: TextIO) -> int:
    if len(words) != 2 or words[0] != "copy":
        raise BotError(
            _(
                "db: say what to do, e.g. python -m bot db copy postgresql://user:password@host/db"
                " (copies this bot's database there, checked row by row)."
            )
        )
    source = settings_database(settings)
    target = Database(words[1])
    try:
        counts = await copy(source, target)
    finally:
        await source.close()
        await target.close()
    total = sum(counts.values())
    for name, count in counts.items():
        print(f"{name}: {count}", file=out)
    print(
        _(
            "Copied {rows} rows of {tables} tables into {target}, each checked against its"
            " source. Set DOOM_DATABASE_URL to it to use it.",
            rows=total,
            tables=len(counts),
            target=target.url.render_as_string(hide_password=True),
        ),
        file=out,
    )
    return 0


async def copy(source: Database, target: Database) -> dict[str, int]:
    """Every table of `source` into the empty `target`; the rows copied per table."""
    if source.url == target.url:
        raise BotError(_("db copy: the target is the bot's own database; name another one."))
    await source.ready()
    await target.ready()
    tables = [t for t in metadata.sorted_tables]
    counts: dict[str, int] = {}
    async with source.connect() as src, target.begin() as dst:
        for table in tables:
            there = (await dst.execute(select(func.count()).select_from(table))).scalar_one()
            if there:
                raise BotError(
                    _(
                        "db copy: the target already has rows ({count} in {table}); a copy goes"
                        " into an empty database only, nothing was copied.",
                        count=there,
                        table=table.name,
                    )
                )
        for table in tables:
            rows = await _rows(src, table)
            for start in range(0, len(rows), CHUNK):
                await dst.execute(insert(table), rows[start : start + CHUNK])
            if not target.is_sqlite:
                await _move_sequences(dst, table)
            copied = await _rows(dst, table)
            if copied != rows:
                raise BotError(
                    _(
                        "db copy: {table} did not read back as it was written; nothing was copied.",
                        table=table.name,
                    )
                )
            counts[table.name] = len(rows)
    return counts


async def _rows(conn: Any, table: Table) -> list[dict[str, Any]]:
    order = list(table.primary_key.columns) or list(table.columns)
    result = await conn.execute(select(table).order_by(*order))
    return [dict(row) for row in result.mappings()]


async def _move_sequences(conn: Any, table: Table) -> None:
    """PostgreSQL numbers new ids from a sequence: past the copied ones."""
    for column in table.primary_key.columns:
        if column.autoincrement is True:
            await conn.execute(
                text(
                    f"SELECT setval(pg_get_serial_sequence('{table.name}', '{column.name}'),"
                    f' COALESCE((SELECT max("{column.name}") FROM "{table.name}"), 0) + 1,'
                    " false)"
                )
            )
