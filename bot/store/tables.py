"""Every table of the bot's database, declared once for both engines (SQLite and PostgreSQL).

The stores build their queries from these (SQLAlchemy Core), so one query runs on either engine.
A fresh database is made from :data:`metadata` and stamped with the newest migration; a database
made before is moved forward by the migrations in ``bot/store/migrations`` (bot.store.db).
Columns keep the names and meanings of the SQLite schema the bot used before, so a data dir of
an older bot is upgraded in place.

Integers are 64-bit (Discord ids, game ticks); an id that the database numbers is SQLite's
``INTEGER PRIMARY KEY AUTOINCREMENT`` (never reused, as before) or PostgreSQL's ``BIGSERIAL``.
Times are epoch seconds in ``Float`` (double precision on both).

The rules that keep a run from happening twice are unique indexes here, not locks in a process:
one row per planned run of a schedule, one live schedule per server and task id, one ledger row
per task key, one holder per lease.
"""

from __future__ import annotations

__all__ = [
    "Id",
    "Int",
    "access_tokens",
    "api_tokens",
    "calendar_feeds",
    "cursors",
    "event_log",
    "guild_events",
    "leases",
    "ledger_early",
    "ledger_ops",
    "ledger_servers",
    "ledger_tasks",
    "login_codes",
    "metadata",
    "mutations",
    "plugin_data",
    "program_repeat_runs",
    "program_repeats",
    "program_runs",
    "program_steps",
    "programs",
    "rate_limits",
    "schedule_runs",
    "schedules",
    "task_runs",
    "trigger_fires",
    "triggers",
    "web_keys",
    "web_links_spent",
    "web_sessions",
]

from sqlalchemy import (
    BigInteger,
    CheckConstraint,
    Column,
    Float,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    Table,
    Text,
    text,
)

metadata = MetaData()

# 64-bit on PostgreSQL; SQLite's INTEGER is 64-bit already and only INTEGER PRIMARY KEY is the
# rowid that AUTOINCREMENT numbers
Int = BigInteger().with_variant(Integer(), "sqlite")
Id = Int


def _id() -> Column[int]:
    return Column("id", Id, primary_key=True, autoincrement=True)


mutations = Table(
    "mutations",
    metadata,
    _id(),
    Column("time", Text, nullable=False),  # ISO 8601, UTC
    Column("user_id", Int, nullable=False),
    Column("user_name", Text, nullable=False),
    Column("server", Text, nullable=False),
    Column("action", Text, nullable=False),
    Column("request", Text, nullable=False),  # JSON object
    Column("outcome", Text, nullable=False),
    Column("face", Text, nullable=False, server_default=""),
    Index("mutations_server_time", "server", "id"),
    sqlite_autoincrement=True,
)

cursors = Table(
    "cursors",
    metadata,
    Column("key", Text, primary_key=True),
    Column("value", Text, nullable=False),  # JSON
    Column("updated", Text, nullable=False),
)

api_tokens = Table(
    "api_tokens",
    metadata,
    Column("name", Text, primary_key=True),
    Column("rank", Text, nullable=False),  # 'moderator' or 'admin'
    Column("secret_sha256", Text, nullable=False, unique=True),
    Column("created_at", Float, nullable=False),
    Column("last_used_at", Float),
)
access_tokens = api_tokens

login_codes = Table(
    "login_codes",
    metadata,
    Column("secret_sha256", Text, primary_key=True),
    Column("name", Text, nullable=False),
    Column("rank", Text, nullable=False),
    Column("expires_at", Float, nullable=False),
)

calendar_feeds = Table(
    "calendar_feeds",
    metadata,
    Column("scope", Text, primary_key=True),  # a server's name, or '*' for every server
    Column("secret_sha256", Text, nullable=False, unique=True),
    Column("created_by_id", Int, nullable=False),
    Column("created_by_name", Text, nullable=False),
    Column("created_at", Float, nullable=False),
)

event_log = Table(
    "event_log",
    metadata,
    _id(),
    Column("server", Text, nullable=False),
    Column("seq", Int, nullable=False),
    Column("type", Text, nullable=False),
    Column("task_id", Text, nullable=False),
    Column("game_time", Int, nullable=False),
    Column("details", Text, nullable=False),  # JSON object of strings
    sqlite_autoincrement=True,
)

