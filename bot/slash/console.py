"""The console front end: ``python -m bot console``.

Lines typed in the terminal (``/schedule run:say hi time:5 unit:second``) become the interaction
payloads Discord would send and run through the bot's own CommandTree and cogs on a
:class:`~bot.slash.local_discord.LocalDiscord`; replies, embeds and alerts print as text, and
buttons are answered by typing ``yes``, ``no`` or a label. One code path with Discord, no second UI.
"""

from __future__ import annotations

__all__ = ["CONSOLE_USER_ID", "main", "parse_line", "run_console"]

import asyncio
import logging
import queue
import re
import sys
import threading
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, TextIO

import discord
from discord import app_commands

from bot.i18n import N_, _, console_locale, discord_locale, pgettext, set_locale
from bot.i18n.translator import CHOICE_NAME, COMMAND_NAME, OPTION_NAME
from bot.slash.local_discord import CHANNEL_ID, LocalDiscord, Sent, buttons, render
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
    return text


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
    """Read lines until EOF or ``quit``; run each as the console user; print what comes back."""
    local.listeners.append(_printer(out))
    loop = asyncio.get_running_loop()
    pending: int | None = None  # the last message with buttons to answer
    print(
        _("doom.schedule console: type /help, or quit. Buttons: type yes, no or a label."), file=out
    )
    prompt = _is_terminal(stdin)  # a person at a terminal gets a prompt; a pipe does not
    lines = _Lines(stdin, loop)
    while True:
        if prompt:
            print("> ", end="", file=out, flush=True)
        raw = await lines.readline()
        line = raw.strip()
        if not raw or line.lower() in ("quit", "exit"):  # readline gives "" only at EOF
            break
        if not line:
            continue
        try:
            if line.startswith("/"):
                name, options = parse_line(line, local.bot)
                exchange = await local.invoke(name, user_id, role_ids, **options)
            elif pending is not None:
                button = _pick(local.messages[pending], line)
                exchange = await local.press(pending, button, user_id, role_ids)
            else:
                print(_("type a slash command, e.g. /help"), file=out)
                continue
        except (ValueError, KeyError) as exc:
            print(f"! {exc.args[0] if exc.args else exc}", file=out, flush=True)
            continue
        if exchange.failure is not None:  # what Discord's client would show instead of a reply
            print(f"! {exchange.failure}", file=out, flush=True)
        pending = next(
            (s.message_id for s in reversed(exchange.messages) if s.message_id is not None
             and any(not b.get("disabled") for b in buttons(local.messages[s.message_id]))),
            None,
        )  # fmt: skip


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
    return asyncio.run(_main(settings, stdin, stdout))


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
