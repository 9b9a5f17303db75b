"""Checks a task's command before it is scheduled, the way the server would when the task runs.

One function for every front end (slash command, console, pack client): `CommandChecker.check`.
It parses with mecha against the command tree of the server's version, then applies the
server's policy to every command in the chain, not just the first word: `execute ... run X`,
nested `execute`, `return run X`; `function`/`execute if function`/`schedule function` targets
are limited to configured namespaces; commands above `function-permission-level` are refused
because they would only fail when the task runs.

Permission levels are read from the 1.21.11 decompile (`requires(...)` of each command:
MODERATORS 1, GAMEMASTERS 2, ADMINS 3, OWNERS 4); a root not listed needs level 2, and a few
nodes below a root have their own (NODE_LEVEL).

mecha (and the modules built on it) is imported when the first command is checked, not with
this module: importing it costs ~0.7 s of CPU, and most `python -m bot` commands build a
checker for every server without ever checking a command.
"""

from __future__ import annotations

import logging
import threading
from collections import OrderedDict
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from functools import cache, cached_property
from typing import TYPE_CHECKING

from bot.errors import CommandParseError, CommandRefused
from bot.i18n import Joined, Text, lazy
from bot.minecraft.command_trees import NEWEST_TREE, tree_for_version
from bot.minecraft.execute_chain import read_chain

if TYPE_CHECKING:
    from mecha import AstCommand, AstNode

    from bot.minecraft.command_rules import AllowList
    from bot.minecraft.registries import RegistryIds

__all__ = [
    "ALIASES",
    "MAX_EXECUTE_STAGES",
    "NEWEST_TREE",
    "NODE_LEVEL",
    "REQUIRED_LEVEL",
    "CommandChecker",
    "required_level",
    "tree_for_version",
]

log = logging.getLogger(__name__)

# Brigadier redirects: the alias is the same command, so a deny entry covers both spellings.
ALIASES = {"tp": "teleport", "xp": "experience", "tell": "msg", "w": "msg", "tm": "teammsg"}

# Roots whose requirement is not GAMEMASTERS (2). Level 3 (ADMINS_CHECK): Tick, Debug, Kick and
# server/dedicated/command/* (ban..whitelist); level 4 (OWNERS_CHECK): stop, save-*, perf, jfr,
# publish. Level 0: no requires() at all. mcsim/permissions.py holds the same table (the tests
# compare them): the bot does not import mcsim, which only stands in for a server in tests.
REQUIRED_LEVEL: dict[str, int] = {
    "help": 0,
    "list": 0,
    "me": 0,
    "msg": 0,
    "teammsg": 0,
    "trigger": 0,
    "random": 0,  # `random value|roll`; reset and sequences: NODE_LEVEL
    "ban": 3,
    "ban-ip": 3,
    "banlist": 3,
    "debug": 3,
    "deop": 3,
    "kick": 3,
    "op": 3,
    "pardon": 3,
    "pardon-ip": 3,
    "setidletimeout": 3,
    "tick": 3,
    "transfer": 3,
    "whitelist": 3,
    "jfr": 4,
    "perf": 4,
    "publish": 4,
    "save-all": 4,
    "save-off": 4,
    "save-on": 4,
    "stop": 4,
}

# Nodes below a root with their own requires(), by mecha identifier prefix: RandomCommand's
# `reset` and the `sequence` argument of value/roll are GAMEMASTERS.
NODE_LEVEL: dict[str, int] = {
    "random:reset": 2,
    "random:value:range:sequence": 2,
    "random:roll:range:sequence": 2,
}

_FUNCTION_IDS = (
    "function:",
    "execute:if:function:",
    "execute:unless:function:",
    "schedule:function:",
)
_CACHE_SIZE = 4096
# mecha's refusal of a bad stage costs ~2^(stages before it) ms (8 stages: ~0.25 s, 12: ~4 s,
# all of it holding the event loop): longer chains are refused before they are parsed
MAX_EXECUTE_STAGES = 8
_STAND_IN = "say x"  # a tail that always parses: the stages are checked with it


def required_level(root: str) -> int:
    return REQUIRED_LEVEL.get(ALIASES.get(root, root), 2)


