"""The console front end: ``python -m bot console``.

Lines typed in the terminal (``/schedule run:say hi time:5 unit:second``) become the interaction
payloads Discord would send and run through the bot's own CommandTree and cogs on a
:class:`~bot.localdiscord.emulator.LocalDiscord`; replies, embeds and alerts print as text, and
buttons are answered by typing ``yes``, ``no`` or a label. One code path with Discord, no second UI.
"""

from __future__ import annotations

__all__ = [
    "CONSOLE_USER_ID",
    "HISTORY_FILE",
    "Screen",
    "is_terminal",
    "one_line",
    "parse_line",
    "run_console",
]

import asyncio
import getpass
import logging
from collections.abc import Callable, Mapping, Sequence
from datetime import UTC, datetime, tzinfo
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from prompt_toolkit.patch_stdout import patch_stdout
from rich.console import Console

from bot.i18n import N_, _
from bot.localdiscord.emulator import Exchange, LocalDiscord, Sent, buttons
from bot.localdiscord.records import channel_name
from bot.localdiscord.scheduled_events import describe_event
from console.files import keep
from console.lines import LineSource, PipeLines, TerminalLines, quiet_terminal
from console.parse import one_line, parse_line
from console.render import Labelled, message_view

if TYPE_CHECKING:
    pass

log = logging.getLogger(__name__)

CONSOLE_USER_ID = 1_100_000_000_000_000_010
_YES = {"yes", "y", "confirm", "ok"}
_NO = {"no", "n", "cancel", "abort"}


class Screen:
    """What the console prints, through rich: colour and the terminal's width on a terminal,
    plain lines (no escape codes, no wrapping) on a pipe or a file."""

    def __init__(
        self,
        out: TextIO | None,
        *,
        terminal: bool,
        zone: tzinfo | None = None,
        clock: Callable[[], datetime] = lambda: datetime.now(UTC),
        files: Path | None = None,
    ) -> None:
        # out None: sys.stdout at each print (prompt_toolkit's patched one, above the prompt)
        self.terminal = terminal
        self.zone = zone
        self.clock = clock
        self.files = files  # where what Discord would attach is written (None: not kept)
        # a channel's name for a post's prefix (the session sets the local Discord's)
        self.channel_name: Callable[[int | None], str] = str
        self.console = Console(
            file=out,
            width=None if terminal else _PLAIN_WIDTH,
            force_terminal=terminal or None,
            no_color=not terminal,
            highlight=False,
            markup=False,
            emoji=False,
        )

    def say(self, text: str) -> None:
        self.console.print(text, soft_wrap=True)

    def show(
        self, data: Mapping[str, Any], prefix: str = "", files: Sequence[tuple[str, bytes]] = ()
    ) -> None:
        now = self.clock()
        saved = self._keep(data, files, now)
        view = message_view(data, terminal=self.terminal, zone=self.zone, now=now, skip=saved)
        if view is not None:
            # crop=False: a word longer than the line (a link) runs past the edge, uncut
            self.console.print(Labelled(prefix, view) if prefix else view, crop=False)
        for note in saved.values():  # unbroken: a path is copied in one piece
            self.console.print(note, style="dim", soft_wrap=True)

    def _keep(
        self, data: Mapping[str, Any], files: Sequence[tuple[str, bytes]], now: datetime
    ) -> dict[int, str]:
        """Write each file the message uploads (an attachment's `id` is its file's place in the
        upload) to the console's folder: by the attachment's place, what to say of it."""
        saved: dict[int, str] = {}
        if self.files is None:
            return saved
        local = now.astimezone(self.zone)  # the name's time as the console shows times
        for i, attachment in enumerate(data.get("attachments") or []):
            index = attachment.get("id")
            if not isinstance(index, int) or not 0 <= index < len(files):
                continue  # one the message already had: written when it came
            name, body = files[index]
            shown = str(attachment.get("filename") or name)
            try:
                path = keep(self.files, shown, body, local)
            except OSError as e:
                log.warning("console: could not write %s: %s", shown, e)
                saved[i] = _(
                    "(attached: {name}; it could not be written to {folder}: {error})",
                    name=shown,
                    folder=self.files,
                    error=e.strerror or str(e),
                )
                continue
            saved[i] = _("(attached: {name}, saved as {path})", name=shown, path=path)
        return saved

    def listener(self, sent: Sent) -> None:
        """Print what the bot sent to Discord that a person in the channel would see."""
        if sent.kind == "scheduled_event" and sent.method in ("POST", "PATCH", "DELETE"):
            # the Discord half of /event: what the bot asked Discord to make, change or delete
            what = describe_event(sent.payload) if sent.payload else "Discord event"
            verb = {"POST": "create", "PATCH": "edit", "DELETE": "delete"}[sent.method]
            self.say(f"[Discord {verb}] {what} ({sent.path})")
            return
        if sent.kind in ("autocomplete", "other", "delete") or sent.payload.get("type") == 5:
            return
        prefix = _("(updated) ") if sent.kind in ("edit", "channel_edit") else ""
        if sent.kind in ("channel", "channel_edit"):
            prefix = f"[#{self.channel_name(sent.channel_id)}] {prefix}"
        self.show(sent.data, prefix, sent.files)


