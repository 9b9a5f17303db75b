"""The console front end's session: ``python -m bot console``.

A line typed in the terminal (``/schedule run:say hi time:5 unit:second``) is read against the
operation registry (console.parse: the slash commands' names and options), checked and run on
the core (bot.operations.registry); the outcome prints as text, its sections as tables, its files
written to the console's folder. An operation that asks first (clear, cancel_all, plan import)
prints its question, answered by typing yes or no. No Discord in it: the alerts print here too.
"""

from __future__ import annotations

__all__ = [
    "HISTORY_FILE",
    "Screen",
    "console_caller",
    "help_section",
    "is_terminal",
    "one_line",
    "parse_line",
    "run_console",
]

import asyncio
import getpass
import itertools
import logging
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, tzinfo
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from prompt_toolkit.patch_stdout import patch_stdout
from rich.console import Console

from bot.aio import cancel_and_wait
from bot.i18n import N_, _
from bot.operations import Caller, Rank, refusal
from bot.operations.registry import Done, File, OperationSpec, checked, perform
from bot.operations.sections import Section
from console.files import keep
from console.lines import LineSource, PipeLines, TerminalLines, quiet_terminal
from console.parse import Command, commands, one_line, parse_line
from console.render import Labelled, outcome_view

if TYPE_CHECKING:
    from pydantic import BaseModel

    from bot.operations import Operations

log = logging.getLogger(__name__)

_YES = {"yes", "y", "confirm", "ok"}
_NO = {"no", "n", "cancel", "abort"}
HISTORY_FILE = "console_history"  # in the data folder: the lines typed at the terminal
_PLAIN_WIDTH = 10_000  # a pipe or a file: lines as the bot wrote them, never wrapped
PATIENCE = 3.0  # seconds a command holds the prompt (Discord's own window for a first answer)
SETTLE = 1.0  # seconds the console waits at its end for commands still running
_refs = itertools.count(time.time_ns() // 1000)  # each request's number: an id made from it


def console_caller(name: str | None = None) -> Callable[[], Caller]:
    """The person at the terminal: an admin (they hold the server's settings and data), by
    their login name; each request with its own number."""
    who = name or _login_name()
    return lambda: Caller(0, who, Rank.ADMIN, "console", next(_refs))


def _login_name() -> str:
    try:
        return getpass.getuser() or "console"
    except (KeyError, OSError):  # no login name and no entry in the password database
        return "console"


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
        self.files = files  # where an outcome's files are written (None: not kept)
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
        self,
        text: str,
        sections: Sequence[Section] = (),
        files: Sequence[File] = (),
        prefix: str = "",
    ) -> None:
        now = self.clock()
        view = outcome_view(text, sections, terminal=self.terminal, zone=self.zone, now=now)
        if view is not None:
            # crop=False: a word longer than the line (a link) runs past the edge, uncut
            self.console.print(Labelled(prefix, view) if prefix else view, crop=False)
        for file in files:  # unbroken: a path is copied in one piece
            self.console.print(self._keep(file, now), style="dim", soft_wrap=True)

    def alert(self, section: Section) -> None:
        """An alert, as it comes (above the prompt at a terminal)."""
        self.show("", (section,), prefix=_("[alert] "))

    def _keep(self, file: File, now: datetime) -> str:
        """Write an outcome's file to the console's folder; what to say of it."""
        if self.files is None:
            return _("(attached: {name})", name=file.name)
        local = now.astimezone(self.zone)  # the name's time as the console shows times
        try:
            path = keep(self.files, file.name, file.content, local)
        except OSError as e:
            log.warning("console: could not write %s: %s", file.name, e)
            return _(
                "(attached: {name}; it could not be written to {folder}: {error})",
                name=file.name,
                folder=self.files,
                error=e.strerror or str(e),
            )
        return _("(attached: {name}, saved as {path})", name=file.name, path=path)


