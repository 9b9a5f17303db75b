"""Parsing (once per distinct line) and running commands with vanilla's execution rules.

Each line is parsed with mecha and compiled to a small object tree (`Compiled`) cached by its
text, so running a cached line costs a few attribute lookups and the handler call. Execution is
breadth-first per `execute` stage, as vanilla's context chains run: every context passes stage i
before any reaches stage i+1. A called function runs to its end before the caller's next line.

Budget, as the 1.21.11 decompile counts it (CommandExecutionContext.decrementCommandQuota has
three callers): an ordinary command costs 1 per context it runs in (FixedCommandAction); a
function entry costs 1 (CommandFunctionAction); every `execute` stage with a redirect modifier
costs 1 once, whatever the number of contexts, even none (SingleCommandAction), except the
Forkable ones (`if|unless function`, `return run`), which cost nothing themselves; `run`,
`function` and `return` (ControlFlowAware) cost 0. The budget is checked before each queue entry
(a function line, a command's run in one context, a function entry), so stage costs of one line
may take it below 0 and the next entry stops. On overflow BudgetExceeded unwinds everything
(pending store/return callbacks never fire).
"""

from __future__ import annotations

import contextlib
import logging
import re
import threading
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, cast

from mecha import DiagnosticError, Mecha
from mecha.ast import AstCommand

from mcsim import parse_cache
from mcsim.context import Source
from mcsim.deepstack import ensure_recursion_limit
from mcsim.errors import BudgetExceeded, CommandError, CommandSyntaxError, UnsupportedCommand
from mcsim.ids import unknown_id
from mcsim.parse_shapes import parse_by_shape
from mcsim.permissions import Gate, clamp_level, command_gates
from mcsim.registry import Call, CommandHandler, find_handler, find_modifier

if TYPE_CHECKING:
    from mcsim.functions import Function
    from mcsim.state import SimState

__all__ = [
    "CONTROL",
    "Budget",
    "Compiled",
    "Executor",
    "Outcome",
    "ReturnSignal",
    "context_failed",
]

log = logging.getLogger(__name__)

_CACHE_LIMIT = 100_000


class ReturnSignal(Exception):
    """`return`: ends the current function with (success, value); `discarded`: ends it with no
    value at all (a `return run` whose inner chain failed before its command ran)."""

    def __init__(self, success: bool, value: int, *, discarded: bool = False) -> None:
        super().__init__(value)
        self.success = success
        self.value = value
        self.discarded = discarded


class Budget:
    """The command budget of one top-level call."""

    __slots__ = ("executed", "limit", "ran_function", "remaining")

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.remaining = limit
        self.executed = 0
        # A function body ran: the call succeeded even if nothing reported a result.
        self.ran_function = False

    def charge(self) -> None:
        """A queue entry that costs 1: a command in one context, a function entry."""
        if self.remaining <= 0:
            raise BudgetExceeded(self.limit)
        self.remaining -= 1
        self.executed += 1

    def charge_stage(self) -> None:
        """An `execute` stage: vanilla decrements inside the line's own queue entry, without
        a check; the next entry sees the overdraft."""
        self.remaining -= 1
        self.executed += 1

    def check(self) -> None:
        """The check vanilla makes before every queue entry, free ones (`function`, `return`)
        included."""
        if self.remaining <= 0:
            raise BudgetExceeded(self.limit)


def context_failed(src: Source, error: CommandError, forked: bool) -> None:
    """A command failed in one context: its store callbacks get (False, 0); before any fork
    the error aborts the whole command, after one it is silent for that context."""
    for cb in src.callbacks:
        cb(False, 0)
    if not forked:
        raise error


class Compiled:
    """A parsed command, ready to run over a list of contexts."""

    __slots__ = ("text",)

    def __init__(self, text: str) -> None:
        self.text = text

    def run(self, sources: list[Source], budget: Budget, forked: bool) -> None:
        raise NotImplementedError


class Leaf(Compiled):
    """An ordinary command: one handler call per context."""

    __slots__ = ("executor", "handler", "node")

    def __init__(self, executor: Executor, node: AstCommand) -> None:
        super().__init__(node.identifier)
        self.executor = executor
        self.node = node
        self.handler: CommandHandler | None = None

    def run(self, sources: list[Source], budget: Budget, forked: bool) -> None:
        fn = self.handler
        if fn is None:
            fn = self.handler = self.executor.resolve(self.node.identifier)
        sim = self.executor.sim
        node = self.node
        for src in sources:
            budget.charge()
            try:
                result = fn(Call(sim, src), node)
            except CommandError as e:
                context_failed(src, e, forked)
                continue
            for cb in src.callbacks:
                cb(True, result)


