"""What a scheduled command may not do, whatever the deny-list says, and the allow-list.

A moderator may schedule commands; they may not, through one:

- touch the pack's or the bot's own state: the storages `doom.schedule:*` (the queue, its
  settings, the request mailboxes) and `doom.bot:*` (the never-twice marks, the read views), the
  objectives `doom.schedule` and `doom.schedule.*` (constants and the leave counter every task
  depends on), the pack's tags `doom.schedule.*` (by `tag`, or in NBT such as a marker's
  `Tags`, which the pack's context capture would take for its own), the pack's functions and the
  function tags that run them (`#doom.schedule:*`, `#minecraft:load`, `#minecraft:tick`), and
  the pack itself (`datapack disable "file/doom.schedule"`, whoever relaxed the deny-list): the
  public API is reached through the bot's own commands, which check what they are given;
- make an objective named with the pack's prefix (`scoreboard objectives add doom.schedule.x`):
  those names are the pack's, and a later version of it may make one of them;
- leave behind something that runs a command later, past this check: command blocks and command
  block minecarts (as blocks, entities, items or ids in NBT), a `Command` NBT key, a
  `run_command` click event (a sign runs it at permission level 2 when anyone clicks it),
  the `auto` key of a command block, structure blocks and `place template|jigsaw|structure`
  (a saved structure keeps the command blocks it was saved with, and their commands), and
  `clone` but `clone ... filtered <block>`: clone copies block entities with their data, so
  it copies a command block or a structure block already in the world with its command
  (`replace`, `masked` and `strict` copy every block; a block tag may hold command blocks, as a
  data pack can add any block to any tag, vanilla's too). Vanilla's clone copies blocks only,
  no entities: a region holding a marker copies no marker (and the pack's probe marker lives
  inside one function call). `fill` places the block it names, whatever its mask, so that
  block is what is checked; its `replace` filter only chooses what is replaced.

No rank lifts these rules: an admin's scheduled command passes the same check (they apply
whatever the deny-list says). What they refuse, an admin can still do by hand in game or at the
server console, where it runs once and is seen.

Everything is read from mecha's AST: which argument is a storage, an objective or a function
comes from the command tree, so quoting, spacing and `minecraft:` prefixes do not matter.

`doom.selftest` (the selftest's objective and storage) is not protected: the selftest's own tasks
write it through this same check, and changing it can only spoil a selftest's result.
"""

from __future__ import annotations

__all__ = [
    "PACK_FUNCTION_TAGS",
    "PACK_NAMESPACE",
    "RUNNER_IDS",
    "AllowList",
    "named_arguments",
    "refusal",
]

from collections.abc import Iterable, Iterator
from typing import Final

from mecha import AstCommand, AstNode, AstObjective, AstResourceLocation
from mecha.ast import (
    AstBlock,
    AstNbtCompoundEntry,
    AstNbtCompoundKey,
    AstNbtPathKey,
    AstNbtValue,
    AstString,
    AstWord,
)
from mecha.config import CommandTree

from bot.i18n import Text, lazy

PACK_NAMESPACE: Final = "doom.schedule"
BOT_NAMESPACE: Final = "doom.bot"
# the pack adds doom.schedule:core/load and core/tick to these (datapack/data/minecraft/tags)
PACK_FUNCTION_TAGS: Final = frozenset({"minecraft:load", "minecraft:tick"})
RUNNER_IDS: Final = frozenset(
    {"command_block", "chain_command_block", "repeating_command_block", "command_block_minecart"}
)
STRUCTURE_IDS: Final = frozenset({"structure_block"})
# commands that only show text: their click events run as the clicking player, at that
# player's own permission level (the client sends the command), so they are left alone
_TEXT_ROOTS: Final = frozenset(
    {"tellraw", "title", "say", "me", "msg", "tell", "w", "teammsg", "tm"}
)
# conditions read the world; naming a command block there changes nothing
_READS: Final = ("execute:if:", "execute:unless:", "clear:")


