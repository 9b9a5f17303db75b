"""Where the console's lines come from: a terminal (prompt_toolkit) or a pipe.

At a terminal, :class:`TerminalLines` reads with a prompt_toolkit session: the history in a file,
completion of the commands, their options and values (choices, and what the core suggests as
Discord's autocomplete does: live task ids, planned row ids, servers, time zones), and the
prompt redrawn under whatever prints meanwhile. :class:`PipeLines` reads a pipe or a file as it
comes, on a thread of its own.
"""

from __future__ import annotations

__all__ = ["LineSource", "PipeLines", "SlashCompleter", "TerminalLines", "quiet_terminal"]

import asyncio
import contextlib
import logging
import queue
import termios
import threading
from collections.abc import AsyncGenerator, Callable, Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, TextIO

from prompt_toolkit import PromptSession
from prompt_toolkit.completion import CompleteEvent, Completer, Completion
from prompt_toolkit.document import Document
from prompt_toolkit.history import FileHistory, InMemoryHistory

from bot.errors import BotError
from bot.operations.registry import Option
from console.parse import commands, find_command, option_marker, options_of, parse_value

if TYPE_CHECKING:
    from bot.operations import Caller, Operations

log = logging.getLogger(__name__)

AUTOCOMPLETE_LIMIT = 3.0  # seconds: Discord drops an autocomplete answer after 3 s too


class LineSource(Protocol):
    async def readline(self) -> str:
        """The next line, "" at the end of input."""
        ...


class SlashCompleter(Completer):
    """Completions for a console line, as the Discord client offers them while typing: the
    commands, their options, a choice's words, and what the core suggests for a value (live
    task ids, servers and groups, time zones: bot.operations.suggest)."""

    def __init__(self, ops: Operations, caller: Callable[[], Caller]) -> None:
        self.ops = ops
        self.caller = caller

    def get_completions(self, document: Document, event: CompleteEvent) -> Iterable[Completion]:
        return []  # the session completes asynchronously (get_completions_async)

    async def get_completions_async(
        self, document: Document, event: CompleteEvent
    ) -> AsyncGenerator[Completion, None]:
        for completion in await self.complete(document.text_before_cursor):
            yield completion

    async def complete(self, text: str) -> list[Completion]:
        """The completions for ``text``, the line up to the cursor."""
        if not text.startswith("/"):
            return []
        every = commands(self.ops.registry)
        head, space, rest = text.partition(" ")
        if not space:
            return self._names(head[1:], {c.name.split()[0] for c in every})
        try:
            command, rest = find_command(text, self.ops.registry)
        except ValueError:  # an unknown command, or a group whose subcommand is being typed
            subs = [c.name.split()[1] for c in every if c.name.split()[0] == head[1:]]
            if subs and " " not in rest:
                return self._names(rest, [s for s in subs if " " not in s], slash=False)
            return []
        params = options_of(command)
        if not params:
            return []
        found = list(option_marker(params).finditer(rest))
        if found and " " not in rest[found[-1].end() :]:  # the value of the last option
            value = rest[found[-1].end() :]
            given = self._given(rest[: found[-1].start()], found[:-1], params)
            return await self._values(params[found[-1].group(1)], value, given)
        word = rest.rsplit(" ", 1)[-1]
        if ":" in word:
            return []
        used = {params[m.group(1)].name for m in found}
        names = [o.name + ":" for o in command.options if o.name not in used]
        return self._names(word, names, slash=False)

    @staticmethod
    def _names(typed: str, names: Iterable[str], *, slash: bool = True) -> list[Completion]:
        low = typed.lower()
        return [
            Completion(("/" if slash else "") + n, start_position=-len(typed) - slash)
            for n in sorted(names)
            if n.lower().startswith(low)
        ]

    @staticmethod
    def _given(rest: str, found: list[Any], params: dict[str, Option]) -> dict[str, object]:
        """The options written before the one being typed, as far as they read (a suggestion
        uses them: /cancel's id is looked up on its server)."""
        given: dict[str, object] = {}
        for i, match in enumerate(found):
            end = found[i + 1].start() if i + 1 < len(found) else len(rest)
            option = params[match.group(1)]
            try:
                given[option.field] = parse_value(option, rest[match.end() : end].strip())
            except ValueError:
                continue
        return given

    async def _values(
        self, option: Option, typed: str, given: dict[str, object]
    ) -> list[Completion]:
        low = typed.lower()
        if option.choices:
            return [Completion(v, -len(typed)) for v in option.choices if v.lower().startswith(low)]
        try:
            async with asyncio.timeout(AUTOCOMPLETE_LIMIT):
                values = await self.ops.suggest.values(self.caller(), option.field, typed, given)
        except (TimeoutError, BotError):
            log.debug("no completions for %s", option.name, exc_info=True)
            return []
        return [Completion(v, -len(typed)) for v in values]


class TerminalLines:
    """Lines typed at a terminal, read with a prompt_toolkit session."""

    def __init__(
        self, ops: Operations, caller: Callable[[], Caller], history: Path | None = None
    ) -> None:
        if history is not None:
            history.parent.mkdir(parents=True, exist_ok=True)
        self.session: PromptSession[str] = PromptSession(
            history=FileHistory(str(history)) if history is not None else InMemoryHistory(),
            completer=SlashCompleter(ops, caller),
            complete_while_typing=True,
        )

    async def readline(self) -> str:
        try:
            # SIGINT stays with the launcher's handler (bot.aio: a clean stop)
            return await self.session.prompt_async("> ", handle_sigint=False) + "\n"
        except (EOFError, KeyboardInterrupt):  # Ctrl-D, or Ctrl-C typed at the prompt: the end
            return ""


@contextlib.contextmanager
def quiet_terminal(stdin: TextIO) -> Iterator[None]:
    """The terminal neither echoes nor edits lines while the console runs. prompt_toolkit puts
    it in raw mode only while a prompt is up; what is typed meanwhile (a command still running)
    was echoed by the terminal, and then drawn again by the next prompt that read it: twice.
    Now the prompt draws it, once. Signals stay on: Ctrl-C during a command still stops."""
    try:
        fd = stdin.fileno()
        saved = termios.tcgetattr(fd)
    except (OSError, ValueError, termios.error):  # not a terminal after all
        yield
        return
    quiet = list(saved)
    quiet[3] &= ~(termios.ECHO | termios.ICANON)  # lflag
    termios.tcsetattr(fd, termios.TCSANOW, quiet)
    try:
        yield
    finally:
        termios.tcsetattr(fd, termios.TCSANOW, saved)


class PipeLines:
    """Lines of `stream`, read on a daemon thread of their own. A read waits in `readline` until
    the user presses Enter; in the default executor that wait held up asyncio.run's shutdown, so
    Ctrl-C did nothing until the next Enter. A daemon thread does not keep the process alive."""

    def __init__(self, stream: TextIO, *, prompt: bool = False, out: TextIO | None = None) -> None:
        self._loop = asyncio.get_running_loop()
        self._prompt = prompt
        self._out = out
        self._wanted: queue.SimpleQueue[asyncio.Future[str]] = queue.SimpleQueue()
        reader = threading.Thread(target=self._read, args=(stream,), name="console-stdin")
        reader.daemon = True
        reader.start()

    async def readline(self) -> str:
        if self._prompt and self._out is not None:
            print("> ", end="", file=self._out, flush=True)
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
