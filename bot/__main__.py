"""`python -m bot [run|console|serve|install-datapack|check|events|selftest|export|import|token|
login]`: the bot's launcher.

With no command: `run` when a Discord token is set, else `console`. With no Minecraft server
configured, every command uses an embedded mcsim world in `<data_dir>/world`
(bot.minecraft.embedded), started before the command and stopped after it.

`serve` runs the core and the dashboard with no Discord; `token` and `login` give ways into it
(bot.cli.serve). One process per data folder (bot.datadir_lock): every command but `token` and
`login` (which only write to the database) holds `<data_dir>/bot.lock` while it runs; a second
one on the same folder changes nothing and exits 2 with a sentence naming the first one's pid
and what to do instead (while a bot runs: its console or Discord command).

Exit codes: 0 done, 1 a check, an install or a selftest check failed (or a bot error), 2 bad
settings or usage, or the data folder in use, 130 interrupted while starting. Ctrl-C (SIGINT)
and SIGTERM (`docker stop`) are the same clean stop of `run`, `console`, `serve` and `events`:
exit 0 within 5 s, even with a server frozen or unreachable (bot.aio.run_until_stopped).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import logging
import os
import signal
import sys
import threading
import time
from collections.abc import AsyncIterator, Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from bot.aio import Stopped, cancel_and_wait, run_until_stopped
from bot.config import Settings, load_settings
from bot.errors import BotError, ConfigError
from bot.i18n import _, console_locale, set_locale

if TYPE_CHECKING:
    from bot.events.event import Event
    from bot.minecraft.embedded import EmbeddedServer
    from bot.services import Services

__all__ = ["COMMANDS", "main"]

log = logging.getLogger(__name__)

COMMANDS = (
    "run",
    "console",
    "serve",
    "install-datapack",
    "check",
    "events",
    "selftest",
    "export",
    "import",
    "token",
    "login",
    "plugins",
    "db",
)
UNLOCKED = ("token", "login", "plugins")  # database writes only: they run beside a serving process
LOG_FILE = "bot.log"  # in the data dir: where the console's log lines go (-v: also the terminal)
LOG_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"


class _ZonedFormatter(logging.Formatter):
    """A log line's time with its zone named ("2026-12-04 19:00:00,123 UTC"): the machine's zone
    is often not the reader's, and a bare time says neither."""

    def formatTime(self, record: logging.LogRecord, datefmt: str | None = None) -> str:
        zone = time.strftime("%Z", self.converter(record.created))
        return f"{super().formatTime(record, datefmt)} {zone}"


class _NotForUsers(logging.Filter):
    """Drops library warnings that do not concern a user of this bot: it has no voice, so
    discord.py's "PyNaCl/davey is not installed, voice will NOT be supported" is noise."""

    def filter(self, record: logging.LogRecord) -> bool:
        return "voice will NOT be supported" not in record.getMessage()


def _setup_logging(verbose: bool, log_file: Path | None) -> None:
    """Log lines go to stderr, or for the console to a file so they never print over the
    prompt; ``-v`` adds the terminal back, at DEBUG."""
    handlers: list[logging.Handler] = []
    if log_file is not None:
        log_file.parent.mkdir(parents=True, exist_ok=True)
        handlers.append(logging.FileHandler(log_file, encoding="utf-8"))
    if verbose or log_file is None:
        handlers.append(logging.StreamHandler(sys.stderr))
    for handler in handlers:
        handler.setFormatter(_ZonedFormatter(LOG_FORMAT))
    logging.basicConfig(
        level=logging.DEBUG if verbose else logging.INFO,
        handlers=handlers,
        force=True,
    )
    logging.captureWarnings(True)  # a library's warnings.warn() is a log line too
    logging.getLogger("discord.client").addFilter(_NotForUsers())


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m bot",
        description=_("doom.schedule bot: drives the doom.schedule data pack over RCON."),
    )
    parser.add_argument(
        "command",
        nargs="?",
        choices=COMMANDS,
        help=_("default: run when DOOM_DISCORD_TOKEN is set, else console"),
    )
    parser.add_argument(
        "words",
        nargs="*",
        metavar="ARG",
        help=_(
            "import: the plan file to read (- for stdin); token: new NAME, list or revoke "
            "NAME; plugins: new NAME DIR; db: copy URL"
        ),
    )
    parser.add_argument(
        "--rank",
        choices=("moderator", "admin"),
        default="moderator",
        help=_("token new, login: the rank it gives (default: moderator)"),
    )
    parser.add_argument("--name", help=_("login: who the link is for (default: your user name)"))
    parser.add_argument(
        "--dry-run", action="store_true", help=_("import: say what would change, change nothing")
    )
    parser.add_argument("--env-file", type=Path, default=Path(".env"), help=_("default: .env"))
    parser.add_argument(
        "--server",
        help=_("only this configured server (install-datapack, events, selftest, export, import)"),
    )
    parser.add_argument(
        "-v", "--verbose", action="store_true", help=_("show log lines (at DEBUG level)")
    )
    return parser


def _interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