class ExecuteChain(Compiled):
    """`execute` stages followed by a terminal command (a `run` target or a condition)."""

    __slots__ = ("executor", "stages", "terminal")

    def __init__(
        self, executor: Executor, stages: list[AstCommand], terminal: Compiled | None
    ) -> None:
        super().__init__("execute")
        self.executor = executor
        self.stages = stages
        self.terminal = terminal

    def run(self, sources: list[Source], budget: Budget, forked: bool) -> None:
        sim = self.executor.sim
        fork_limit = int(sim.gamerules.get("max_command_forks", 65536))
        for node in self.stages:
            if not node.identifier.startswith(_FORKABLE):
                budget.charge_stage()
            if not sources:
                # Vanilla walks the rest of the chain with an empty list: each stage still costs.
                continue
            spec = find_modifier(node.identifier)
            out: list[Source] = []
            for src in sources:
                try:
                    out.extend(spec.apply(Call(sim, src), node))
                except CommandError:
                    if forked:
                        continue
                    raise
            # SingleCommandAction: `list2.size() + collection.size() >= limit` is the error, so a
            # stage may hand on at most limit - 1 contexts
            if len(out) >= fork_limit:
                raise CommandError(f"Maximum number of contexts ({fork_limit}) reached")
            if spec.forking:
                forked = True
            sources = out
        if self.terminal is not None:
            # Run even with no context: a nested `run execute ...` is the same flat chain to
            # vanilla, its stages still cost; every other terminal does nothing for no context.
            self.terminal.run(sources, budget, forked)


# Stages whose redirect modifier is a Forkable (ExecuteCommand.IfUnlessRedirector): they enqueue
# their own actions (function entries, then the rest of the chain) and cost nothing themselves.
_FORKABLE = ("execute:if:function:", "execute:unless:function:")


class RawLeaf(Compiled):
    """A command mecha's tree does not know (Carpet's /player), handled on its raw text."""

    __slots__ = ("executor", "raw")

    def __init__(self, executor: Executor, raw: Callable[[Call, str], int], text: str) -> None:
        super().__init__(text)
        self.executor = executor
        self.raw = raw

    def run(self, sources: list[Source], budget: Budget, forked: bool) -> None:
        sim = self.executor.sim
        for src in sources:
            budget.charge()
            try:
                result = self.raw(Call(sim, src), self.text)
            except CommandError as e:
                context_failed(src, e, forked)
                continue
            for cb in src.callbacks:
                cb(True, result)


# Control-flow commands (function, return) compile to their own Compiled classes, registered by
# mcsim/commands/function.py: identifier prefix -> factory.
CONTROL: dict[str, Callable[[Executor, AstCommand], Compiled]] = {}


class _Parsed:
    """A cached parse: the compiled command and its permission gates (text order)."""

    __slots__ = ("compiled", "gates", "needs")

    def __init__(self, compiled: Compiled, gates: tuple[Gate, ...]) -> None:
        self.compiled = compiled
        self.gates = gates
        self.needs = max((g[0] for g in gates), default=0)


@dataclass(slots=True)
class Outcome:
    """What the top-level source heard: the last (success, result) of its commands."""

    fired: bool = False
    success: bool = False
    result: int = 0
    ran_function: bool = False
    error: bool = False

    def record(self, success: bool, result: int) -> None:
        self.fired = True
        self.success = success
        self.result = result if success else 0


@dataclass(slots=True)
class _Reached:
    outcome: Outcome

    def __call__(self, success: bool, result: int) -> None:
        self.outcome.record(success, result)