guild_events = Table(
    "guild_events",
    metadata,
    _id(),
    Column("server", Text, nullable=False),
    Column("guild_id", Int, nullable=False),
    Column("discord_id", Int),  # the guild scheduled event; NULL until Discord made it
    Column("name", Text, nullable=False),
    Column("description", Text),
    Column("location", Text, nullable=False),
    Column("start", Float, nullable=False),
    Column("end", Float, nullable=False),
    Column("start_run", Text, nullable=False),
    Column("end_run", Text, nullable=False),
    Column("announce", Text, nullable=False, server_default=""),
    Column("reminders", Text, nullable=False, server_default=""),
    Column("reminders_sent", Text, nullable=False, server_default=""),
    Column("repeat", Text),
    Column("anchor", Float),
    Column("timezone", Text, nullable=False),
    Column("start_task", Int),
    Column("end_task", Int),
    Column("state", Text, nullable=False),
    Column("interested", Int, nullable=False, server_default="0"),
    Column("occurrence", Int, nullable=False, server_default="1"),
    Column("previous_id", Id, ForeignKey("guild_events.id")),
    Column("created_by_id", Int, nullable=False),
    Column("created_by_name", Text, nullable=False),
    Column("created_at", Float, nullable=False),
    Column("checked", Text, nullable=False, server_default=""),
    Column("revision", Int, nullable=False, server_default="0"),
    Column("conditions", Text),  # JSON: the start task's require, ...
    CheckConstraint(
        "state IN ('creating', 'scheduled', 'active', 'completed', 'cancelled')",
        name="guild_events_state_check",
    ),
    Index(
        "guild_events_discord",
        "discord_id",
        unique=True,
        sqlite_where=text("discord_id IS NOT NULL"),
        postgresql_where=text("discord_id IS NOT NULL"),
    ),
    Index("guild_events_state", "state", "start"),
    sqlite_autoincrement=True,
)

ledger_tasks = Table(
    "ledger_tasks",
    metadata,
    Column("key", Id, primary_key=True, autoincrement=True),
    Column("server", Text, nullable=False),
    Column("task_id", Text, nullable=False),
    Column("n", Int, nullable=False),  # the pack's serial of this instance
    Column("run", Text, nullable=False),
    Column("request", Text, nullable=False),  # JSON: what was sent ({} for tasks made in game)
    Column("acked_at", Int, nullable=False),
    Column("due", Int, nullable=False),
    Column("interval", Int),
    Column("as_player", Text),
    Column("own", Int, nullable=False),  # 1: the bot scheduled it
    Column("state", Text, nullable=False),
    Column("last_op", Text, nullable=False),
    Column("remaining", Int),
    Column("changed_at", Int, nullable=False),
    Column("bkey", Text),  # the bot's key of the task (the pack's k)
    Column("ran_at", Int),
    Index("ledger_tasks_server", "server", "state"),
    # one row per key the bot gave a task: a second acknowledgement of it updates that row
    Index(
        "ledger_tasks_bkey_unique",
        "server",
        "bkey",
        unique=True,
        sqlite_where=text("bkey IS NOT NULL"),
        postgresql_where=text("bkey IS NOT NULL"),
    ),
    sqlite_autoincrement=True,
)

ledger_ops = Table(
    "ledger_ops",
    metadata,
    Column("key", Id, primary_key=True, autoincrement=True),
    Column("server", Text, nullable=False),
    Column("op", Text, nullable=False),
    Column("task_id", Text),
    Column("game_time", Int, nullable=False),
    Column("count", Int, nullable=False),
    Column("serial", Int, nullable=False),  # the pack's serial counter just after
    Column("settled", Int, nullable=False, server_default="0"),
    Index("ledger_ops_server", "server", "key"),
    sqlite_autoincrement=True,
)

ledger_servers = Table(
    "ledger_servers",
    metadata,
    Column("server", Text, primary_key=True),
    Column("last_time", Int, nullable=False),
    Column("last_serial", Int, nullable=False),
    Column("pending", Text),  # JSON: a restore that has not finished
    Column("read_time", Int),
    Column("read_at", Float),
    Column("read_rate", Float),
    Column("lost_at", Float),
)

ledger_early = Table(
    "ledger_early",
    metadata,
    _id(),  # the order the events were read in
    Column("server", Text, nullable=False),
    Column("bkey", Text, nullable=False),
    Column("type", Text, nullable=False),
    Column("game_time", Int, nullable=False),
    sqlite_autoincrement=True,
)

