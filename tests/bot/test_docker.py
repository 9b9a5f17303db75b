"""The Docker files: compose.yaml beside itzg/minecraft-server and the bot's Dockerfile.

Docker cannot run here, so this reads them: the settings the bot needs (RCON on, one password
shared by both services, broadcast-rcon-to-ops off, the shared /data volume holding the world
and its log) must agree, and the bot's environment must load through the bot's own settings
loader (bot/config.py) into exactly the server it should reach. itzg's variable names are from
its docs (docs/configuration/server-properties.md: ENABLE_RCON, RCON_PASSWORD, RCON_PORT,
BROADCAST_RCON_TO_OPS, LEVEL; /data is the server folder, the world is /data/$LEVEL)."""

from __future__ import annotations

import os
import re
import shlex
from pathlib import Path, PurePosixPath

import pytest
import yaml

from bot.config import ENV_PREFIX, load_settings

ROOT = Path(__file__).resolve().parents[2]
SECRETS = {
    "RCON_PASSWORD": "rcon-pw-from-dotenv",
    "DISCORD_TOKEN": "token-from-dotenv",
    "DB_PASSWORD": "db-pw-from-dotenv",
}
_VAR = re.compile(r"\$\{(?P<name>[A-Z_][A-Z0-9_]*)(?::?[?-][^}]*)?\}")


def compose() -> dict[str, object]:
    data = yaml.safe_load((ROOT / "compose.yaml").read_text(encoding="utf-8"))
    assert isinstance(data, dict)
    return data


def substitute(value: object) -> str:
    """Compose's `${NAME}` / `${NAME:?message}` interpolation, from the sample .env."""
    text = str(value)
    for m in _VAR.finditer(text):
        assert m.group("name") in SECRETS, f"{m.group(0)} is not documented in compose.yaml"
    return _VAR.sub(lambda m: SECRETS[m.group("name")], text)


def env_of(service: dict[str, object]) -> dict[str, str]:
    env = service["environment"]
    assert isinstance(env, dict), "environment as a mapping keeps it readable"
    return {str(k): substitute(v) for k, v in env.items()}


def mounts(service: dict[str, object]) -> dict[str, str]:
    """container path -> volume name."""
    out: dict[str, str] = {}
    for entry in service["volumes"]:  # type: ignore[attr-defined]
        source, target = str(entry).split(":")[:2]
        out[target] = source
    return out


def test_minecraft_service_has_what_the_bot_needs() -> None:
    services = compose()["services"]
    assert isinstance(services, dict)
    mc = services["mc"]
    assert str(mc["image"]).startswith("itzg/minecraft-server")
    env = env_of(mc)
    assert env["EULA"].upper() == "TRUE"
    assert env["ENABLE_RCON"] == "true"
    # without it the image makes a new random password at every start
    assert env["RCON_PASSWORD"] == SECRETS["RCON_PASSWORD"]
    assert env["BROADCAST_RCON_TO_OPS"] == "false"
    # RCON is not published outside the compose network
    assert not [p for p in mc.get("ports", []) if "25575" in str(p)]
    assert mounts(mc)["/data"] in compose()["volumes"]  # type: ignore[operator]