def main(argv: Sequence[str] | None = None, *, out: TextIO | None = None) -> int:
    # SIGTERM outside the running commands' own handlers (starting the embedded server, the
    # short commands) is Ctrl-C: the same clean-up, instead of the process dying on the spot
    if threading.current_thread() is not threading.main_thread():
        return _main(argv, out)  # signals reach the main thread only
    previous = signal.signal(signal.SIGTERM, _interrupt)
    _PAUSED[:] = [gc.isenabled()]  # the collector, off while starting: see _collector_on
    gc.disable()
    try:
        return _main(argv, out)
    finally:
        signal.signal(signal.SIGTERM, previous)
        if _PAUSED == [True]:
            gc.enable()
        _PAUSED.clear()


# Python's cyclic collector is paused while the process starts (main) and on again once a command
# that runs for long has started (_collector_on). Starting (the imports, the embedded world's
# parsed pack, the services) makes most of the process's long-lived objects; the collector's full
# passes over that growing heap were a third of a start's CPU and found nothing to free. Frozen,
# those objects are not walked again either.
_PAUSED: list[bool] = []  # [whether the collector was on before main paused it]


def _collector_on() -> None:
    if _PAUSED == [True]:
        gc.freeze()
        gc.enable()
    _PAUSED.clear()


def _main(argv: Sequence[str] | None, out: TextIO | None) -> int:
    set_locale(console_locale(os.environ.get("DOOM_LOCALE")))  # before .env is read: --help
    args = _parser().parse_args(argv)
    stdout = out or sys.stdout
    try:
        settings = load_settings(args.env_file)
    except ConfigError as e:
        print(e, file=sys.stderr)
        return 2
    set_locale(console_locale(settings.locale))
    command: str = args.command or ("run" if settings.discord_token else "console")
    _setup_logging(args.verbose, settings.data_dir / LOG_FILE if command == "console" else None)
    if command == "run" and settings.discord_token is None:
        print(_("DOOM_DISCORD_TOKEN: is required for `run` (or use `console`)."), file=sys.stderr)
        return 2
    if command == "serve" and settings.web_port is None:
        print(
            _(
                "DOOM_WEB_PORT: serve runs the dashboard and its API, so it needs a port "
                "(e.g. DOOM_WEB_PORT=8080)."
            ),
            file=sys.stderr,
        )
        return 2
    if command in UNLOCKED:
        from bot.cli import serve

        if command == "plugins":
            from bot.cli.plugins import new, plugins

            if args.words[:1] == ["new"]:
                return new(args.words[1:], stdout)
            return asyncio.run(plugins(settings, stdout))
        if command == "token":
            return asyncio.run(serve.token(settings, args.words, args.rank, stdout))
        return asyncio.run(serve.login(settings, args.name, args.rank, stdout))
    from bot.datadir_lock import DataDirBusy, DataDirLock, busy_message

    try:
        # before anything is read or started: the database, the embedded world, its log
        owner = DataDirLock.acquire(settings.data_dir, command)
    except DataDirBusy as busy:
        print(busy_message(command, busy), file=sys.stderr)
        return 2
    with owner:
        if command == "db":  # the database alone: no server is started
            from bot.cli.db import db_command

            try:
                return asyncio.run(db_command(settings, args.words, stdout))
            except BotError as e:
                print(e, file=sys.stderr)
                return 2
        return _owned(command, settings, args, stdout)


def _owned(command: str, settings: Settings, args: argparse.Namespace, stdout: TextIO) -> int:
    """The command, once this process owns the data folder."""
    embedded: EmbeddedServer | None = None
    try:
        if not settings.servers:
            embedded = asyncio.run(_start_embedded(settings))
            settings = settings.model_copy(update={"servers": list(embedded.servers)})
            print(
                _(
                    "No Minecraft server configured: using the embedded mcsim world in "
                    "{world} (doom.schedule {version}).",
                    world=embedded.world,
                    version=embedded.install.version,
                ),
                file=sys.stderr,
            )
        if args.server is not None:
            try:
                settings.server(args.server)
            except KeyError:
                names = ", ".join(s.name for s in settings.servers)
                print(
                    _(
                        "There is no server {name} (configured: {names}).",
                        name=repr(args.server),
                        names=names,
                    ),
                    file=sys.stderr,
                )
                return 2
        file = Path(args.words[0]) if args.words else None
        if command == "import" and file is None:
            print(_("import: name the plan file to read (or - for stdin)."), file=sys.stderr)
            return 2
        return _dispatch(command, settings, args.server, stdout, file, args.dry_run)
    except Stopped as stop:  # SIGTERM or SIGINT, and the clean-up ran
        print(_("Interrupted.") if stop.signum == signal.SIGINT else _("Stopped."), file=sys.stderr)
        return 0
    except KeyboardInterrupt:
        print(_("Interrupted."), file=sys.stderr)
        return 0 if command in ("run", "console", "serve", "events") else 130
    except BotError as e:
        print(e, file=sys.stderr)
        return 1
    finally:
        if embedded is not None:
            embedded.stop()


async def _start_embedded(settings: Settings) -> EmbeddedServer:
    from bot.minecraft.embedded import start_embedded

    return await start_embedded(settings)