plugin_data = Table(
    "plugin_data",
    metadata,
    Column("plugin", Text, primary_key=True),
    Column("key", Text, primary_key=True),
    Column("value", Text, nullable=False),  # JSON
)

schedules = Table(
    "schedules",
    metadata,
    _id(),
    Column("server", Text, nullable=False),
    Column("command", Text, nullable=False),
    Column("task_id", Text, nullable=False),
    Column("retry", Int, nullable=False, server_default="0"),
    Column("retry_delay", Int, nullable=False, server_default="1"),
    Column("as_player", Text),
    Column("kind", Text, nullable=False),
    Column("at", Float),
    Column("every", Int),
    Column("anchor", Float),
    Column("cron", Text),
    Column("timezone", Text, nullable=False),
    Column("missed", Text, nullable=False),
    Column("announce", Text, nullable=False, server_default=""),
    Column("created_by_id", Int, nullable=False),
    Column("created_by_name", Text, nullable=False),
    Column("created_at", Float, nullable=False),
    Column("state", Text, nullable=False),
    Column("next_due", Float),
    Column("last_due", Float),
    Column("last_outcome", Text),
    Column("last_lateness", Float),
    Column("run_count", Int, nullable=False, server_default="0"),
    Column("conditions", Text),  # JSON: require, if_not, ...; NULL: none
    Column("on_doubt", Text),  # 'run'; NULL: skip (the default)
    # what a repeating row does when the clocks change (bot.times.dst); NULL: the default
    Column("dst_repeated", Text),  # 'first', 'second' or 'both'
    Column("dst_skipped", Text),  # 'shift' or 'skip'
    CheckConstraint("kind IN ('at', 'every', 'cron')", name="schedules_kind_check"),
    CheckConstraint("missed IN ('skip', 'once')", name="schedules_missed_check"),
    CheckConstraint(
        "state IN ('active', 'paused', 'done', 'cancelled', 'missed')",
        name="schedules_state_check",
    ),
    Index("schedules_due", "state", "next_due"),
    Index("schedules_server", "server", "state", "next_due"),
    Index("schedules_task", "server", "task_id", "state"),
    # one live schedule per server and task id, whichever process adds it
    Index(
        "schedules_live",
        "server",
        "task_id",
        unique=True,
        sqlite_where=text("state IN ('active', 'paused')"),
        postgresql_where=text("state IN ('active', 'paused')"),
    ),
    sqlite_autoincrement=True,
)

schedule_runs = Table(
    "schedule_runs",
    metadata,
    _id(),
    Column("schedule_id", Id, ForeignKey("schedules.id"), nullable=False),
    Column("due", Float, nullable=False),
    Column("handed_over", Float),  # when the pack acknowledged the task
    Column("ran_in_game", Float),
    Column("lateness", Float),
    Column("outcome", Text, nullable=False),
    Column("triggered_by", Text),  # who ran it now; NULL: its schedule
    Column("attempts", Int, nullable=False, server_default="0"),
    Column("serial", Int),  # the pack's serial of the handed-over task
    Index("schedule_runs_schedule", "schedule_id", "id"),
    Index(
        "schedule_runs_sending",
        "outcome",
        sqlite_where=text("outcome = 'sending'"),
        postgresql_where=text("outcome = 'sending'"),
    ),
    Index("schedule_runs_due", "due"),
    # one row per planned run: a second process that plans the same run loses the insert
    Index(
        "schedule_runs_planned",
        "schedule_id",
        "due",
        unique=True,
        sqlite_where=text("triggered_by IS NULL"),
        postgresql_where=text("triggered_by IS NULL"),
    ),
    sqlite_autoincrement=True,
)

task_runs = Table(
    "task_runs",
    metadata,
    _id(),
    Column("server", Text, nullable=False),
    Column("task_id", Text, nullable=False),
    Column("due", Float, nullable=False),
    Column("handed_over", Float),
    Column("ran", Float),
    Column("lateness", Float),
    Column("outcome", Text, nullable=False),
    Column("attempts", Int, nullable=False, server_default="1"),
    Column("triggered_by", Text),
    Index("task_runs_task", "server", "task_id", "due"),
    Index("task_runs_due", "due"),
    sqlite_autoincrement=True,
)