def test_bot_environment_loads_into_the_server_it_must_reach(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    services = compose()["services"]
    assert isinstance(services, dict)
    mc, bot = services["mc"], services["bot"]
    mc_env, bot_env = env_of(mc), env_of(bot)
    for key in list(os.environ):
        if key.startswith(ENV_PREFIX):
            monkeypatch.delenv(key)
    # the image's ENV first, compose's environment over it, as in the container
    for key, value in {**dockerfile_env(), **bot_env}.items():
        assert key.startswith(ENV_PREFIX), f"{key} is not a bot setting"
        monkeypatch.setenv(key, value)
    settings = load_settings(None)  # the bot's own loader: an unknown name fails here
    assert settings.discord_token is not None
    assert settings.discord_token.get_secret_value() == SECRETS["DISCORD_TOKEN"]
    [server] = settings.servers
    assert server.rcon_host == "mc" and server.rcon_host in services
    assert server.rcon_port == int(mc_env.get("RCON_PORT", "25575"))
    assert server.rcon_password.get_secret_value() == mc_env["RCON_PASSWORD"]
    # The same volume holds the server's /data for both; the world and its log are in it.
    data_volume = mounts(mc)["/data"]
    data_in_bot = next(t for t, v in mounts(bot).items() if v == data_volume)
    level = mc_env.get("LEVEL", "world")
    assert server.world_dir == Path(PurePosixPath(data_in_bot) / level)
    assert server.log_path == Path(PurePosixPath(data_in_bot) / "logs" / "latest.log")
    assert server.event_source == "log"
    # the bot's database survives a rebuild
    assert settings.data_dir == Path(dockerfile_env()["DOOM_DATA_DIR"])
    assert str(settings.data_dir) in mounts(bot)
    assert "mc" in bot.get("depends_on", [])
    assert bot["build"] == "."


def dockerfile() -> list[tuple[str, str]]:
    lines: list[tuple[str, str]] = []
    joined = (ROOT / "Dockerfile").read_text(encoding="utf-8").replace("\\\n", " ")
    for raw in joined.splitlines():
        line = raw.strip()
        if line and not line.startswith("#"):
            word, _, rest = line.partition(" ")
            lines.append((word.upper(), rest.strip()))
    return lines


def dockerfile_env() -> dict[str, str]:
    env: dict[str, str] = {}
    for word, rest in dockerfile():
        if word == "ENV":
            key, _, value = rest.partition("=")
            env[key] = value
    return env


def test_dockerfile_installs_the_bot_with_its_pack() -> None:
    steps = dockerfile()
    [base] = [rest for word, rest in steps if word == "FROM"]
    m = re.fullmatch(r"python:3\.(\d+)-slim", base)
    assert m and int(m.group(1)) >= 11  # pyproject: requires-python >= 3.11
    copied = {shlex.split(rest)[0] for word, rest in steps if word == "COPY"}
    # every package pyproject includes, the pack and the catalogs (setup.py puts them into the
    # wheel and fails the build without them), the build
    needed = {"bot", "cogs", "console", "mcsim", "datapack", "locale", "pyproject.toml"}
    assert needed <= copied
    runs = " ".join(rest for word, rest in steps if word == "RUN")
    assert "pip install --no-cache-dir ." in runs and "-e ." not in runs
    assert ("USER", "1000") in steps  # itzg's default uid: the bot writes into its world
    [entry] = [rest for word, rest in steps if word == "ENTRYPOINT"]
    assert entry == '["python", "-m", "bot"]'
    volumes = " ".join(rest for word, rest in steps if word == "VOLUME")
    assert dockerfile_env()["DOOM_DATA_DIR"] in volumes


def test_readme_says_how() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    heading = re.search(r"^### (?:\d+\. )?Docker$", readme, re.M)
    assert heading is not None, "README has no Docker section"
    section = readme[heading.end() :].split("\n## ", 1)[0]
    for needed in ("compose.yaml", "RCON_PASSWORD", "install-datapack", "BROADCAST_RCON_TO_OPS"):
        assert needed in section


def test_the_fleet_profile_puts_two_bots_on_one_postgresql(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    services = compose()["services"]
    assert isinstance(services, dict)
    db, fleet = services["db"], services["bot-fleet"]
    assert db["profiles"] == ["fleet"] and fleet["profiles"] == ["fleet"]
    assert "profiles" not in services["bot"]  # the single bot stays the default
    assert fleet["deploy"]["replicas"] == 2
    assert fleet["command"] == ["python", "-m", "bot", "serve"]
    db_env = env_of(db)
    for key in list(os.environ):
        if key.startswith(ENV_PREFIX):
            monkeypatch.delenv(key)
    for key, value in {**dockerfile_env(), **env_of(fleet)}.items():
        monkeypatch.setenv(key, value)
    settings = load_settings(None)
    assert settings.database_url is not None
    url = settings.database_url.get_secret_value()
    assert url == (
        f"postgresql://{db_env['POSTGRES_USER']}:{db_env['POSTGRES_PASSWORD']}@db/"
        f"{db_env['POSTGRES_DB']}"
    )
    assert "db" in fleet["depends_on"] and settings.web_port == 8080