def _pack_name(name: str) -> bool:
    return name == PACK_NAMESPACE or name.startswith(PACK_NAMESPACE + ".")


def _id(text: str) -> str:
    """`minecraft:command_block` and `command_block` are the same id."""
    return text.lower().removeprefix("minecraft:")


def named_arguments(tree: CommandTree, command: AstCommand) -> list[tuple[str, str, str, AstNode]]:
    """Each argument of one command node with (the literal before it, its name, its parser):
    `data modify storage <target>` gives ("storage", "target", "minecraft:resource_location")."""
    node: CommandTree | None = tree
    arguments = list(command.arguments)
    found: list[tuple[str, str, str, AstNode]] = []
    previous = ""
    for part in command.identifier.split(":"):
        child = (node.children or {}).get(part) if node is not None else None
        # `subcommand` (no child): the nested command, which mecha names itself
        if (child is None or child.type == "argument") and arguments:
            parser = "" if child is None else str(child.parser)
            found.append((previous, part, parser, arguments.pop(0)))
        previous = part
        node = child
        if node is not None and node.redirect:
            node = tree.get(*node.redirect)
    return found


def _own_nodes(command: AstCommand) -> Iterator[AstNode]:
    """Every node of this command's arguments, not those of the command it runs."""
    for arg in command.arguments:
        if not isinstance(arg, AstCommand):
            yield from arg.walk()


def _storage(name: str) -> Text | None:
    namespace = name.partition(":")[0] if ":" in name else "minecraft"
    if namespace == PACK_NAMESPACE:
        return lazy(
            "This command touches the pack's own storage {storage}: only the bot's own commands "
            "may change it.",
            storage=name,
        )
    if namespace == BOT_NAMESPACE:
        return lazy(
            "This command touches the bot's own storage {storage} (its never-twice marks and "
            "what it reads the pack with): only the bot itself may change it.",
            storage=name,
        )
    return None


def _objective(name: str) -> Text | None:
    if _pack_name(name):
        return lazy(
            "This command touches the pack's scoreboard objective {objective}: every task "
            "depends on it, so only the pack may change it.",
            objective=name,
        )
    return None


def _function(location: AstResourceLocation) -> Text | None:
    name = location.get_canonical_value().removeprefix("#")
    namespace = location.namespace or "minecraft"
    if location.is_tag and (namespace == PACK_NAMESPACE or name in PACK_FUNCTION_TAGS):
        return lazy(
            "This command calls the function tag #{function}, which runs the pack's own "
            "functions: use the bot's commands (/schedule, /cancel, /pause, ...) instead.",
            function=name,
        )
    if namespace == PACK_NAMESPACE:
        return lazy(
            "This command calls the pack's own function {function}: use the bot's commands "
            "(/schedule, /cancel, /pause, ...) instead.",
            function=name,
        )
    return None


def _tag(name: str) -> Text:
    return lazy(
        "This command changes the pack's own tag {tag}: only the pack, and admins in game, may "
        "set it (doom.schedule.admin decides who is told of every event).",
        tag=name,
    )