@dataclass(eq=False)
class Executor:
    sim: SimState
    noop_commands: frozenset[str] = frozenset()
    _cache: dict[str, _Parsed | CommandSyntaxError] = field(default_factory=dict)
    current_budget: Budget | None = None

    # -- parsing ------------------------------------------------------------------------------

    @property
    def function_level(self) -> int:
        """server.properties `function-permission-level`: what functions are parsed at."""
        return clamp_level(self.sim.properties.get("function-permission-level"))

    def compile_line(self, text: str, level: int = 4) -> Compiled:
        """The compiled command for one line as a source at `level` parses it: parsed once and
        cached (failures too); a node above `level` is invisible, so the line fails there."""
        found = self._cache.get(text)
        if found is None:
            try:
                found = self._compile_text(text)
            except CommandSyntaxError as e:
                found = e
            if len(self._cache) >= _CACHE_LIMIT:
                # Macro expansions can make unbounded distinct lines; start afresh.
                self._cache.clear()
            self._cache[text] = found
        if isinstance(found, CommandSyntaxError):
            raise found
        if found.needs > level:
            for needed, cursor in found.gates:
                if needed > level:
                    raise _hidden_node(text, cursor)
        return found.compiled

    def compile_function_line(self, text: str) -> Compiled:
        """A function line (at load, or a macro line at instantiation)."""
        return self.compile_line(text, self.function_level)

    def _compile_text(self, text: str) -> _Parsed:
        from mcsim.rawcommands import find_raw_handler

        raw = find_raw_handler(text)
        if raw is not None:
            return _Parsed(RawLeaf(self, raw, text[1:] if text.startswith("/") else text), ())
        node, gates = parse_line(text)
        return _Parsed(self.compile_node(node), gates)

    def compile_node(self, node: AstCommand) -> Compiled:
        ident = node.identifier
        if ident == "execute:subcommand":
            stages: list[AstCommand] = []
            cur = cast(AstCommand, node.arguments[0])
            while True:
                cid = cur.identifier
                if cid == "execute:run:subcommand":
                    inner = cast(AstCommand, cur.arguments[0])
                    return ExecuteChain(self, stages, self.compile_node(inner))
                if cid.endswith(":subcommand"):
                    stages.append(cur)
                    cur = cast(AstCommand, cur.arguments[-1])
                    continue
                return ExecuteChain(self, stages, Leaf(self, cur))
        root = ident.split(":", 1)[0]
        factory = CONTROL.get(root)
        if factory is not None:
            return factory(self, node)
        return Leaf(self, node)

    def resolve(self, identifier: str) -> CommandHandler:
        try:
            return find_handler(identifier)
        except UnsupportedCommand:
            if identifier.split(":", 1)[0] in self.noop_commands:
                return _noop
            raise

    # -- running ------------------------------------------------------------------------------

    @contextlib.contextmanager
    def _top_level(self, budget: Budget) -> Iterator[None]:
        """One top-level call's budget: overflow and stack exhaustion end the call the way
        vanilla ends a call out of budget (the log line; pending callbacks never fire)."""
        ensure_recursion_limit(budget.limit)
        previous, self.current_budget = self.current_budget, budget
        try:
            yield
        except BudgetExceeded as e:
            self.sim.log.info(str(e))
        except RecursionError:
            _out_of_stack(self.sim, budget)
        else:
            _spent_exactly(self.sim, budget)
        finally:
            self.current_budget = previous
            self._count(budget)

    def run_top(self, text: str, source: Source) -> Outcome:
        """One top-level call (console, RCON): own budget; errors go to the source's sink."""
        outcome = Outcome()
        budget = Budget(self.sim.budget_limit)
        src = source.with_(callbacks=(_Reached(outcome),))
        with self._top_level(budget):
            try:
                compiled = self.compile_line(text, source.level)
                budget.check()
                compiled.run([src], budget, False)
            except ReturnSignal as r:
                if not r.discarded:
                    outcome.record(r.success, r.value)
            except CommandError as e:
                outcome.error = True
                outcome.success, outcome.result = False, 0
                if source.sink is not None and not source.silent:
                    for line in e.message.split("\n"):
                        source.sink.send(line)
        outcome.ran_function = budget.ran_function
        return outcome

    def run_function_top(self, function: Function, source: Source) -> None:
        """A #tick/#load function: its own top-level call; macro functions are skipped."""
        if function.is_macro:
            return
        budget = Budget(self.sim.budget_limit)
        with self._top_level(budget):
            self.call_function(function, function.lines, source, budget)

    def call_function(
        self, function: Function, lines: list[Any], source: Source, budget: Budget
    ) -> tuple[bool, int] | None:
        """Run a function body in one context; (success, value) if it returned, else None."""
        budget.charge()
        # The body runs with the caller's source, silenced (CommandFunctionManager.execute,
        # FunctionCommand): function-permission-level only applies when parsing.
        body_src = source.with_(silent=True, callbacks=())
        sources = [body_src]
        for line in lines:
            if budget.remaining <= 0:
                raise BudgetExceeded(budget.limit)
            try:
                line.run(sources, budget, False)
            except CommandError:
                continue
            except ReturnSignal as r:
                return None if r.discarded else (r.success, r.value)
        return None

    def _count(self, budget: Budget) -> None:
        c = self.sim.counters
        c.last_call = budget.executed
        c.total += budget.executed
        c.current_tick += budget.executed


