"""The shape of an `execute` chain, read from the text before it is parsed.

mecha backtracks through every stage of an `execute` chain when the command fails after them:
`execute` + 10 stages + `run sya hi` took 8 s to refuse, and each stage doubles it (the bot's
event loop waits meanwhile). bot.minecraft.command_check uses this module to keep a refusal
cheap: it checks the stages with a stand-in tail and the tail on its own, and refuses chains
longer than it can check quickly.

The reading is lexical: words at the top level (outside quotes, `[...]`, `{...}` and `(...)`),
a stage being a word that names an `execute` subcommand where a subcommand may start. It is a
hint for ordering the checks; what the parser says always decides.
"""

from __future__ import annotations

__all__ = ["STAGE_WORDS", "Chain", "read_chain"]

from dataclasses import dataclass
from typing import Final

STAGE_WORDS: Final = frozenset(
    {
        "align",
        "anchored",
        "as",
        "at",
        "facing",
        "if",
        "in",
        "on",
        "positioned",
        "rotated",
        "store",
        "summon",
        "unless",
    }
)
_OPEN: Final = {"[": "]", "{": "}", "(": ")"}
_TAKES_AS: Final = frozenset({"positioned", "rotated"})  # `positioned as @s`: one stage


@dataclass(frozen=True, slots=True)
class Chain:
    """`stages`: how many words look like execute stages, nested chains included. `runs`: the
    index in the text of each top-level word `run` that follows an `execute`, in order."""

    stages: int
    runs: tuple[int, ...]


def _words(text: str) -> list[tuple[int, str]]:
    """(start, word) of each top-level word; quoted and bracketed parts stay inside a word."""
    words: list[tuple[int, str]] = []
    start: int | None = None
    closers: list[str] = []
    quote: str | None = None
    escaped = False
    for i, ch in enumerate(text):
        if quote is not None:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == quote:
                quote = None
            continue
        if ch in "\"'":
            quote = ch
        elif ch in _OPEN:
            closers.append(_OPEN[ch])
        elif closers and ch == closers[-1]:
            closers.pop()
        elif ch == " " and not closers:
            if start is not None:
                words.append((start, text[start:i]))
                start = None
            continue
        if start is None:
            start = i
    if start is not None:
        words.append((start, text[start:]))
    return words


def read_chain(text: str) -> Chain:
    """Count the stages of the `execute` chains of `text` and find their `run` words."""
    stages = 0
    runs: list[int] = []
    in_chain = False
    command_starts = True  # this word is a command's first (the text's, or after a `run`)
    previous = ""
    for start, word in _words(text):
        starts, command_starts = command_starts, False
        if starts and word == "execute":
            in_chain = True
        elif in_chain and word == "run":
            runs.append(start)
            in_chain = False
            command_starts = True  # maybe `execute` again
        elif starts and word == "return":
            command_starts = False  # `return run <command>`: the run comes next
        elif previous == "return" and word == "run":
            command_starts = True
        elif in_chain and word in STAGE_WORDS and previous not in _TAKES_AS:
            stages += 1
        previous = word
    return Chain(stages, tuple(runs))