def _state(tree: CommandTree, command: AstCommand, nodes: list[AstNode]) -> Text | None:
    """Why this one command (not the one it runs) touches the pack's or the bot's state."""
    if command.identifier.startswith("scoreboard:objectives:add:"):
        made = command.arguments[0] if command.arguments else None
        if isinstance(made, AstWord | AstString) and _pack_name(made.value):
            return lazy(
                "This command makes the objective {objective}, which is named with the pack's "
                "prefix doom.schedule: those names belong to the pack. Choose another name.",
                objective=made.value,
            )
    if command.identifier == "scoreboard:players:reset:targets":
        return lazy(
            "This command resets those score holders on every objective, the pack's own "
            "doom.schedule included: name the objective to reset."
        )
    for literal, name, parser, arg in named_arguments(tree, command):
        if parser == "minecraft:resource_location" and literal == "storage":
            assert isinstance(arg, AstResourceLocation)
            found = _storage(arg.get_canonical_value())
            if found is not None:
                return found
        elif parser == "minecraft:function" and isinstance(arg, AstResourceLocation):
            found = _function(arg)
            if found is not None:
                return found
        elif (
            command.identifier.startswith("tag:targets:")
            and name == "name"
            and isinstance(arg, AstWord)
            and _pack_name(arg.value)
        ):
            return _tag(arg.value)
    if command.identifier.startswith("datapack:"):
        for _literal, _name, _parser, arg in named_arguments(tree, command):
            if isinstance(arg, AstString | AstWord) and arg.value.endswith(PACK_NAMESPACE):
                return lazy(
                    "This command changes the pack {pack} itself: only /setup installs, enables "
                    "or updates it.",
                    pack=arg.value,
                )
    text_only = command.identifier.split(":")[0] in _TEXT_ROOTS
    for node in nodes:
        if isinstance(node, AstObjective):
            found = _objective(node.value)
            if found is not None:
                return found
        elif (
            isinstance(node, AstNbtValue)
            and isinstance(node.value, str)
            and node.value.startswith(PACK_NAMESPACE + ".")
            and not text_only
        ):  # `{Tags:["doom.schedule.probe"]}`: a marker the pack would take for its own
            return _tag(node.value)
        elif isinstance(node, AstNbtCompoundEntry) and isinstance(node.value, AstNbtValue):
            # a text component reading the pack's state: {"storage": ..., "nbt": ...}, {"score":
            # {"objective": ...}}
            key, value = node.key.value, node.value.value
            if isinstance(value, str) and key == "storage":
                found = _storage(value if ":" in value else "minecraft:" + value)
                if found is not None:
                    return found
            elif isinstance(value, str) and key == "objective":
                found = _objective(value)
                if found is not None:
                    return found
    return None


def _clone(command: AstCommand) -> Text | None:
    """Why this `clone` may copy a block entity (a command block with its command): every
    form but `filtered` naming one block."""
    parts = command.identifier.split(":")
    if "filtered" in parts:
        block = next((a for a in command.arguments if isinstance(a, AstBlock)), None)
        tag = block.identifier if block is not None else None
        if not (isinstance(tag, AstResourceLocation) and tag.is_tag):
            return None  # a named block: the id rules below check it
        return lazy(
            "This command clones the blocks of the tag {tag}, and a data pack can put command "
            "blocks in any tag: clone copies the blocks as they are, with what is stored in "
            "them, commands included, past this check. Name one block after `filtered`.",
            tag=tag.get_canonical_value(),
        )
    return lazy(
        "This command clones every block of a region, and clone copies the blocks as they are, "
        "with what is stored in them: a command block or a structure block there would be "
        "copied with its command, past this check. Clone with `filtered <block>`, naming the "
        "block to copy."
    )


def _placed(command: AstCommand, nodes: list[AstNode]) -> list[AstNode]:
    """The nodes naming what this command makes: a `fill ... replace <filter>` without its
    filter, which only chooses the blocks replaced (`fill ... air replace command_block`)."""
    if not command.identifier.endswith(":replace:filter"):
        return nodes
    blocks = [a for a in command.arguments if isinstance(a, AstBlock)]
    if command.identifier.split(":")[0] != "fill" or len(blocks) < 2:
        return nodes
    skipped = {id(n) for n in blocks[-1].walk()}
    return [n for n in nodes if id(n) not in skipped]