# One parser per command tree for the whole process (building one takes ~0.1 s); mecha's
# parser is not thread-safe, hence the lock (parses are cached, so it is rarely contended).
_parsers: dict[str, Mecha] = {}
_parse_lock = threading.Lock()

# The command tree the lines are parsed with; part of the process-wide cache's key.
TREE_VERSION = "1.21"

# Parsed lines for the whole process, keyed by (tree version, line): mecha's AST is immutable and
# names no server, so every server started in this process (tests start hundreds, the embedded
# mode restarts its own) reuses the parse of the pack's lines; only compiling a node, which is
# cheap, is per Executor. Failures are kept too: a wrong line is wrong in every world.
_ParseResult = tuple[AstCommand, tuple[Gate, ...]] | CommandSyntaxError
_parsed: dict[tuple[str, str], _ParseResult] = {}


# The function lines of earlier processes (mcsim.parse_cache), read at the first miss.
_on_disk: dict[str, tuple[AstCommand, tuple[Gate, ...]]] | None = None
mecha_parses = 0  # lines this process had mecha parse (the others came from a cache)


def parse_line(text: str) -> tuple[AstCommand, tuple[Gate, ...]]:
    """One command line's AST and its permission gates, parsed once per process; raises
    CommandSyntaxError (the same one each time) for a line the tree refuses."""
    global _on_disk
    key = (TREE_VERSION, text)
    found = _parsed.get(key)
    if found is None:
        if _on_disk is None:
            _on_disk = parse_cache.load(TREE_VERSION)
        found = _on_disk.get(text)
    if found is None:
        try:
            found = parse_by_shape(text, _counted_parse) or _counted_parse(text)
        except CommandSyntaxError as e:
            found = e
        with _parse_lock:
            if len(_parsed) >= _CACHE_LIMIT:
                # Macro expansions can make unbounded distinct lines; start afresh.
                _parsed.clear()
            _parsed[key] = found
    if isinstance(found, CommandSyntaxError):
        raise found.with_traceback(None)
    return found


def _counted_parse(text: str) -> tuple[AstCommand, tuple[Gate, ...]]:
    global mecha_parses
    mecha_parses += 1
    return _parse_command(text)


def parse_cache_size() -> int:
    """How many distinct lines this process has parsed and kept."""
    return len(_parsed)


def keep_on_disk(lines: Iterable[str]) -> None:
    """Add these lines (a pack's function lines, parsed by now) to the file the next process
    reads (mcsim.parse_cache); lines the tree refused are not kept, nor is a file written that
    would hold nothing new."""
    global _on_disk
    if _on_disk is None:
        _on_disk = parse_cache.load(TREE_VERSION)
    new = {}
    for text in lines:
        found = _parsed.get((TREE_VERSION, text))
        if text not in _on_disk and isinstance(found, tuple):
            new[text] = found
    if new:
        _on_disk = {**_on_disk, **new}
        parse_cache.save(TREE_VERSION, _on_disk)


def _parse_command(text: str) -> tuple[AstCommand, tuple[Gate, ...]]:
    try:
        parsed = _parse(text, TREE_VERSION)
    except DiagnosticError as e:
        # Before 1.21.11 game rules were camelCase; the 1.20 tree still knows those names.
        if text.startswith("gamerule "):
            try:
                parsed = _parse(text, "1.20")
            except DiagnosticError:
                raise _syntax_error(text, e) from None
        else:
            raise _syntax_error(text, e) from None
    commands = list(parsed.commands)
    if len(commands) != 1:
        raise CommandSyntaxError("Unknown or incomplete command. See below for error")
    end = int(commands[0].end_location.pos)
    if text[end:].strip():
        # mecha reads `#...` right after an argument as a comment; brigadier reads it as
        # trailing data and refuses the line (`a#b` as an objective reads `a`).
        raise _trailing_data(text, end)
    unknown = unknown_id(_tree(), commands[0])
    if unknown is not None:
        raise _brigadier_error(text, unknown[1], unknown[0])
    return commands[0], command_gates(commands[0])