async def run_console(
    ops: Operations,
    stdin: TextIO,
    out: TextIO,
    caller: Callable[[], Caller] | None = None,
    *,
    zone: tzinfo | None = None,
    clock: Callable[[], datetime] = lambda: datetime.now(UTC),
    history: Path | None = None,
    files: Path | None = None,
    dashboard: Callable[[], Awaitable[str]] | None = None,
    follow: Callable[[Screen], Awaitable[None]] | None = None,
) -> None:
    """Read lines until EOF or ``quit``; run each as the console user (``caller`` makes each
    request's caller); print what comes back.

    At a terminal (stdin and ``out`` both) the line is read by prompt_toolkit: completion,
    ``history`` (a file), and what prints meanwhile goes above the prompt, the typed line kept;
    ``out`` is then sys.stdout. Otherwise lines are read as they come (a pipe, a file).
    Times show in ``zone`` (None: the system's), relative to ``clock``. An outcome's files are
    written to the folder ``files`` (console.files.keep) and their paths shown. ``dashboard``
    makes a one-time login link for ``/dashboard`` (None: the dashboard is not running).
    ``follow`` runs beside the session with its screen (the alerts printed as they come).

    A command still running after PATIENCE seconds (a slow or frozen server) is left to finish
    in the background, its reply printed when it comes, so the next line is read meanwhile."""
    make_caller = caller or console_caller()
    if is_terminal(stdin) and is_terminal(out):
        # the greeting before the first prompt: printed through patch_stdout, it would come
        # after the prompt (its writer thread runs later), on a dumb terminal after a bare "> "
        _greet(Screen(out, terminal=True))
        with quiet_terminal(stdin), patch_stdout(raw=True):  # prints go above the prompt
            screen = Screen(None, terminal=True, zone=zone, clock=clock, files=files)
            lines: LineSource = TerminalLines(ops, make_caller, history)
            await _beside(_Session(ops, screen, make_caller, dashboard).run(lines), follow, screen)
        return
    screen = Screen(out, terminal=is_terminal(out), zone=zone, clock=clock, files=files)
    _greet(screen)
    # a person typing into a pipe-fed console (output redirected) still gets a prompt
    source = PipeLines(stdin, prompt=is_terminal(stdin), out=out)
    await _beside(_Session(ops, screen, make_caller, dashboard).run(source), follow, screen)


async def _beside(
    session: Awaitable[None],
    follow: Callable[[Screen], Awaitable[None]] | None,
    screen: Screen,
) -> None:
    """The session, with `follow` running beside it until it ends."""
    task = asyncio.ensure_future(follow(screen)) if follow is not None else None
    try:
        await session
    finally:
        if task is not None:
            await cancel_and_wait(task)


def _greet(screen: Screen) -> None:
    screen.say(_("doom.schedule console: type /help, or quit. Buttons: type yes, no or a label."))


@dataclass
class _Question:
    """An operation that asked first, waiting for yes or no."""

    spec: OperationSpec[Any]
    request: BaseModel
    caller: Caller


