"""mecha's parse errors said as a moderator reads them, with the word they probably meant.

mecha says "Expected literal 'advancement', literal 'attribute', ... or 84 other tokens but got
literal 'sya'"; a moderator needs "Unknown command `sya`: did you mean `say`?". The words a
suggestion is picked from are the literals mecha lists and, where it cuts its list short, the
command tree of the server's version (every command root at a command's start, the root's
own subcommands further in).
"""

from __future__ import annotations

__all__ = ["in_words"]

import re
from typing import Any

from bot.i18n import Text, lazy
from bot.i18n.refusals import nearest

_EXPECTED = re.compile(
    r"^Expected (?P<expected>.*) but (?:got (?P<got>.*?)|reached end of file)\.?$", re.DOTALL
)
_LITERAL = re.compile(r"^literal '(.*)'$")
_MORE = re.compile(r"^(\d+) other tokens?$")
_ITEMS = re.compile(r", | or ")
_ENDS = frozenset({"eof", "newline"})


def _word_at(command: str, pos: int) -> str:
    return command[pos:].split(" ", 1)[0]


def _at_command_start(command: str, pos: int) -> bool:
    return pos == 0 or command[:pos].endswith(" run ")


def _literals(tree: Any, depth: int = 2) -> set[str]:
    """The literal words of a command tree node and of its children, `depth` levels down."""
    found: set[str] = set()
    level = [tree]
    for _level in range(depth):
        nxt = []
        for node in level:
            for name, child in (node.children or {}).items():
                if child.type == "literal":
                    found.add(name)
                nxt.append(child)
        level = nxt
    return found


def in_words(command: str, pos: int, message: str, tree: Any) -> Text:
    """The sentence for mecha's `message` about `command` at 0-based `pos`; mecha's own words
    when it says something else than what it expected."""
    said = _EXPECTED.match(message)
    if said is None:
        return message
    items = [i.strip() for i in _ITEMS.split(said["expected"]) if i.strip()]
    literals = [m[1] for i in items if (m := _LITERAL.match(i))]
    more = next((int(m[1]) for i in items if (m := _MORE.match(i))), 0)
    kinds = [i for i in items if not _LITERAL.match(i) and not _MORE.match(i)]
    got = _LITERAL.match((said["got"] or "").strip())
    word = got[1] if got else _word_at(command, pos) if said["got"] is not None else ""
    if not word:
        shown = ", ".join(literals + kinds)
        return lazy("The command ends too early: expected {expected}", expected=shown)
    if kinds and set(kinds) <= _ENDS and not literals:
        return lazy("The command ends before `{word}`: nothing may follow there", word=word)
    if _at_command_start(command, pos) and more:
        near = nearest(word, tree.children or {})
        if near is not None:
            return lazy("Unknown command `{word}`: did you mean `{near}`?", word=word, near=near)
        return lazy(
            "Unknown command `{word}`: this server's version has no such command", word=word
        )
    pool = set(literals)
    if more:  # mecha cut its list short: the command's own words fill it in
        root = (tree.children or {}).get(command.split(" ", 1)[0])
        pool |= _literals(root) if root is not None else set()
    near = nearest(word, pool)
    listed = ", ".join(literals + [k for k in kinds if k not in _ENDS])
    expected: Text = lazy("{listed} and {n} more", listed=listed, n=more) if more else listed
    if near is not None:
        return lazy(
            "`{word}` does not fit here: did you mean `{near}`? (expected {expected})",
            word=word,
            near=near,
            expected=expected,
        )
    return lazy("`{word}` does not fit here (expected {expected})", word=word, expected=expected)
