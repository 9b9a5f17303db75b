"""bot.config: the environment/.env forms that work, and errors that name the variable."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.config import DEFAULT_DENY, Settings, load_settings
from bot.errors import ConfigError

ROOT = Path(__file__).resolve().parents[2]
TWO_NAMED_A = (
    '[{"name": "a", "rcon_password": "pw-SECRET-9"}, {"name": "a", "rcon_password": "pw-SECRET-9"}]'
)


@pytest.fixture(autouse=True)
def clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    import os

    for key in list(os.environ):
        if key.upper().startswith("DOOM_"):
            monkeypatch.delenv(key)


def test_defaults_without_any_setting() -> None:
    s = load_settings(None)
    assert s.servers == [] and s.discord_token is None
    assert s.deny_commands == DEFAULT_DENY
    for must in ["op", "deop", "stop", "ban", "ban-ip", "pardon", "pardon-ip", "whitelist"]:
        assert must in s.deny_commands
    for must in ["kick", "save-off", "reload", "datapack", "debug", "perf"]:
        assert must in s.deny_commands
    assert s.rcon_timeout == 5.0 and s.data_dir == Path("data")


def test_servers_as_json_list(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(
        "DOOM_SERVERS",
        '[{"name": "main", "rcon_password": "pw", "rcon_port": 25580, "world_dir": "/srv/w"},'
        ' {"name": "creative", "rcon_password": "pw2", "event_source": "rcon"}]',
    )
    s = load_settings(None)
    assert [x.name for x in s.servers] == ["main", "creative"]
    assert s.servers[0].rcon_port == 25580 and s.servers[0].world_dir == Path("/srv/w")
    assert s.servers[1].rcon_password.get_secret_value() == "pw2"
    assert s.server("creative").event_source == "rcon"


def test_servers_as_indexed_variables(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DOOM_SERVERS__1__NAME", "second")
    monkeypatch.setenv("DOOM_SERVERS__1__RCON_PASSWORD", "b")
    monkeypatch.setenv("DOOM_SERVERS__0__NAME", "first")
    monkeypatch.setenv("DOOM_SERVERS__0__RCON_PASSWORD", "a")
    monkeypatch.setenv("DOOM_SERVERS__0__RCON_HOST", "10.0.0.5")
    monkeypatch.setenv("DOOM_SERVERS__0__ALLOW_COMMANDS", "gamerule,tick")
    s = load_settings(None)
    assert [x.name for x in s.servers] == ["first", "second"]
    assert s.servers[0].rcon_host == "10.0.0.5"
    assert s.servers[0].allow_commands == ["gamerule", "tick"]
    denied = s.servers[0].denied_commands(s.deny_commands)
    assert "gamerule" not in denied and "op" in denied


def test_lists_take_json_or_commas(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DOOM_GUILD_IDS", "[1, 2]")
    monkeypatch.setenv("DOOM_ADMIN_ROLE_IDS", "10, 20,30")
    monkeypatch.setenv("DOOM_DENY_COMMANDS", "op,stop")
    s = load_settings(None)
    assert s.guild_ids == [1, 2] and s.admin_role_ids == [10, 20, 30]
    assert s.deny_commands == ["op", "stop"]


def test_a_renamed_cogs_old_extension_name_reads_as_its_new_one(tmp_path: Path) -> None:
    env = tmp_path / ".env"
    env.write_text("DOOM_EXTENSIONS=cogs.schedule,cogs.tasks,cogs.reads,cogs.events,cogs.admin\n")
    s = load_settings(env)
    # each once, in order
    assert s.extensions == ["cogs.schedule", "cogs.reads", "cogs.discord_events", "cogs.admin"]
    assert s.renamed_extensions == [
        ("cogs.tasks", "cogs.reads"),
        ("cogs.events", "cogs.discord_events"),
    ]
    assert load_settings(None).renamed_extensions == []
    assert "cogs.reads" in load_settings(None).extensions


def test_the_discord_events_settings_take_their_older_names_too(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    env = tmp_path / ".env"
    env.write_text("DOOM_EVENT_CHANNEL_ID=61\nDOOM_EVENT_ROLE_ID=62\n")  # a .env from before
    s = load_settings(env)
    assert (s.discord_event_channel_id, s.discord_event_role_id) == (61, 62)
    env.write_text("DOOM_DISCORD_EVENT_CHANNEL_ID=71\n")
    monkeypatch.setenv("DOOM_EVENT_ROLE_ID", "72")
    s = load_settings(env)
    assert (s.discord_event_channel_id, s.discord_event_role_id) == (71, 72)
    # a bad value is named by the variable's name (one prefix), never shown
    env.write_text("DOOM_DISCORD_EVENT_CHANNEL_ID=not-a-number\n")
    with pytest.raises(ConfigError) as info:
        load_settings(env)
    assert "DOOM_DISCORD_EVENT_CHANNEL_ID: " in str(info.value)
    assert "DOOM_DOOM_" not in str(info.value) and "not-a-number" not in str(info.value)


def test_allowed_commands_unset_commas_json_or_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    assert load_settings(None).allowed_commands is None  # no allow-list: the deny-list alone
    monkeypatch.setenv("DOOM_ALLOWED_COMMANDS", "say, give ,function:my.events")
    assert load_settings(None).allowed_commands == ["say", "give", "function:my.events"]
    monkeypatch.setenv("DOOM_ALLOWED_COMMANDS", '["tellraw", "/tp"]')
    assert load_settings(None).allowed_commands == ["tellraw", "/tp"]
    monkeypatch.setenv("DOOM_ALLOWED_COMMANDS", "say,execute as @a")
    with pytest.raises(ConfigError, match=r"DOOM_ALLOWED_COMMANDS.*'execute as @a' is neither"):
        load_settings(None)


def test_the_dashboards_time_zone_is_an_iana_zone(monkeypatch: pytest.MonkeyPatch) -> None:
    assert load_settings(None).web_timezone is None  # the pages use DOOM_TIMEZONE then
    monkeypatch.setenv("DOOM_WEB_TIMEZONE", "Europe/Berlin")
    assert load_settings(None).web_timezone == "Europe/Berlin"
    monkeypatch.setenv("DOOM_WEB_TIMEZONE", "Mars/Olympus")
    with pytest.raises(ConfigError, match=r"DOOM_WEB_TIMEZONE.*not an IANA time zone"):
        load_settings(None)


def test_env_file_is_read(tmp_path: Path) -> None:
    env = tmp_path / ".env"
    env.write_text(
        "DOOM_DISCORD_TOKEN=abc.def\n"
        "DOOM_SERVERS__0__NAME=main\n"
        "DOOM_SERVERS__0__RCON_PASSWORD=pw\n"
        "DOOM_RCON_POLL_INTERVAL=0.25\n"
    )
    s = load_settings(env)
    assert s.discord_token is not None and s.discord_token.get_secret_value() == "abc.def"
    assert s.servers[0].name == "main" and s.rcon_poll_interval == 0.25


@pytest.mark.parametrize(
    ("env", "names"),
    [
        (
            {
                "DOOM_SERVERS__0__NAME": "a",
                "DOOM_SERVERS__0__RCON_PASSWORD": "pw-SECRET-9",
                "DOOM_SERVERS__0__RCON_PORT": "abc",
            },
            ["DOOM_SERVERS__0__RCON_PORT"],
        ),
        (
            {
                "DOOM_SERVERS__0__NAME": "a",
                "DOOM_SERVERS__0__RCON_PASSWORD": "pw-SECRET-9",
                "DOOM_SERVERS__0__RCON_PORT": "70000",
            },
            ["DOOM_SERVERS__0__RCON_PORT"],
        ),
        ({"DOOM_SERVERS__0__NAME": "a"}, ["DOOM_SERVERS__0__RCON_PASSWORD"]),
        (
            {"DOOM_SERVERS__0__NAME": "a", "DOOM_SERVERS__0__RCON_PASSWORD": ""},
            ["DOOM_SERVERS__0__RCON_PASSWORD"],
        ),
        (
            {"DOOM_SERVERS__0__NAME": "bad name!", "DOOM_SERVERS__0__RCON_PASSWORD": "pw-SECRET-9"},
            ["DOOM_SERVERS__0__NAME"],
        ),
        (
            {
                "DOOM_SERVERS__0__NAME": "a",
                "DOOM_SERVERS__0__RCON_PASSWORD": "pw-SECRET-9",
                "DOOM_SERVERS__0__EVENT_SOURCE": "carrier-pigeon",
            },
            ["DOOM_SERVERS__0__EVENT_SOURCE"],
        ),
        (
            {
                "DOOM_SERVERS__0__NAME": "a",
                "DOOM_SERVERS__0__RCON_PASSWORD": "pw-SECRET-9",
                "DOOM_SERVERS__0__EVENT_SOURCE": "log",
            },
            ["DOOM_SERVERS__0", "log_path"],
        ),
        (
            {"DOOM_SERVERS__1__NAME": "a", "DOOM_SERVERS__1__RCON_PASSWORD": "pw-SECRET-9"},
            ["DOOM_SERVERS", "without gaps"],
        ),
        (
            {"DOOM_SERVERS": TWO_NAMED_A},
            ["DOOM_", "unique", "a"],
        ),
        (
            {"DOOM_SERVERS": '[{"name": "a", "rcon_password": "pw-SECRET-9"'},
            ["DOOM_SERVERS", "JSON"],
        ),
        (
            {
                "DOOM_SERVERS": '[{"name": "a", "rcon_password": "pw-SECRET-9"}]',
                "DOOM_SERVERS__0__RCON_PORT": "1",
            },
            ["DOOM_SERVERS__0__RCON_PORT", "not both"],
        ),
        ({"DOOM_GUILD_IDS": "12,x"}, ["DOOM_GUILD_IDS (item 2)"]),
        ({"DOOM_RCON_TIMEOUT": "0"}, ["DOOM_RCON_TIMEOUT"]),
        ({"DOOM_LOG_POLL_INTERVAL": "soon"}, ["DOOM_LOG_POLL_INTERVAL"]),
        ({"DOOM_ALERT_CHANNEL_ID": "general"}, ["DOOM_ALERT_CHANNEL_ID"]),
    ],
)
def test_bad_settings_name_the_variable(
    monkeypatch: pytest.MonkeyPatch, env: dict[str, str], names: list[str]
) -> None:
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    with pytest.raises(ConfigError) as info:
        load_settings(None)
    text = str(info.value)
    for name in names:
        assert name in text
    # A password value never shows, even inside the error about its own server.
    assert "pw-SECRET-9" not in text


def test_several_errors_listed_together(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DOOM_RCON_TIMEOUT", "-1")
    monkeypatch.setenv("DOOM_GUILD_IDS", "x")
    with pytest.raises(ConfigError) as info:
        load_settings(None)
    assert "DOOM_RCON_TIMEOUT" in str(info.value) and "DOOM_GUILD_IDS" in str(info.value)


def test_unknown_setting_in_env_file_is_reported(tmp_path: Path) -> None:
    env = tmp_path / ".env"
    env.write_text("DOOM_RCON_TIMOUT=3\n")
    with pytest.raises(ConfigError, match="DOOM_RCON_TIMOUT: is not a known setting"):
        load_settings(env)


def test_env_example_documents_every_setting() -> None:
    text = (ROOT / ".env.example").read_text()
    for name in Settings.model_fields:
        assert f"DOOM_{name.upper()}" in text, name
    from bot.config import ServerConfig

    for name in ServerConfig.model_fields:
        assert f"DOOM_SERVERS__0__{name.upper()}" in text, name


def test_env_example_loads_as_is(tmp_path: Path) -> None:
    # Uncommented lines of the example must form a valid configuration.
    s = load_settings(ROOT / ".env.example")
    assert s.servers and s.servers[0].name