HISTORY_FILE = "console_history"  # in the data folder: the lines typed at the terminal
_PLAIN_WIDTH = 10_000  # a pipe or a file: lines as the bot wrote them, never wrapped


async def run_console(
    local: LocalDiscord,
    stdin: TextIO,
    out: TextIO,
    user_id: int = CONSOLE_USER_ID,
    role_ids: Sequence[int] = (),
    *,
    zone: tzinfo | None = None,
    clock: Callable[[], datetime] = lambda: datetime.now(UTC),
    history: Path | None = None,
    files: Path | None = None,
) -> None:
    """Read lines until EOF or ``quit``; run each as the console user; print what comes back.

    At a terminal (stdin and ``out`` both) the line is read by prompt_toolkit: completion,
    ``history`` (a file), and what prints meanwhile goes above the prompt, the typed line kept;
    ``out`` is then sys.stdout. Otherwise lines are read as they come (a pipe, a file).
    Times show in ``zone`` (None: the system's), relative to ``clock``. What Discord would
    attach is written to the folder ``files`` (console.files.keep) and its path shown.

    A command still running after PATIENCE seconds (a slow or frozen server) is left to finish
    in the background, its reply printed when it comes, so the next line is read meanwhile."""
    if is_terminal(stdin) and is_terminal(out):
        # the greeting before the first prompt: printed through patch_stdout, it would come
        # after the prompt (its writer thread runs later), on a dumb terminal after a bare "> "
        _greet(Screen(out, terminal=True))
        with quiet_terminal(stdin), patch_stdout(raw=True):  # prints go above the prompt
            screen = Screen(None, terminal=True, zone=zone, clock=clock, files=files)
            lines: LineSource = TerminalLines(local, user_id, role_ids, history)
            await _session(local, lines, screen, user_id, role_ids)
        return
    screen = Screen(out, terminal=is_terminal(out), zone=zone, clock=clock, files=files)
    _greet(screen)
    # a person typing into a pipe-fed console (output redirected) still gets a prompt
    await _session(
        local, PipeLines(stdin, prompt=is_terminal(stdin), out=out), screen, user_id, role_ids
    )


def console_user_name() -> str:
    """The name the console user goes by: the system's user name, else "console"."""
    try:
        return getpass.getuser() or "console"
    except (KeyError, OSError):  # no login name and no entry in the password database
        return "console"


def _greet(screen: Screen) -> None:
    screen.say(_("doom.schedule console: type /help, or quit. Buttons: type yes, no or a label."))


async def _session(
    local: LocalDiscord,
    lines: LineSource,
    screen: Screen,
    user_id: int,
    role_ids: Sequence[int],
) -> None:
    screen.channel_name = lambda cid: channel_name(cid, local.channel_id, local.bot.settings)
    if user_id == CONSOLE_USER_ID:  # the person at the terminal, by their name where it is known
        local.names.setdefault(user_id, console_user_name())
    local.listeners.append(screen.listener)
    state = _State(local, screen)
    try:
        while True:
            raw = await lines.readline()
            if not raw:  # "" only at the end of input
                break
            try:
                line = one_line(raw)
            except ValueError as exc:
                screen.say(f"! {exc}")
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
                    screen.say(_("type a slash command, e.g. /help"))
                    continue
            except (ValueError, KeyError) as exc:
                screen.say(f"! {exc.args[0] if exc.args else exc}")
                continue
            await state.wait(exchange)
    finally:
        local.listeners.remove(screen.listener)
        await state.settle()


PATIENCE = 3.0  # seconds a command holds the prompt (Discord's own window for a first answer)
SETTLE = 1.0  # seconds the console waits at its end for commands still running


class _State:
    """The console's commands in flight, and the last message with buttons to answer."""

    def __init__(self, local: LocalDiscord, screen: Screen) -> None:
        self.local = local
        self.screen = screen
        self.pending: int | None = None
        self.running: set[asyncio.Task[Any]] = set()

    async def wait(self, exchange: Exchange) -> None:
        task = exchange.task
        if task is not None:
            done, _still = await asyncio.wait({task}, timeout=PATIENCE)
            if not done:
                self.screen.say(
                    _(
                        "(still waiting for the server: its reply shows here when it "
                        "comes; you can type the next command)"
                    )
                )
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
            self.screen.say(f"! {exchange.failure}")
        messages = self.local.messages
        found = next(
            (
                s.message_id
                for s in reversed(exchange.messages)
                if s.message_id is not None
                and any(not b.get("disabled") for b in buttons(messages[s.message_id]))
            ),
            None,
        )
        if found is not None or not self.running:
            self.pending = found

    async def settle(self) -> None:
        """At the end: give commands still running a moment (not when stopped by a signal),
        then say what is left behind."""
        task = asyncio.current_task()
        if self.running and not (task is not None and task.cancelling()):
            await asyncio.wait(set(self.running), timeout=SETTLE)
        if self.running:
            self.screen.say(
                _(
                    "(stopping: {n} command(s) still waiting for the server may or may not run)",
                    n=len(self.running),
                )
            )


def is_terminal(stream: TextIO) -> bool:
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