def _dispatch(
    command: str,
    settings: Settings,
    only: str | None,
    out: TextIO,
    file: Path | None = None,
    dry_run: bool = False,
) -> int:
    from bot.cli import plan as plan_cli

    if command == "console":
        from console.front import main as console_main  # the one import of the console face

        _collector_on()
        return console_main(settings)
    runners: dict[str, Callable[[], int]] = {
        "run": lambda: run_until_stopped(_run(settings)),
        "serve": lambda: run_until_stopped(_serve(settings, out)),
        "install-datapack": lambda: asyncio.run(_install(settings, only, out)),
        "check": lambda: asyncio.run(_check(settings, out)),
        "events": lambda: run_until_stopped(_events(settings, only, out)),
        "selftest": lambda: asyncio.run(_selftest(settings, only, out)),
        "export": lambda: asyncio.run(plan_cli.export(settings, only, out)),
        "import": lambda: plan_cli.import_file(settings, only, file, dry_run, out),
    }
    return runners[command]()


@contextlib.asynccontextmanager
async def _services(settings: Settings) -> AsyncIterator[Services]:
    from bot.services import build_services

    services = await build_services(settings)
    try:
        yield services
    finally:
        await services.close()


async def _run(settings: Settings) -> int:
    from bot.discord.launch import Gateway, run_bot

    assert settings.discord_token is not None
    _collector_on()
    return await run_bot(settings, Gateway(settings.discord_token.get_secret_value()))


async def _serve(settings: Settings, out: TextIO) -> int:
    from bot.cli.serve import serve

    _collector_on()
    return await serve(settings, out)


async def _install(settings: Settings, only: str | None, out: TextIO) -> int:
    from bot.minecraft.installer import installer_for
    from bot.services import build_rcon

    failed = 0
    for server in settings.servers:
        if only is not None and server.name != only:
            continue
        rcon = build_rcon(settings, server)
        try:
            async with installer_for(rcon, server) as installer:  # world_dir, or SFTP
                report = await installer.install()
            print(f"{server.name}: {report.summary()}", file=out)
            failed += not report.ok
        except BotError as e:
            print(_("{server}: not installed: {error}", server=server.name, error=e), file=out)
            failed += 1
        finally:
            await rcon.close()
    if failed:
        return 1
    # the pack is in place: prove it works there, as /setup does
    return await _selftest(settings, only, out)


async def _selftest(settings: Settings, only: str | None, out: TextIO) -> int:
    """Run the selftest on every (or the named) server through the bot's own services."""
    from bot.minecraft.selftest import run_selftest

    failed = False
    async with _services(settings) as services:
        for name, server in services.servers.items():
            if only is not None and name != only:
                continue
            result = await run_selftest(server)
            for line in result.lines():
                print(line, file=out, flush=True)
            failed = failed or not result.ok
    return 1 if failed else 0


async def _check(settings: Settings, out: TextIO) -> int:
    from bot.cli.check import check_all

    return await check_all(settings, out)


def _format_event(ev: Event) -> str:
    extra = "".join(f" {k}={v}" for k, v in sorted(ev.details.items()))
    return f"[{ev.server}] seq={ev.seq} {ev.type} id={ev.task_id} t={ev.game_time}{extra}"


async def _ready_or_failed(ready: asyncio.Event, pumps: list[asyncio.Task[None]]) -> None:
    """Waits for `ready`, or for a pump to end first (its error is raised later, by the loop)."""
    waiter = asyncio.ensure_future(ready.wait())
    await asyncio.wait([waiter, *pumps], return_when=asyncio.FIRST_COMPLETED)
    waiter.cancel()


async def _events(settings: Settings, only: str | None, out: TextIO) -> int:
    """Print every server's events as they come, until interrupted."""
    async with _services(settings) as services:
        _collector_on()
        queue: asyncio.Queue[Event] = asyncio.Queue()

        async def pump(name: str) -> None:
            source = services.servers[name].events
            if source is None:
                return
            async for ev in source.events():
                await queue.put(ev)

        names = [n for n in services.servers if only is None or n == only]
        pumps = [asyncio.create_task(pump(n), name=f"events {n}") for n in names]
        for name in names:
            # "following" only once the source has fixed where it starts: an event logged in
            # between would otherwise be skipped by a tailer that starts at the end of the log
            source = services.servers[name].events
            if source is not None:
                await _ready_or_failed(source.ready, pumps)
            kind = services.servers[name].event_kind
            print(
                _("[{server}] following events ({kind}); Ctrl-C to stop", server=name, kind=kind),
                file=out,
                flush=True,
            )
        try:
            while True:
                getter = asyncio.ensure_future(queue.get())
                done, _p = await asyncio.wait([getter, *pumps], return_when=asyncio.FIRST_COMPLETED)
                if getter not in done:
                    getter.cancel()
                    for task in done:
                        task.result()  # a source that failed: raise its error
                    pumps = [p for p in pumps if not p.done()]
                    if not pumps:
                        return 0
                    continue
                print(_format_event(getter.result()), file=out, flush=True)
        finally:
            await cancel_and_wait(*pumps)


if __name__ == "__main__":
    sys.exit(main())
