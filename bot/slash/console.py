"""The console front end: ``python -m bot console``.

Lines typed in the terminal (``/schedule run:say hi time:5 unit:second``) become the interaction
payloads Discord would send and run through the bot's own CommandTree and cogs on a
:class:`~bot.slash.local_discord.LocalDiscord`; replies, embeds and alerts print as text, and
buttons are answered by typing ``yes``, ``no`` or a label. One code path with Discord, no second UI.
"""

from __future__ import annotations

__all__ = ["CONSOLE_USER_ID", "main", "one_line", "parse_line", "run_console"]

import asyncio
import logging
import queue
import re
import sys
import threading
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

import discord
from discord import app_commands

from bot.aio import run_until_stopped
from bot.i18n import N_, _, console_locale, discord_locale, pgettext, set_locale
from bot.i18n.translator import CHOICE_NAME, COMMAND_NAME, OPTION_NAME
from bot.slash.local_discord import CHANNEL_ID, Exchange, LocalDiscord, Sent, buttons, render
from bot.slash.local_http import LocalFile
from bot.slash.local_scheduled_events import describe_event

if TYPE_CHECKING:
    from bot.app import DoomBot
    from bot.config import Settings

log = logging.getLogger(__name__)

CONSOLE_USER_ID = 1_100_000_000_000_000_010
_YES = {"yes", "y", "confirm", "ok"}
_NO = {"no", "n", "cancel", "abort"}


def parse_line(line: str, bot: DoomBot) -> tuple[str, dict[str, object]]:
    """``/schedule run:say hi time:5 unit:second`` -> ("schedule", {"run": "say hi", ...}).

    An option's value runs up to the next ``name:`` of an option that command has, so values may
    hold spaces and colons (``run:tellraw @a {"text":"x"}``). Raises ValueError with a sentence.
    Names and choices may also be written as the console's language names them (``/定时 命令:...``).
    """
    name, _sep, rest = line.strip().removeprefix("/").partition(" ")
    cmd: object = bot.tree.get_command(name) or next(
        (c for c in bot.tree.get_commands() if pgettext(COMMAND_NAME, c.name) == name), None
    )
    while isinstance(cmd, app_commands.Group):  # `/event create name:...`: a group's subcommand
        sub, _sep, rest = rest.strip().partition(" ")
        child = cmd.get_command(sub) or next(
            (c for c in cmd.commands if pgettext(COMMAND_NAME, c.name) == sub), None
        )
        if child is None:
            subs = ", ".join(c.name for c in cmd.commands)
            raise ValueError(_("/{name} needs one of: {subs}", name=name, subs=subs))
        name, cmd = f"{name} {sub}", child
    if not isinstance(cmd, app_commands.Command):
        raise ValueError(_("unknown command /{name}: try /help", name=name))
    name = cmd.qualified_name  # "event create" for a group's subcommand
    params = {p.name: p for p in cmd.parameters}
    # the names in the console's language too (a name the same in both maps to itself)
    params |= {pgettext(OPTION_NAME, p.name): p for p in cmd.parameters}
    values: dict[str, object] = {}
    if not params:
        if rest.strip():
            raise ValueError(_("/{name} takes no options", name=name))
        return name, values
    marker = re.compile(r"(?:^|\s)(" + "|".join(map(re.escape, params)) + r"):")
    found = list(marker.finditer(rest))
    if rest.strip() and (not found or rest[: found[0].start()].strip()):
        raise ValueError(
            _(
                "write options as name:value (options: {names})",
                names=", ".join(p.name for p in cmd.parameters),
            )
        )
    for i, match in enumerate(found):
        end = found[i + 1].start() if i + 1 < len(found) else len(rest)
        param = params[match.group(1)]
        values[param.name] = _convert(param, rest[match.end() : end].strip())
    missing = [p.name for p in cmd.parameters if p.required and p.name not in values]
    if missing:
        raise ValueError(_("/{name} needs {options}", name=name, options=", ".join(missing)))
    return name, values


def _convert(param: app_commands.Parameter, text: str) -> object:
    for choice in param.choices:
        shown = pgettext(CHOICE_NAME, choice.name).lower()
        if text.lower() in (choice.name.lower(), str(choice.value).lower(), shown):
            return choice.value
    if param.choices:
        raise ValueError(
            _(
                "{option} is one of {choices}",
                option=param.name,
                choices=", ".join(c.name for c in param.choices),
            )
        )
    try:
        if param.type is discord.AppCommandOptionType.integer:
            return int(text)
        if param.type is discord.AppCommandOptionType.number:
            return float(text)
    except ValueError:
        raise ValueError(
            _("{option} must be a number, not {text}", option=param.name, text=repr(text))
        ) from None
    if param.type is discord.AppCommandOptionType.boolean:
        return text.lower() in ("true", "yes", "1", "on")
    if param.type is discord.AppCommandOptionType.attachment:
        return _attached(param.name, text)
    return text