def _node_gate(identifier: str) -> tuple[int, str] | None:
    """The level a node below the root requires, and that node's usage text, if one does."""
    for prefix, level in NODE_LEVEL.items():
        if identifier == prefix or identifier.startswith(prefix + ":"):
            root, *rest = prefix.split(":")
            literals = {"reset", "value", "roll"}  # the rest are arguments
            return level, " ".join([root, *(w if w in literals else f"<{w}>" for w in rest)])
    return None


@dataclass(frozen=True, slots=True)
class _Failure:
    column: int  # 1-based
    message: Text  # lazy: verdicts are cached and shown to readers of every language


class _Parser:
    """One Mecha instance per tree, shared by every checker; parses cached by text (AST nodes
    are frozen, so sharing them is safe)."""

    def __init__(self, tree: str) -> None:
        from mecha import Mecha

        self.mecha = Mecha(version=tree)
        self._lock = threading.Lock()
        self._cache: OrderedDict[str, AstCommand | _Failure] = OrderedDict()
        self.parses = 0

    def parse(self, text: str) -> AstCommand | _Failure:
        from mecha import AstCommand, DiagnosticError

        from bot.minecraft.parse_words import in_words

        with self._lock:
            hit = self._cache.get(text)
            if hit is not None:
                self._cache.move_to_end(text)
                return hit
            self.parses += 1
            try:
                node = self.mecha.parse(text, using="command")
                result: AstCommand | _Failure = (
                    node if isinstance(node, AstCommand) else _Failure(1, lazy("Not a command"))
                )
            except DiagnosticError as exc:
                first = exc.diagnostics.exceptions[0]
                pos = first.location.pos if first.location is not None else 0
                result = _Failure(pos + 1, in_words(text, pos, first.message, self.mecha.spec.tree))
            self._cache[text] = result
            if len(self._cache) > _CACHE_SIZE:
                self._cache.popitem(last=False)
            return result


@cache
def _parser(tree: str) -> _Parser:
    return _Parser(tree)


def _normalize(entry: str) -> tuple[str, ...]:
    words = entry.strip().lstrip("/").lower().split()
    if words:
        words[0] = ALIASES.get(words[0], words[0])
    return tuple(words)


