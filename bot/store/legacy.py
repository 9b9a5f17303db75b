"""The SQLite schema as the bot kept it before the store moved to SQLAlchemy: each component's
numbered scripts, recorded in ``schema_versions``. Frozen: an older data dir is first brought to
the last of these steps here, then moved on by the Alembic migrations (bot.store.db). Nothing
new goes here."""

from __future__ import annotations

__all__ = ["LEGACY_STEPS"]

LEGACY_STEPS: dict[str, list[str]] = {
    "audit": [
        """
CREATE TABLE IF NOT EXISTS mutations (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    time TEXT NOT NULL,          -- ISO 8601, UTC
    user_id INTEGER NOT NULL,
    user_name TEXT NOT NULL,
    server TEXT NOT NULL,
    action TEXT NOT NULL,
    request TEXT NOT NULL,       -- JSON object
    outcome TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS mutations_server_time ON mutations (server, id);
CREATE TABLE IF NOT EXISTS cursors (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL,         -- JSON
    updated TEXT NOT NULL
);
""",
        "ALTER TABLE mutations ADD COLUMN face TEXT NOT NULL DEFAULT '';",
    ],
    "access": [
        """
CREATE TABLE api_tokens (
    name TEXT PRIMARY KEY,
    rank TEXT NOT NULL,               -- 'moderator' or 'admin'
    secret_sha256 TEXT NOT NULL UNIQUE,
    created_at REAL NOT NULL,         -- UTC epoch seconds
    last_used_at REAL
);
CREATE TABLE login_codes (
    secret_sha256 TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    rank TEXT NOT NULL,
    expires_at REAL NOT NULL
);
""",
    ],
    "calendar_feeds": [
        """
CREATE TABLE calendar_feeds (
    scope TEXT PRIMARY KEY,        -- a server's name, or '*' for every server
    secret_sha256 TEXT NOT NULL UNIQUE,
    created_by_id INTEGER NOT NULL,
    created_by_name TEXT NOT NULL,
    created_at REAL NOT NULL       -- UTC epoch seconds
);
""",
    ],
    "event_log": [
        """
CREATE TABLE event_log (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    server TEXT NOT NULL,
    seq INTEGER NOT NULL,
    type TEXT NOT NULL,
    task_id TEXT NOT NULL,
    game_time INTEGER NOT NULL,
    details TEXT NOT NULL        -- JSON object of strings
);
""",
    ],
    "guild_events": [
        """
CREATE TABLE guild_events (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    server TEXT NOT NULL,
    guild_id INTEGER NOT NULL,
    discord_id INTEGER,            -- the guild scheduled event; NULL until Discord made it
    name TEXT NOT NULL,
    description TEXT,
    location TEXT NOT NULL,
    start REAL NOT NULL,           -- UTC epoch seconds
    end REAL NOT NULL,
    start_run TEXT NOT NULL,
    end_run TEXT NOT NULL,
    announce TEXT NOT NULL DEFAULT '',        -- seconds before start, comma separated
    reminders TEXT NOT NULL DEFAULT '',       -- seconds before start, comma separated
    reminders_sent TEXT NOT NULL DEFAULT '',  -- the offsets already posted
    repeat TEXT,                   -- as /schedule's `repeat`: an interval or a cron expression
    anchor REAL,                   -- the first occurrence's start, the grid of `repeat`
    timezone TEXT NOT NULL,
    start_task INTEGER,            -- wall-clock schedule ids
    end_task INTEGER,
    state TEXT NOT NULL CHECK (state IN ('creating', 'scheduled', 'active', 'completed',
                                         'cancelled')),
    interested INTEGER NOT NULL DEFAULT 0,
    occurrence INTEGER NOT NULL DEFAULT 1,
    previous_id INTEGER REFERENCES guild_events (id),
    created_by_id INTEGER NOT NULL,
    created_by_name TEXT NOT NULL,
    created_at REAL NOT NULL,
    checked TEXT NOT NULL DEFAULT '',         -- 'start', 'end': outcomes already looked at
    revision INTEGER NOT NULL DEFAULT 0       -- times the tasks were moved (part of their ids)
);
CREATE UNIQUE INDEX guild_events_discord ON guild_events (discord_id)
    WHERE discord_id IS NOT NULL;
CREATE INDEX guild_events_state ON guild_events (state, start);
""",
        """
ALTER TABLE guild_events ADD COLUMN conditions TEXT;  -- JSON: the start task's require, ...
""",
    ],
    "ledger": [
        """
CREATE TABLE ledger_tasks (
    key INTEGER PRIMARY KEY AUTOINCREMENT,
    server TEXT NOT NULL,
    task_id TEXT NOT NULL,
    n INTEGER NOT NULL,           -- the pack's serial of this instance
    run TEXT NOT NULL,
    request TEXT NOT NULL,        -- JSON: what was sent ({} for tasks made in game)
    acked_at INTEGER NOT NULL,    -- game time when the server acknowledged it
    due INTEGER NOT NULL,         -- due tick (paused: when paused)
    interval INTEGER,             -- ticks, repeating tasks only
    as_player TEXT,
    own INTEGER NOT NULL,         -- 1: the bot scheduled it; 0: made in game, changed by the bot
    state TEXT NOT NULL,          -- queue | offline | paused | cancelled | done | replaced
    last_op TEXT NOT NULL,        -- schedule | cancel_one | cancel_all | clear | pause | resume
    remaining INTEGER,            -- paused: ticks left
    changed_at INTEGER NOT NULL   -- game time of the last change
);
CREATE INDEX ledger_tasks_server ON ledger_tasks (server, state);
CREATE TABLE ledger_ops (
    key INTEGER PRIMARY KEY AUTOINCREMENT,
    server TEXT NOT NULL,
    op TEXT NOT NULL,
    task_id TEXT,
    game_time INTEGER NOT NULL,
    count INTEGER NOT NULL,
    serial INTEGER NOT NULL,      -- the pack's serial counter just after
    settled INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX ledger_ops_server ON ledger_ops (server, key);
CREATE TABLE ledger_servers (
    server TEXT PRIMARY KEY,
    last_time INTEGER NOT NULL,   -- the highest game time the bot saw
    last_serial INTEGER NOT NULL, -- the highest task serial the bot saw
    pending TEXT                  -- JSON: a restore that has not finished
);
""",
        """
ALTER TABLE ledger_tasks ADD COLUMN bkey TEXT;     -- the bot's key of the task (the pack's k)
ALTER TABLE ledger_tasks ADD COLUMN ran_at INTEGER; -- game time of its last run the log said
CREATE INDEX ledger_tasks_bkey ON ledger_tasks (server, bkey);
CREATE TABLE ledger_early (       -- events of a key read before its acknowledgement was recorded
    server TEXT NOT NULL,
    bkey TEXT NOT NULL,
    type TEXT NOT NULL,
    game_time INTEGER NOT NULL
);
""",
        """
ALTER TABLE ledger_servers ADD COLUMN read_time INTEGER; -- game time of the last whole read
ALTER TABLE ledger_servers ADD COLUMN read_at REAL;      -- wall-clock seconds of that read
ALTER TABLE ledger_servers ADD COLUMN read_rate REAL;    -- ticks a second between the last two
ALTER TABLE ledger_servers ADD COLUMN lost_at REAL;      -- the first failed read after it
""",
    ],
    "plugin_data": [
        """
CREATE TABLE plugin_data (
    plugin TEXT NOT NULL,
    key TEXT NOT NULL,
    value TEXT NOT NULL,  -- JSON
    PRIMARY KEY (plugin, key)
);
""",
    ],
    "schedules": [
        """
CREATE TABLE schedules (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    server TEXT NOT NULL,
    command TEXT NOT NULL,
    task_id TEXT NOT NULL,
    retry INTEGER NOT NULL DEFAULT 0,
    retry_delay INTEGER NOT NULL DEFAULT 1,
    as_player TEXT,
    kind TEXT NOT NULL CHECK (kind IN ('at', 'every', 'cron')),
    at REAL,                      -- kind at: the instant
    every INTEGER,                -- kind every: seconds
    anchor REAL,                  -- kind every: boundaries are anchor + k*every
    cron TEXT,                    -- kind cron: 5 fields read in `timezone`
    timezone TEXT NOT NULL,
    missed TEXT NOT NULL CHECK (missed IN ('skip', 'once')),
    announce TEXT NOT NULL DEFAULT '',   -- seconds before each run, comma separated
    created_by_id INTEGER NOT NULL,
    created_by_name TEXT NOT NULL,
    created_at REAL NOT NULL,
    state TEXT NOT NULL CHECK (state IN ('active', 'paused', 'done', 'cancelled', 'missed')),
    next_due REAL,
    last_due REAL,
    last_outcome TEXT,
    last_lateness REAL,
    run_count INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX schedules_due ON schedules (state, next_due);
CREATE INDEX schedules_server ON schedules (server, state, next_due);
CREATE INDEX schedules_task ON schedules (server, task_id, state);
CREATE TABLE schedule_runs (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    schedule_id INTEGER NOT NULL REFERENCES schedules (id),
    due REAL NOT NULL,
    handed_over REAL,             -- when the pack acknowledged the task
    ran_in_game REAL,             -- when the command ran in game, when known
    lateness REAL,                -- seconds from due to hand-over
    outcome TEXT NOT NULL         -- sending, ran, queued, waiting_player, missed, skipped, ...
);
CREATE INDEX schedule_runs_schedule ON schedule_runs (schedule_id, id);
CREATE INDEX schedule_runs_sending ON schedule_runs (outcome) WHERE outcome = 'sending';
""",
        """
ALTER TABLE schedule_runs ADD COLUMN triggered_by TEXT;  -- who ran it now; NULL: its schedule
ALTER TABLE schedule_runs ADD COLUMN attempts INTEGER NOT NULL DEFAULT 0;  -- hand-over attempts
ALTER TABLE schedule_runs ADD COLUMN serial INTEGER;  -- the pack's serial of the handed-over task
CREATE INDEX schedule_runs_due ON schedule_runs (due);
""",
        """
ALTER TABLE schedules ADD COLUMN conditions TEXT;  -- JSON: require, if_not, ...; NULL: none
""",
        """
ALTER TABLE schedules ADD COLUMN on_doubt TEXT;  -- 'run'; NULL: skip (the default)
""",
    ],
    "task_runs": [
        """
CREATE TABLE task_runs (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    server TEXT NOT NULL,
    task_id TEXT NOT NULL,
    due REAL NOT NULL,            -- when it was due (the run's time less its lateness)
    handed_over REAL,             -- a run-now copy: when the pack acknowledged it
    ran REAL,                     -- when it ran, when known
    lateness REAL,                -- seconds after its due that it ran
    outcome TEXT NOT NULL,        -- ran, queued, retry, retry_exhausted, offline, dropped, ...
    attempts INTEGER NOT NULL DEFAULT 1,
    triggered_by TEXT             -- who ran it now; NULL: it ran at its own time
);
CREATE INDEX task_runs_task ON task_runs (server, task_id, due);
CREATE INDEX task_runs_due ON task_runs (due);
""",
    ],
}