def _attached(option: str, text: str) -> LocalFile:
    """An attachment option in the console is the path of a file on this machine."""
    path = Path(text).expanduser()
    try:
        return LocalFile(path.name, path.read_bytes())
    except OSError as exc:
        raise ValueError(
            _("{option}: cannot read {file}: {error}", option=option, file=text,
              error=exc.strerror)
        ) from None  # fmt: skip


def _printer(out: TextIO) -> Callable[[Sent], None]:
    def show(sent: Sent) -> None:
        if sent.kind == "scheduled_event" and sent.method in ("POST", "PATCH", "DELETE"):
            # the Discord half of /event: what the bot asked Discord to make, change or delete
            what = describe_event(sent.payload) if sent.payload else "Discord event"
            verb = {"POST": "create", "PATCH": "edit", "DELETE": "delete"}[sent.method]
            print(f"[Discord {verb}] {what} ({sent.path})", file=out, flush=True)
            return
        if sent.kind in ("autocomplete", "other", "delete") or sent.payload.get("type") == 5:
            return
        prefix = _("(updated) ") if sent.kind in ("edit", "channel_edit") else ""
        if sent.kind in ("channel", "channel_edit"):
            prefix = f"[#{sent.channel_id}] {prefix}"
        text = render(sent.data)
        if text:
            print(prefix + text.replace("\n", "\n" + " " * len(prefix)), file=out, flush=True)

    return show


async def run_console(
    local: LocalDiscord,
    stdin: TextIO,
    out: TextIO,
    user_id: int = CONSOLE_USER_ID,
    role_ids: Sequence[int] = (),
) -> None:
    """Read lines until EOF or ``quit``; run each as the console user; print what comes back.

    A command still running after PATIENCE seconds (a slow or frozen server) is left to finish
    in the background, its reply printed when it comes, so the next line is read meanwhile."""
    local.listeners.append(_printer(out))
    loop = asyncio.get_running_loop()
    state = _State(local, out)
    print(
        _("doom.schedule console: type /help, or quit. Buttons: type yes, no or a label."), file=out
    )
    prompt = _is_terminal(stdin)  # a person at a terminal gets a prompt; a pipe does not
    lines = _Lines(stdin, loop)
    try:
        while True:
            if prompt:
                print("> ", end="", file=out, flush=True)
            raw = await lines.readline()
            if not raw:  # readline gives "" only at EOF
                break
            try:
                line = one_line(raw)
            except ValueError as exc:
                print(f"! {exc}", file=out, flush=True)
                continue
            if line.lower() in ("quit", "exit"):
                break
            if not line:
                continue
            try:
                if line.startswith("/"):
                    name, options = parse_line(line, local.bot)
                    exchange = local.begin(name, user_id, role_ids, **options)
                elif state.pending is not None:
                    button = _pick(local.messages[state.pending], line)
                    exchange = local.begin_press(state.pending, button, user_id, role_ids)
                else:
                    print(_("type a slash command, e.g. /help"), file=out)
                    continue
            except (ValueError, KeyError) as exc:
                print(f"! {exc.args[0] if exc.args else exc}", file=out, flush=True)
                continue
            await state.wait(exchange)
    finally:
        await state.settle()


PATIENCE = 3.0  # seconds a command holds the prompt (Discord's own window for a first answer)
SETTLE = 1.0  # seconds the console waits at its end for commands still running


class _State:
    """The console's commands in flight, and the last message with buttons to answer."""

    def __init__(self, local: LocalDiscord, out: TextIO) -> None:
        self.local = local
        self.out = out
        self.pending: int | None = None
        self.running: set[asyncio.Task[Any]] = set()

    async def wait(self, exchange: Exchange) -> None:
        task = exchange.task
        if task is not None:
            done, _still = await asyncio.wait({task}, timeout=PATIENCE)
            if not done:
                print(_("(still waiting for the server: its reply shows here when it comes; "
                        "you can type the next command)"), file=self.out, flush=True)  # fmt: skip
                self.running.add(task)
                task.add_done_callback(lambda _t: self._finished(exchange))
                return
        self._finished(exchange)

    def _finished(self, exchange: Exchange) -> None:
        if exchange.task is not None:
            self.running.discard(exchange.task)
            if not exchange.task.cancelled() and exchange.task.exception() is not None:
                log.error("console command failed", exc_info=exchange.task.exception())
        if exchange.failure is not None:  # what Discord's client would show instead of a reply
            print(f"! {exchange.failure}", file=self.out, flush=True)
        messages = self.local.messages
        found = next(
            (s.message_id for s in reversed(exchange.messages) if s.message_id is not None
             and any(not b.get("disabled") for b in buttons(messages[s.message_id]))),
            None,
        )  # fmt: skip
        if found is not None or not self.running:
            self.pending = found

    async def settle(self) -> None:
        """At the end: give commands still running a moment (not when stopped by a signal),
        then say what is left behind."""
        task = asyncio.current_task()
        if self.running and not (task is not None and task.cancelling()):
            await asyncio.wait(set(self.running), timeout=SETTLE)
        if self.running:
            print(_("(stopping: {n} command(s) still waiting for the server may or may not "
                    "run)", n=len(self.running)), file=self.out, flush=True)  # fmt: skip


