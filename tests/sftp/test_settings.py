"""The SFTP settings are checked when the settings are read: each mistake a sentence naming
the variable, never a crash later."""

from __future__ import annotations

import pytest

from bot.config import load_settings, parse_sftp_url
from bot.errors import ConfigError

BASE = {"DOOM_SERVERS__0__NAME": "rented", "DOOM_SERVERS__0__RCON_PASSWORD": "pw"}


def settings_with(monkeypatch: pytest.MonkeyPatch, **values: str) -> None:
    for name, value in {**BASE, **values}.items():
        monkeypatch.setenv(name, value)
    load_settings(None)


def test_the_url_gives_user_host_port_and_the_root() -> None:
    target = parse_sftp_url("sftp://steve.1a2b3c4d@panel.example.org:2022/")
    assert (target.user, target.host, target.port, target.path) == (
        "steve.1a2b3c4d",
        "panel.example.org",
        2022,
        "/",
    )
    assert parse_sftp_url("sftp://mc@10.0.0.5/srv/mc").port == 22
    assert str(parse_sftp_url("sftp://mc@10.0.0.5/srv/mc")) == "sftp://mc@10.0.0.5:22/srv/mc"


@pytest.mark.parametrize(
    ("url", "said"),
    [
        ("ftp://a@h/", "must start with sftp://"),
        ("sftp://h:2022/", "must name the user"),
        ("sftp://a@h:70000/", "port must be a number from 1 to 65535"),
        ("sftp://a@h:0/", "port must be a number from 1 to 65535"),
        ("sftp://a:secret@h/", "must not hold the password"),
    ],
)
def test_a_bad_url_is_refused_naming_the_variable(
    monkeypatch: pytest.MonkeyPatch, url: str, said: str
) -> None:
    with pytest.raises(ConfigError) as refused:
        settings_with(
            monkeypatch,
            DOOM_SERVERS__0__SFTP_URL=url,
            DOOM_SERVERS__0__SFTP_PASSWORD="x",
            DOOM_SERVERS__0__SFTP_KNOWN_HOSTS="/k",
        )
    assert "DOOM_SERVERS__0__SFTP_URL" in str(refused.value) and said in str(refused.value)
    assert "secret" not in str(refused.value)


@pytest.mark.parametrize(
    ("extra", "said"),
    [
        ({}, "one of sftp_password"),
        (
            {"DOOM_SERVERS__0__SFTP_PASSWORD": "x", "DOOM_SERVERS__0__SFTP_KEY_FILE": "/k"},
            "not both",
        ),
        ({"DOOM_SERVERS__0__SFTP_PASSWORD": "x"}, "needs sftp_known_hosts"),
    ],
)
def test_a_login_needs_one_secret_and_a_known_hosts_file(
    monkeypatch: pytest.MonkeyPatch, extra: dict[str, str], said: str
) -> None:
    values = {"DOOM_SERVERS__0__SFTP_URL": "sftp://a@h:2022/", **extra}
    if said != "needs sftp_known_hosts":
        values["DOOM_SERVERS__0__SFTP_KNOWN_HOSTS"] = "/k"
    with pytest.raises(ConfigError, match=said):
        settings_with(monkeypatch, **values)


def test_sftp_secrets_without_a_url_are_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(ConfigError, match="sftp_password is set but sftp_url is not"):
        settings_with(monkeypatch, DOOM_SERVERS__0__SFTP_PASSWORD="x")
