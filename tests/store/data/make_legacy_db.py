"""Makes ``bot-2026-12.sqlite3``: a data dir's database as the bot left it before the store moved
to SQLAlchemy (the legacy scripts, run as that bot ran them, and rows of every table).

Run from the checkout: ``python tests/store/data/make_legacy_db.py``. The file is committed; this
says how it was made. It holds one planned run twice (a second process could do that then): the
upgrade must keep both rows and still make the rule that forbids it.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from bot.store.legacy import LEGACY_STEPS

HERE = Path(__file__).resolve().parent
OUT = HERE / "bot-2026-12.sqlite3"

ROWS = """
INSERT INTO mutations (time, user_id, user_name, server, action, request, outcome, face)
  VALUES ('2026-12-01T10:00:00+00:00', 412345678901234567, 'mod', 'main', 'schedule',
          '{"id": "fireworks"}', 'ok', 'discord');
INSERT INTO cursors (key, value, updated) VALUES ('log:main', '{"offset": 120}', '2026-12-01');
INSERT INTO api_tokens (name, rank, secret_sha256, created_at)
  VALUES ('ci', 'admin', 'ab12', 1.5e9);
INSERT INTO calendar_feeds VALUES ('*', 'cd34', 412345678901234567, 'admin', 1.7e9);
INSERT INTO event_log (server, seq, type, task_id, game_time, details)
  VALUES ('main', 1, 'ran', 'fireworks', 24000, '{}');
INSERT INTO plugin_data VALUES ('vote', 'polls', '[1, 2]');
INSERT INTO schedules (server, command, task_id, kind, every, anchor, timezone, missed,
                       created_by_id, created_by_name, created_at, state, next_due, conditions)
  VALUES ('main', 'say hello', 'hello', 'every', 3600, 1.7e9, 'UTC', 'skip',
          412345678901234567, 'mod', 1.7e9, 'active', 1700007200.0, NULL);
INSERT INTO schedule_runs (schedule_id, due, handed_over, lateness, outcome, attempts, serial)
  VALUES (1, 1700003600.0, 1700003600.4, 0.4, 'ran', 1, 7);
INSERT INTO schedule_runs (schedule_id, due, handed_over, lateness, outcome, attempts, serial)
  VALUES (1, 1700003600.0, 1700003601.0, 1.0, 'ran', 1, 8);
INSERT INTO schedule_runs (schedule_id, due, outcome, triggered_by)
  VALUES (1, 1700003600.0, 'ran', 'mod');
INSERT INTO task_runs (server, task_id, due, ran, lateness, outcome)
  VALUES ('main', 'fireworks', 1.7e9, 1.7e9, 0.0, 'ran');
INSERT INTO guild_events (server, guild_id, discord_id, name, location, start, end, start_run,
                          end_run, timezone, state, created_by_id, created_by_name, created_at)
  VALUES ('main', 1, 998877665544332211, 'Build night', 'main', 1.8e9, 1.8e9 + 3600, 'say go',
          'say stop', 'Europe/Paris', 'scheduled', 412345678901234567, 'mod', 1.7e9);
INSERT INTO ledger_tasks (server, task_id, n, run, request, acked_at, due, own, state, last_op,
                          changed_at, bkey)
  VALUES ('main', 'fireworks', 3, 'say boom', '{}', 100, 200, 1, 'queue', 'schedule', 100, 'b1');
INSERT INTO ledger_ops (server, op, task_id, game_time, count, serial)
  VALUES ('main', 'schedule', 'fireworks', 100, 1, 3);
INSERT INTO ledger_servers (server, last_time, last_serial, read_time, read_at)
  VALUES ('main', 150, 3, 150, 1.7e9);
INSERT INTO ledger_early (server, bkey, type, game_time) VALUES ('main', 'b2', 'ran', 140);
INSERT INTO ledger_early (server, bkey, type, game_time) VALUES ('main', 'b2', 'done', 141);
"""


def main() -> None:
    OUT.unlink(missing_ok=True)
    db = sqlite3.connect(OUT, isolation_level=None)
    db.execute(
        "CREATE TABLE schema_versions (component TEXT PRIMARY KEY, version INTEGER NOT NULL)"
    )
    for component, steps in LEGACY_STEPS.items():
        for version, script in enumerate(steps, start=1):
            db.executescript(
                f"BEGIN;\n{script}\nINSERT INTO schema_versions VALUES ('{component}', {version})"
                " ON CONFLICT(component) DO UPDATE SET version = excluded.version;\nCOMMIT;"
            )
    db.executescript(ROWS)
    db.execute("VACUUM")
    db.close()


if __name__ == "__main__":
    main()