# who does a server's background work, which process is connected to Discord, which processes
# are alive: one row per name,
# held until `expires` unless renewed; `token` grows on every change of holder, and a write made
# for a lease carries the token it was made under (fencing: bot.store.leases)
leases = Table(
    "leases",
    metadata,
    # 'server:<name>', 'discord:gateway' or 'member:<process>'
    Column("name", Text, primary_key=True),
    Column("holder", Text, nullable=False),  # the process: host, pid and a random part
    Column("token", Int, nullable=False),
    Column("expires", Float, nullable=False),  # the database's clock, epoch seconds
    Column("acquired", Float, nullable=False),
)

# the dashboard's state, shared by every process that serves it (bot.store.web_sessions)

# the key that signs the dashboard's cookies, links and tokens: made once, read by every process
web_keys = Table(
    "web_keys",
    metadata,
    Column("name", Text, primary_key=True),  # 'signing'
    Column("value", Text, nullable=False),  # hex
    Column("created", Float, nullable=False),
)

# a logged-in browser: only its id's SHA-256 is kept, so a copy of the database opens nothing
web_sessions = Table(
    "web_sessions",
    metadata,
    Column("sid_sha256", Text, primary_key=True),
    Column("user_id", Int, nullable=False),
    Column("guild_id", Int, nullable=False),
    Column("name", Text, nullable=False),
    Column("rank", Int),  # the fixed rank of a login made without Discord; NULL: Discord's roles
    Column("seen_rank", Int),  # the rank Discord's roles gave when last asked
    Column("seen_at", Float),
    Column("csrf", Text, nullable=False),  # the secret its forms' tokens sign
    Column("flashes", Text, nullable=False, server_default="[]"),  # JSON [[category, text]]
    Column("expires", Float, nullable=False),
    Index("web_sessions_expires", "expires"),
)

# the nonces of /dashboard links already used: a link is good once, whichever process opens it
web_links_spent = Table(
    "web_links_spent",
    metadata,
    Column("nonce_sha256", Text, primary_key=True),
    Column("expires", Float, nullable=False),  # kept until the link would have expired anyway
)

# the dashboard's rate limits (GCRA): the theoretical arrival time of each limit's key
rate_limits = Table(
    "rate_limits",
    metadata,
    Column("key", Text, primary_key=True),
    Column("tat", Float, nullable=False),  # epoch seconds, the wall clock
    Index("rate_limits_tat", "tat"),
)

# programs (bot.programs): each save of a name is a new version; a run keeps the version it
# started with, and each of its steps is a one-shot planned row once made (`schedule_id`)
programs = Table(
    "programs",
    metadata,
    _id(),
    Column("name", Text, nullable=False),
    Column("version", Int, nullable=False),
    Column("steps", Text, nullable=False),  # JSON: the steps as given (bot.programs.model)
    Column("created_by_id", Int, nullable=False),
    Column("created_by_name", Text, nullable=False),
    Column("created_at", Float, nullable=False),
    # one row per version, whichever process saves it
    Index("programs_version", "name", "version", unique=True),
    sqlite_autoincrement=True,
)

program_runs = Table(
    "program_runs",
    metadata,
    _id(),
    Column("program", Text, nullable=False),
    Column("version", Int, nullable=False),
    Column("server", Text, nullable=False),
    Column("start", Float, nullable=False),  # the instant offsets count from
    Column("state", Text, nullable=False),
    Column("created_by_id", Int, nullable=False),
    Column("created_by_name", Text, nullable=False),
    Column("created_at", Float, nullable=False),
    # started by a trigger's firing (bot.triggers): at most one run a firing, whoever starts it
    # (no foreign key: SQLite adds none to an existing table; removing a trigger unlinks them)
    Column("fire_id", Id),
    Column("player", Text),  # the executor of the steps without their own (a player who joined)
    CheckConstraint(
        "state IN ('running', 'paused', 'done', 'cancelled', 'stopped')",
        name="program_runs_state_check",
    ),
    Index("program_runs_state", "state", "server"),
    Index("program_runs_fire", "fire_id", unique=True),
    sqlite_autoincrement=True,
)

program_steps = Table(
    "program_steps",
    metadata,
    Column("run_id", Id, ForeignKey("program_runs.id"), primary_key=True),
    Column("step", Int, primary_key=True),  # from 1, as the moderator numbers them
    Column("schedule_id", Id, ForeignKey("schedules.id")),  # its planned row, once made
    Column("status", Text),  # 'skipped' or 'cancelled' by the program; NULL: its row says
    Index("program_steps_schedule", "schedule_id"),
)