class _Session:
    """The console's commands in flight, and the question waiting for an answer."""

    def __init__(
        self,
        ops: Operations,
        screen: Screen,
        caller: Callable[[], Caller],
        dashboard: Callable[[], Awaitable[str]] | None,
    ) -> None:
        self.ops = ops
        self.screen = screen
        self.caller = caller
        self.dashboard = dashboard
        self.question: _Question | None = None
        self.running: set[asyncio.Task[None]] = set()

    async def run(self, lines: LineSource) -> None:
        try:
            while True:
                raw = await lines.readline()
                if not raw:  # "" only at the end of input
                    break
                try:
                    line = one_line(raw)
                except ValueError as exc:
                    self.screen.say(f"! {exc}")
                    continue
                if line.lower() in ("quit", "exit"):
                    break
                if line:
                    await self.line(line)
        finally:
            await self.settle()

    async def line(self, line: str) -> None:
        if not line.startswith("/"):
            if self.question is None:
                self.screen.say(_("type a slash command, e.g. /help"))
                return
            await self._answer(line)
            return
        try:
            command, values = parse_line(line, self.ops.registry)
        except ValueError as exc:
            self.screen.say(f"! {exc.args[0] if exc.args else exc}")
            return
        if command.spec is None:
            await self._own(command)
            return
        await self.wait(self._start(command, values))

    async def _own(self, command: Command) -> None:
        if command.name == "help":
            self.screen.show("", (help_section(self.ops),))
        elif self.dashboard is None:
            self.screen.say(
                _(
                    "The web dashboard is not enabled: an admin sets DOOM_WEB_PORT (and "
                    "DOOM_WEB_URL for the public address) and restarts the bot."
                )
            )
        else:
            try:
                link = await self.dashboard()
                self.screen.show(
                    _(
                        "Your login link (it works once, for 5 minutes; do not share it):\n{link}",
                        link=link,
                    )
                )
            except Exception as exc:  # every fault is said, none ends the console
                self._refused(exc, "dashboard")

    def _start(self, command: Command, values: dict[str, object]) -> asyncio.Task[None]:
        assert command.spec is not None
        return asyncio.create_task(self._execute(command.spec.name, values))

    async def _execute(self, name: str, values: dict[str, object]) -> None:
        caller = self.caller()
        try:
            spec, request = checked(self.ops, caller, name, values)
            if spec.confirm is not None:
                question = await spec.confirm(self.ops, caller, request)
                if question is not None:
                    self.question = _Question(spec, request, caller)
                    labels = f"[{_('Confirm')}] [{_('Cancel')}]"
                    self.screen.show(f"{question}\n{labels}")
                    return
            done = await perform(self.ops, caller, spec, request)
        except Exception as exc:  # every fault is said, none ends the console
            self._refused(exc, name)
            return
        self._done(done)

    def _done(self, done: Done) -> None:
        self.screen.show(done.text, done.sections, done.files)

    def _refused(self, exc: BaseException, name: str) -> None:
        said = refusal.said(exc)
        if said is None:
            _id, said = refusal.unexpected(exc, f"console /{name}")
        self.screen.show(said)

    async def _answer(self, answer: str) -> None:
        low = answer.lower()
        yes, no = _words(_YES, N_("yes"), N_("Confirm")), _words(_NO, N_("no"), N_("Cancel"))
        if low not in yes | no:
            labels = ", ".join((_("Confirm"), _("Cancel")))
            self.screen.say("! " + _("answer with one of: {labels}", labels=labels))
            return
        asked, self.question = self.question, None
        assert asked is not None
        if low in no:
            self.screen.say(_("(updated) ") + _("Cancelled; nothing was changed."))
            return

        async def go() -> None:
            try:
                done = await perform(self.ops, asked.caller, asked.spec, asked.request)
            except Exception as exc:  # every fault is said, none ends the console
                self._refused(exc, asked.spec.name)
                return
            self._done(done)

        await self.wait(asyncio.create_task(go()))

    async def wait(self, task: asyncio.Task[None]) -> None:
        done, _still = await asyncio.wait({task}, timeout=PATIENCE)
        if not done:
            self.screen.say(
                _(
                    "(still waiting for the server: its reply shows here when it "
                    "comes; you can type the next command)"
                )
            )
            self.running.add(task)
            task.add_done_callback(self.running.discard)

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


def help_section(ops: Operations) -> Section:
    """Every command: its name as the console's language says it, the English one beside it
    when they differ, what it does."""
    lines = []
    for command in sorted(commands(ops.registry), key=lambda c: c.name):
        name = command.shown
        also = f" (/{command.name})" if name != command.name else ""
        lines.append(f"**/{name}**{also}: {_(command.summary)}")
    footer = _(
        "Times are game time (a lagging or empty server runs tasks later) unless you "
        "give /schedule `when` or `repeat`: those are wall-clock times."
    )
    return Section(_("doom.schedule commands"), tuple(lines), footer=footer)


def is_terminal(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):  # a closed or unusual stream
        return False


def _words(english: set[str], *marked: str) -> set[str]:
    """The English answer words, and the marked ones in the console's language."""
    return english | {_(w).lower() for w in marked}