def _runner(command: AstCommand, nodes: list[AstNode]) -> Text | None:
    """Why this one command leaves behind something that runs a command later."""
    root = command.identifier.split(":")[0]
    if command.identifier.startswith(_READS):
        return None
    if root == "clone":
        found = _clone(command)
        if found is not None:
            return found
    nodes = _placed(command, nodes)
    if root == "place" and command.identifier.split(":")[1] in {"template", "jigsaw", "structure"}:
        return lazy(
            "This command places a saved structure, and a structure keeps the command blocks it "
            "was saved with: they would run their commands past this check. Only `place "
            "feature` may be scheduled."
        )
    text_only = root in _TEXT_ROOTS
    for node in nodes:
        name: str | None = None
        if isinstance(node, AstResourceLocation) and not node.is_tag:
            name = _id(node.get_canonical_value())
        elif isinstance(node, AstNbtValue) and isinstance(node.value, str) and not text_only:
            name = _id(node.value)
            if "run_command" in node.value.lower():
                return _click_event()
        if name in RUNNER_IDS:
            return lazy(
                "This command makes a {thing}, which runs commands later, past this check: "
                "scheduled tasks may not make command blocks.",
                thing="minecraft:" + name,
            )
        if name in STRUCTURE_IDS:
            return lazy(
                "This command makes a structure block, which can load saved structures with "
                "command blocks in them: scheduled tasks may not make one."
            )
        if text_only:
            continue
        key: str | None = None
        if isinstance(node, AstNbtCompoundKey | AstNbtPathKey):
            key = node.value
        if key is not None and key.lower() == "command":
            return lazy(
                "This command writes a command into NBT ({key}), which a command block, a "
                "minecart or a sign would run later, past this check.",
                key=key,
            )
        if key == "auto":
            return lazy(
                "This command sets `auto` on a block: a command block would run its command by "
                "itself, past this check."
            )
        if key is not None and key.lower() == "run_command":
            return _click_event()
    return None


def _click_event() -> Text:
    return lazy(
        "This command writes a click event that runs a command (run_command): a sign runs it "
        "at permission level 2 when anyone clicks it, past this check."
    )


def refusal(tree: CommandTree, command: AstCommand) -> Text | None:
    """Why the command (every stage and run target of it) may not be scheduled by anyone, or
    None."""
    for node in command.walk():
        if isinstance(node, AstCommand):
            nodes = list(_own_nodes(node))  # walked once: both groups of rules read them
            found = _state(tree, node, nodes) or _runner(node, nodes)
            if found is not None:
                return found
    return None


class AllowList:
    """DOOM_ALLOWED_COMMANDS: when set, a task may only run these command roots (`say`, `give`)
    and call functions of these namespaces (`function:myevents`). `execute` and `return run`
    only carry the command they run, which is what is checked."""

    def __init__(self, entries: Iterable[str], aliases: dict[str, str]) -> None:
        self.aliases = aliases
        roots: set[str] = set()
        namespaces: set[str] = set()
        for entry in entries:
            word = entry.strip().lstrip("/").lower()
            if word.startswith("function:"):
                namespaces.add(word.removeprefix("function:"))
            elif word:
                roots.add(aliases.get(word, word))
        self.roots = frozenset(roots)
        self.namespaces = frozenset(namespaces)

    def describe(self) -> str:
        return ", ".join(sorted(self.roots) + [f"function:{n}" for n in sorted(self.namespaces)])

    def _root(self, command: AstCommand) -> str:
        root = command.identifier.split(":")[0]
        return self.aliases.get(root, root)

    def refusal(self, tree: CommandTree, runs: Iterable[AstCommand]) -> Text | None:
        """Why one of the commands that will run is not on the list, or None."""
        for command in runs:
            root = self._root(command)
            carrier = root == "execute" or command.identifier.startswith("return:run:")
            if (
                not carrier
                and root not in self.roots
                and not (root == "function" and self.namespaces)
            ):
                return lazy(
                    "`{command}` is not on this server's allow-list of commands tasks may run "
                    "({allowed}).",
                    command=root,
                    allowed=self.describe() or "none",
                )
            for node in command.walk():
                if not isinstance(node, AstCommand):
                    continue
                for _literal, _name, parser, arg in named_arguments(tree, node):
                    if parser != "minecraft:function" or not isinstance(arg, AstResourceLocation):
                        continue
                    namespace = arg.namespace or "minecraft"
                    if namespace not in self.namespaces and "function" not in self.roots:
                        return lazy(
                            "`{function}`: this server's allow-list lets tasks call functions "
                            "only in these namespaces: {allowed}.",
                            function=arg.get_canonical_value(),
                            allowed=", ".join(sorted(self.namespaces)) or "none",
                        )
        return None