class CommandChecker:
    """The check every task's command passes before it reaches the server."""

    def __init__(
        self,
        *,
        deny: Iterable[str],
        function_permission_level: int = 2,
        function_namespaces: Iterable[str] | None = None,
        allowed: Iterable[str] | None = None,
        version: str = "1.21",
        ids_version: str | None = None,
    ) -> None:
        self.deny = tuple(sorted({w for e in deny if (w := _normalize(e))}))
        self.function_permission_level = function_permission_level
        self.refusals: dict[str, int] = {}  # "parse" / "refused" -> commands refused (/metrics)
        self.function_namespaces = (
            None if function_namespaces is None else frozenset(function_namespaces)
        )
        self._allowed = None if allowed is None else tuple(allowed)
        self.version = version
        self.tree, self._fallback = tree_for_version(version)
        # the release whose registry ids are checked (None: the server's version is not known,
        # so no id is refused); see bot.minecraft.registries
        self.ids_version = ids_version
        if self._fallback is not None:
            log.warning("%s", self._fallback)
        self._verdicts: OrderedDict[str, CommandParseError | CommandRefused | None] = OrderedDict()

    @cached_property
    def allowed(self) -> AllowList | None:
        """None: no allow-list (DOOM_ALLOWED_COMMANDS unset), any command the other rules let by."""
        if self._allowed is None:
            return None
        from bot.minecraft.command_rules import AllowList

        return AllowList(self._allowed, ALIASES)

    @property
    def _parser(self) -> _Parser:
        """The shared parser of this checker's tree, made (with mecha) on the first check."""
        return _parser(self.tree)

    def warm(self) -> None:
        """Load mecha and this tree's parser now (~1 s of CPU), not on the first check: a
        running bot does it at start, so a moderator's first command is answered as fast as
        the next."""
        from bot.minecraft.command_rules import refusal  # noqa: F401  (the first check's import)

        self._parser  # noqa: B018  (the property makes the parser)
        self._ids  # noqa: B018  (and the registry ids are read)

    @cached_property
    def _ids(self) -> RegistryIds | None:
        from bot.minecraft.registries import ids_for_version

        return ids_for_version(self.ids_version)

    @property
    def fallback_reason(self) -> str | None:
        """Why the commands are checked against another version's tree, in the reader's language."""
        return None if self._fallback is None else str(self._fallback)

    @property
    def fell_back(self) -> bool:
        return self._fallback is not None

    def check(self, command: str) -> None:
        """Returns if the command may be scheduled; raises CommandParseError or CommandRefused."""
        if command in self._verdicts:
            self._verdicts.move_to_end(command)
            verdict = self._verdicts[command]
        else:
            verdict = self._judge(command)
            self._verdicts[command] = verdict
            if len(self._verdicts) > _CACHE_SIZE:
                self._verdicts.popitem(last=False)
        if verdict is not None:
            kind = "parse" if isinstance(verdict, CommandParseError) else "refused"
            self.refusals[kind] = self.refusals.get(kind, 0) + 1
            raise verdict

    # -- the checks --------------------------------------------------------------------------

    def _chain_failure(self, text: str) -> _Failure | None:
        """mecha's refusal of an `execute ... run <tail>` chain, found without making it
        backtrack through the stages (bot.minecraft.execute_chain): the stages are parsed with a
        stand-in tail, then the tail alone (nested chains likewise). None: no failure found this
        way; the whole command is parsed next either way."""
        runs = read_chain(text).runs
        if not runs:
            return None
        tail = min(runs[0] + len("run "), len(text))  # `... run` at the very end: tail ""
        head = self._parser.parse(text[: runs[0]] + "run " + _STAND_IN)
        if isinstance(head, _Failure):
            # a failure before `run` is the one the whole command has (nothing after it counts)
            return head if head.column <= runs[0] else None
        if not _runs_at(head, tail):
            return None  # that `run` was an argument (a score holder called run): no shortcut
        inner = self._chain_failure(text[tail:])
        if inner is None:
            parsed = self._parser.parse(text[tail:])
            inner = parsed if isinstance(parsed, _Failure) else None
        return None if inner is None else _Failure(tail + inner.column, inner.message)

    def _judge(self, command: str) -> CommandParseError | CommandRefused | None:
        from mecha import AstCommand, AstResourceLocation

        from bot.minecraft.command_rules import refusal

        early = _shape_error(command)
        if early is not None:
            return CommandParseError(command, early.column, early.message)
        stages = read_chain(command).stages
        if stages > MAX_EXECUTE_STAGES:
            return CommandRefused(
                lazy(
                    "This command has {n} `execute` stages; at most {max} can be checked before "
                    "it is scheduled. Put the chain in a function of your data pack and schedule "
                    "`function <namespace>:<name>`.",
                    n=stages,
                    max=MAX_EXECUTE_STAGES,
                )
            )
        failure = self._chain_failure(command)
        if failure is not None:
            return CommandParseError(command, failure.column, failure.message)
        parsed = self._parser.parse(command)
        if isinstance(parsed, _Failure):
            return CommandParseError(command, parsed.column, parsed.message)
        spacing = _spacing_error(command, parsed)
        if spacing is not None:
            return CommandParseError(command, spacing.column, spacing.message)
        if self._ids is not None:
            from bot.minecraft.registries import unknown_id

            unknown = unknown_id(self._parser.mecha.spec.tree, parsed, self._ids)
            if unknown is not None:
                return CommandParseError(command, unknown.pos + 1, unknown.message)
        for node, nested in _chain(parsed):
            text = command[node.location.pos : node.end_location.pos]
            words = _normalize(text)
            where = lazy(" (inside `{command}`)", command=command) if nested else ""
            for entry in self.deny:
                if words[: len(entry)] == entry:
                    said = lazy(
                        "`{command}` is on this server's deny-list{where}.",
                        command=" ".join(entry),
                        where=where,
                    )
                    how = lazy(
                        "An admin allows it by taking it out of DOOM_DENY_COMMANDS, or for one "
                        "server with that server's ALLOW_COMMANDS (e.g. "
                        "DOOM_SERVERS__0__ALLOW_COMMANDS={command}).",
                        command=" ".join(entry),
                    )
                    return CommandRefused(Joined([said, how], " "))
            level = required_level(words[0])
            what = words[0]
            gate = _node_gate(node.identifier)
            if gate is not None and gate[0] > level:  # `random reset`: only the node is gated
                level, what = gate
            if level > self.function_permission_level:
                return CommandRefused(
                    lazy(
                        "`{command}` needs permission level {level}, but scheduled tasks run as "
                        "functions at level {function_level} (function-permission-level), so it "
                        "would fail when the task runs{where}.",
                        command=what,
                        level=level,
                        function_level=self.function_permission_level,
                        where=where,
                    )
                )
        # after the deny-list and the levels, so their sentences stay as admins know them
        rule = refusal(self._parser.mecha.spec.tree, parsed)
        if rule is not None:
            return CommandRefused(rule)
        if self.allowed is not None:
            rule = self.allowed.refusal(
                self._parser.mecha.spec.tree, (n for n, _ in _chain(parsed))
            )
            if rule is not None:
                return CommandRefused(rule)
        if self.function_namespaces is not None:
            for sub in parsed.walk():
                if not isinstance(sub, AstCommand) or not sub.identifier.startswith(_FUNCTION_IDS):
                    continue
                for arg in sub.arguments:
                    if isinstance(arg, AstResourceLocation):
                        namespace = arg.namespace or "minecraft"
                        if namespace not in self.function_namespaces:
                            allowed = ", ".join(sorted(self.function_namespaces)) or "none"
                            return CommandRefused(
                                lazy(
                                    "`{function}`: tasks may only call functions in these "
                                    "namespaces: {allowed}.",
                                    function=arg.get_canonical_value(),
                                    allowed=allowed,
                                )
                            )
        return None


