"""``python -m bot db copy URL``: an older bot's SQLite file into PostgreSQL, row by row."""

from __future__ import annotations

import asyncio
import io
import logging
import shutil
from pathlib import Path
from typing import Any

from sqlalchemy import func, insert, select

from bot.__main__ import main
from bot.store.db import DB_FILE, Database
from bot.store.tables import metadata, mutations, schedule_runs

LEGACY_FILE = Path(__file__).resolve().parent / "data" / "bot-2026-12.sqlite3"


def _run(tmp_path: Path, *words: str) -> tuple[int, str]:
    env = tmp_path / ".env"
    env.write_text(f"DOOM_DATA_DIR={tmp_path / 'data'}\n")
    out = io.StringIO()
    root = logging.getLogger()
    handlers, level = root.handlers[:], root.level
    try:
        return main(["db", *words, "--env-file", str(env)], out=out), out.getvalue()
    finally:
        # main() sets the root logger to this test's captured stderr, which pytest closes
        # after the test: later tests' log lines would then print "Logging error" traces
        root.handlers[:] = handlers
        root.setLevel(level)
        logging.captureWarnings(False)


async def _all_rows(db: Database) -> dict[str, list[dict[str, Any]]]:
    rows: dict[str, list[dict[str, Any]]] = {}
    async with db.connect() as conn:
        for table in metadata.sorted_tables:
            order = list(table.primary_key.columns) or list(table.columns)
            result = await conn.execute(select(table).order_by(*order))
            rows[table.name] = [dict(r) for r in result.mappings()]
    return rows


def test_an_older_bots_file_is_copied_whole_and_the_copy_numbers_on(
    tmp_path: Path, postgres: Any, capsys: Any
) -> None:
    (tmp_path / "data").mkdir()
    shutil.copy(LEGACY_FILE, tmp_path / "data" / DB_FILE)
    url = postgres.new_database()
    code, said = _run(tmp_path, "copy", url)
    assert code == 0, capsys.readouterr().err
    assert "schedule_runs: 3" in said and "each checked against its source" in said
    asyncio.run(_same_and_numbered_on(tmp_path / "data" / DB_FILE, url))


async def _same_and_numbered_on(path: Path, url: str) -> None:
    source, target = Database(path), Database(url)
    assert await _all_rows(target) == await _all_rows(source)
    # PostgreSQL numbers the next row after the copied ones
    async with target.begin() as conn:
        new_id = (
            await conn.execute(
                insert(mutations)
                .values(
                    time="2026-12-07",
                    user_id=1,
                    user_name="x",
                    server="main",
                    action="a",
                    request="{}",
                    outcome="ok",
                )
                .returning(mutations.c.id)
            )
        ).scalar_one()
    assert new_id == 2
    await source.close()
    await target.close()


def test_a_target_with_rows_is_refused_and_left_as_it_was(
    tmp_path: Path, postgres: Any, capsys: Any
) -> None:
    (tmp_path / "data").mkdir()
    shutil.copy(LEGACY_FILE, tmp_path / "data" / DB_FILE)
    url = postgres.new_database()
    assert _run(tmp_path, "copy", url)[0] == 0
    code, _ = _run(tmp_path, "copy", url)
    err = capsys.readouterr().err
    assert code == 2 and "already has rows" in err and "nothing was copied" in err
    assert asyncio.run(_count_runs(url)) == 3  # not doubled


async def _count_runs(url: str) -> int:
    target = Database(url)
    async with target.connect() as conn:
        count = (await conn.execute(select(func.count()).select_from(schedule_runs))).scalar()
    await target.close()
    return int(count or 0)


def test_db_without_copy_says_how(tmp_path: Path, capsys: Any) -> None:
    assert _run(tmp_path, "move")[0] == 2
    assert "python -m bot db copy postgresql://" in capsys.readouterr().err