# triggers (bot.triggers): what starts a program when something happens on a server; the
# cool-down and the day's limit are kept here so every process and restart shares them
triggers = Table(
    "triggers",
    metadata,
    _id(),
    Column("name", Text, nullable=False),
    Column("kind", Text, nullable=False),
    Column("server", Text, nullable=False),
    Column("program", Text, nullable=False),
    Column("settings", Text, nullable=False),  # JSON: players, direction, player, pattern
    Column("cooldown", Float, nullable=False),  # seconds
    Column("per_day", Int, nullable=False),
    Column("enabled", Int, nullable=False),  # 1 or 0 (`trigger pause`)
    Column("created_by_id", Int, nullable=False),
    Column("created_by_name", Text, nullable=False),
    Column("created_at", Float, nullable=False),
    Column("last_fired", Float),  # epoch seconds of the newest firing
    Column("day_start", Float),  # the first firing of the current 24 hours
    Column("day_count", Int, nullable=False),  # firings since day_start
    Column("limit_said", Float),  # when the day's limit was last alerted
    CheckConstraint(
        "kind IN ('started', 'players', 'join', 'log', 'interest')", name="triggers_kind_check"
    ),
    Index("triggers_name", "name", unique=True),
    sqlite_autoincrement=True,
)

# each firing, by what it fired on (`occurrence`: a log line's place, a start's moment), once
trigger_fires = Table(
    "trigger_fires",
    metadata,
    _id(),
    Column("trigger_id", Id, ForeignKey("triggers.id", ondelete="CASCADE"), nullable=False),
    Column("occurrence", Text, nullable=False),
    Column("at", Float, nullable=False),
    Column("player", Text),
    Column("state", Text, nullable=False),  # 'fired' (its run to start), 'started', 'refused'
    Column("reason", Text),  # why its program could not start
    CheckConstraint("state IN ('fired', 'started', 'refused')", name="trigger_fires_state_check"),
    Index("trigger_fires_occurrence", "trigger_id", "occurrence", unique=True),
    Index("trigger_fires_state", "state"),
    sqlite_autoincrement=True,
)

# a program started on a `repeat:` (bot.programs.repeats): its time as a planned row keeps it
# (the Spec's fields) and the servers it starts on (a group's members when it was made)
program_repeats = Table(
    "program_repeats",
    metadata,
    _id(),
    Column("program", Text, nullable=False),
    Column("target", Text, nullable=False),  # the server or group as given
    Column("servers", Text, nullable=False),  # JSON: the servers it starts on
    Column("repeat", Text, nullable=False),  # as typed: 1d, 0 20 * * fri
    Column("kind", Text, nullable=False),  # 'every' or 'cron'
    Column("first_due", Float, nullable=False),
    Column("timezone", Text, nullable=False),
    Column("every", Int),
    Column("anchor", Float),
    Column("cron", Text),
    Column("dst_repeated", Text),
    Column("dst_skipped", Text),
    Column("state", Text, nullable=False),  # 'active' or 'stopped'
    Column("created_by_id", Int, nullable=False),
    Column("created_by_name", Text, nullable=False),
    Column("created_at", Float, nullable=False),
    CheckConstraint("kind IN ('every', 'cron')", name="program_repeats_kind_check"),
    CheckConstraint("state IN ('active', 'stopped')", name="program_repeats_state_check"),
    sqlite_autoincrement=True,
)

# each occurrence of a repeat on each server, decided once whichever process or restart looks:
# started (its run, made in the same transaction), missed (the bot was away) or refused
program_repeat_runs = Table(
    "program_repeat_runs",
    metadata,
    _id(),
    Column("repeat_id", Id, ForeignKey("program_repeats.id"), nullable=False),
    Column("server", Text, nullable=False),
    Column("occurrence", Float, nullable=False),  # the instant (UTC epoch seconds)
    Column("run_id", Id, ForeignKey("program_runs.id")),
    Column("state", Text, nullable=False),
    Column("skipped", Int, nullable=False),  # occurrences not run that this row stands for
    Column("reason", Text),
    Column("at", Float, nullable=False),
    CheckConstraint(
        "state IN ('started', 'missed', 'refused')", name="program_repeat_runs_state_check"
    ),
    Index("program_repeat_runs_occurrence", "repeat_id", "server", "occurrence", unique=True),
    Index("program_repeat_runs_run", "run_id"),
    sqlite_autoincrement=True,
)