def _chain(root: AstCommand) -> Iterator[tuple[AstCommand, bool]]:
    """Every command that will run: the top one and each `... run X` (execute, return),
    however deeply nested; with whether it is nested."""
    from mecha import AstCommand

    yield root, False
    for node in root.walk():
        if isinstance(node, AstCommand) and node.identifier.endswith("run:subcommand"):
            for arg in node.arguments:
                if isinstance(arg, AstCommand):
                    yield arg, True


def _runs_at(parsed: AstCommand, pos: int) -> bool:
    """Whether the command parsed runs a command that starts at `pos` (the stand-in tail)."""
    from mecha import AstCommand

    return any(
        isinstance(node, AstCommand) and node is not parsed and node.location.pos == pos
        for node in parsed.walk()
    )


def _shape_error(command: str) -> _Failure | None:
    """What mecha lets through but the server refuses: a task's command is one line, with no
    leading slash or space."""
    if not command.strip():
        return _Failure(1, lazy("The command is empty"))
    for index, char in enumerate(command):
        if char in "\r\n" or (not char.isprintable() and char != " "):
            return _Failure(index + 1, lazy("A command is one line of printable text"))
    if command.startswith("/"):
        return _Failure(1, lazy("Write the command without the leading '/'"))
    return None


def _spacing_error(command: str, parsed: AstCommand) -> _Failure | None:
    """Brigadier wants exactly one space between arguments and none at either end (mecha
    accepts more). Spaces inside an argument (a message, a string, NBT, JSON, a selector's
    brackets) are that argument's business."""
    from mecha import AstCommand
    from mecha.ast import AstVector2, AstVector3

    covered = bytearray(len(command))
    for node in parsed.walk():
        if isinstance(node, AstCommand | AstVector2 | AstVector3):
            continue  # their children are checked, not the gaps between them
        if _has_span(node):
            covered[node.location.pos : node.end_location.pos] = b"\x01" * (
                node.end_location.pos - node.location.pos
            )
    for index, char in enumerate(command):
        if covered[index] or not char.isspace():
            continue
        if char != " " or index == 0 or index == len(command) - 1 or command[index - 1] == " ":
            what = lazy("a trailing space") if index == len(command) - 1 else lazy("an extra space")
            return _Failure(index + 1, lazy("Incorrect argument for command ({what})", what=what))
    return None


def _has_span(node: AstNode) -> bool:
    return node.location.pos < node.end_location.pos