def _tree() -> Any:
    with _parse_lock:
        parser = _parsers.get(TREE_VERSION)
        if parser is None:
            parser = _parsers[TREE_VERSION] = Mecha(version=TREE_VERSION)
        return parser.spec.tree


def _parse(text: str, version: str) -> Any:
    with _parse_lock:
        parser = _parsers.get(version)
        if parser is None:
            parser = _parsers[version] = Mecha(version=version)
        return parser.parse(text, multiline=True)


def _out_of_stack(sim: SimState, budget: Budget) -> None:
    """Python ran out of recursion before the budget did (deeper than MAX_RECURSION_LIMIT
    allows): the call ends as a budget overflow would, with the commands run so far."""
    log.warning("recursion limit reached after %d commands; ending the call", budget.executed)
    sim.log.info(str(BudgetExceeded(budget.executed)))


def _spent_exactly(sim: SimState, budget: Budget) -> None:
    """CommandExecutionContext.run checks the quota before polling the queue, so a call that
    ends with the budget used up (or overdrawn by its last line's stages) still logs the line."""
    if budget.remaining <= 0:
        sim.log.info(str(BudgetExceeded(budget.limit)))


def _noop(call: Call, node: AstCommand) -> int:
    return 1


_RANGE = re.compile(r"Expected value to be at (least|most) (-?[\d.]+)\.")


def _trailing_data(text: str, cursor: int) -> CommandSyntaxError:
    if text[cursor].isspace():
        head = "Incorrect argument for command"
    else:
        head = "Expected whitespace to end one argument, but found trailing data"
    context = ("..." if cursor > 10 else "") + text[max(0, cursor - 10) :] + "<--[HERE]"
    return CommandSyntaxError(f"{head}\n{context}")


def _hidden_node(text: str, cursor: int) -> CommandSyntaxError:
    """A node the source's level cannot see: brigadier skips it, finds nothing else, and
    CommandManager.getException reports an unknown command (nothing parsed yet) or an
    unknown argument, at the node's start."""
    if cursor == 0:
        head = "Unknown or incomplete command. See below for error"
    else:
        head = "Incorrect argument for command"
    return _brigadier_error(text, cursor, head)


def _brigadier_error(text: str, cursor: int, head: str) -> CommandSyntaxError:
    # Commands.performCommand: up to 10 chars before the cursor, the rest, then <--[HERE].
    context = ("..." if cursor > 10 else "") + text[max(0, cursor - 10) :] + "<--[HERE]"
    err = CommandSyntaxError(f"{head}\n{context}")
    # Brigadier's getMessage(), used inside "Whilst parsing command on line N: ..." texts.
    err.brigadier = (  # type: ignore[attr-defined]
        f"{head} at position {cursor}: "
        f"{'...' if cursor > 10 else ''}{text[max(0, cursor - 10) : cursor]}<--[HERE]"
    )
    return err


def _syntax_error(text: str, e: DiagnosticError) -> CommandSyntaxError:
    """Vanilla's two-line parse error: the message, then up to 10 chars and <--[HERE].

    Brigadier's wording is known for the common cases: an unknown or unfinished command, a word
    that no literal matches, and numbers out of range; others get "Incorrect argument for
    command" (mecha's own wording is kept on `.detail`).
    """
    cursor = 0
    end = 0
    detail = str(e)
    try:
        diag = e.diagnostics.exceptions[0]
        cursor = max(0, int(diag.location.pos))
        end = max(cursor, int(diag.end_location.pos))
        detail = str(diag.message)
    except (AttributeError, IndexError):
        pass
    if cursor == 0 or "got eof" in detail or "reached end of file" in detail:
        head = "Unknown or incomplete command. See below for error"
    elif (m := _RANGE.match(detail)) is not None:
        found = text[cursor:end]
        kind = "Integer" if re.fullmatch(r"-?\d+", found) else "Float"
        bound = m.group(2)
        if kind == "Float" and "." not in bound:
            bound += ".0"
        relation = "less" if m.group(1) == "least" else "more"
        head = f"{kind} must not be {relation} than {bound}, found {found}"
    else:
        head = "Incorrect argument for command"
    err = _brigadier_error(text, cursor, head)
    err.detail = detail  # type: ignore[attr-defined]
    log.debug("parse error in %r: %s", text, detail)
    return err