_BREAKS = re.compile("[\r\n\v\f\x1c\x1d\x1e\x85\u2028\u2029]")


def one_line(raw: str) -> str:
    """The command on a line as read, stripped; a line break inside it (a CR, a form feed, a
    Unicode line separator: what str.splitlines splits at) is refused, never taken as two."""
    line = raw.strip()
    found = _BREAKS.search(line)
    if found is not None:
        raise ValueError(
            _("that line has a line break inside it ({char} at character {n}): type one "
              "command per line; nothing was run", char=repr(found.group()),
              n=found.start() + 1)
        )  # fmt: skip
    return line


class _Lines:
    """Lines of `stream`, read on a daemon thread of their own. A read waits in `readline` until
    the user presses Enter; in the default executor that wait held up asyncio.run's shutdown, so
    Ctrl-C did nothing until the next Enter. A daemon thread does not keep the process alive."""

    def __init__(self, stream: TextIO, loop: asyncio.AbstractEventLoop) -> None:
        self._loop = loop
        self._wanted: queue.SimpleQueue[asyncio.Future[str]] = queue.SimpleQueue()
        reader = threading.Thread(target=self._read, args=(stream,), name="console-stdin")
        reader.daemon = True
        reader.start()

    async def readline(self) -> str:
        future: asyncio.Future[str] = self._loop.create_future()
        self._wanted.put(future)
        return await future

    def _read(self, stream: TextIO) -> None:
        while True:
            future = self._wanted.get()
            try:
                line = stream.readline()
            except (OSError, ValueError):  # a closed stream reads as the end
                line = ""
            self._loop.call_soon_threadsafe(_resolve, future, line)
            if not line:
                return


def _resolve(future: asyncio.Future[str], line: str) -> None:
    if not future.done():  # cancelled: Ctrl-C while waiting
        future.set_result(line)


def _is_terminal(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):  # a closed or unusual stream
        return False


def _pick(message: Mapping[str, Any], answer: str) -> str:
    enabled = [b for b in buttons(message) if not b.get("disabled")]
    low = answer.lower()
    for b in enabled:
        if str(b.get("label", "")).lower() == low:
            return str(b["custom_id"])
    yes, no = _words(_YES, N_("yes"), N_("Confirm")), _words(_NO, N_("no"), N_("Cancel"))
    wanted = yes if low in yes else no if low in no else set()
    for b in enabled:
        if str(b.get("label", "")).lower() in wanted:
            return str(b["custom_id"])
    labels = ", ".join(str(b.get("label")) for b in enabled)
    raise ValueError(_("answer with one of: {labels}", labels=labels))


def _words(english: set[str], *marked: str) -> set[str]:
    """The English answer words, and the marked ones in the console's language."""
    return english | {_(w).lower() for w in marked}


def main(settings: Settings, *, stdin: TextIO = sys.stdin, stdout: TextIO = sys.stdout) -> int:
    """``python -m bot console``: the bot's cogs in a terminal, as the console user (an admin)."""
    _lines_end_at_newline(stdin)
    return run_until_stopped(_main(settings, stdin, stdout))  # SIGTERM/SIGINT: bot.aio.Stopped


def _lines_end_at_newline(stdin: TextIO) -> None:
    """sys.stdin reads universal newlines, where a lone CR ends a line: `/a ...\r/b ...` would
    run as two commands. A line ends at "\n" only; one_line refuses a CR inside it."""
    reconfigure = getattr(stdin, "reconfigure", None)
    if reconfigure is not None:
        try:
            reconfigure(newline="\n")
        except (ValueError, OSError):  # already read from, or not a text file
            log.debug("console input keeps its newline mode", exc_info=True)


async def _main(settings: Settings, stdin: TextIO, stdout: TextIO) -> int:
    from bot.app import DoomBot
    from bot.services import build_services

    # the person at the terminal already holds the server; alerts print here unless routed elsewhere
    settings = settings.model_copy(
        update={
            "admin_user_ids": [*settings.admin_user_ids, CONSOLE_USER_ID],
            "alert_channel_id": settings.alert_channel_id or CHANNEL_ID,
            "locale": console_locale(
                settings.locale
            ),  # alerts printed here: the console's language
        }
    )
    locale = set_locale(console_locale(settings.locale))  # DOOM_LOCALE, else the system's
    services = await build_services(settings)
    bot = DoomBot(settings, services)
    bot.face = "console"  # the audit log says where a change came from
    from bot.__main__ import start_dashboard

    async with LocalDiscord(bot, locale=discord_locale(locale)) as local:
        bot.web = await start_dashboard(services, bot)
        try:
            if bot.web is not None:
                link = bot.web.login_link(CONSOLE_USER_ID, local.guild_id, "console")
                print(_("Web dashboard: {url} (log in, once, within 5 minutes: {link})",
                        url=bot.web.base_url, link=link), file=stdout, flush=True)  # fmt: skip
            await run_console(local, stdin, stdout)
        finally:
            if bot.web is not None:
                await bot.web.stop()
    return 0
