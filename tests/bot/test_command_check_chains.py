"""Refusing a bad `execute` chain without mecha's backtracking (bot.minecraft.execute_chain):
the refusal is the one a plain parse of the whole command gives, and chains too long to check
quickly are refused with a sentence. (What it saves is measured by bench/check_cost.py.)"""

from __future__ import annotations

import pytest

from bot.config import DEFAULT_DENY
from bot.errors import CommandParseError, CommandRefused
from bot.minecraft.command_check import MAX_EXECUTE_STAGES, CommandChecker, _Failure, _parser
from bot.minecraft.execute_chain import read_chain

# short chains: the whole-command parse that gives the reference answer is still cheap here
BAD = [
    "execute as @a run sya hi",
    "execute as @a at @s if entity @s run sya hi",
    "execute if entitty @s run say hi",
    "execute as @a at @s if entitty @s run say hi",
    "execute as @a run execute at @s run execute if block ~ ~ ~ stone run sya",
    "execute as @a run execute at @z run say hi",
    "execute store result score run obj run sya hi",  # a score holder called run
    "execute store result score run obj run",
    "execute as @a[tag=run] run tp @s ~ ~ ~ extra words",
    'execute if data storage a:b {k:"run"} run giv @p minecraft:diamond 1',
    "execute as @a run return run sya",
    "execute run",
    "execute as @a run",
]
GOOD = [
    "execute as @a at @s if entity @s run say hi",
    "execute store result score run obj run say hi",
    "execute as @a run execute at @s run execute if block ~ ~ ~ stone run say done",
    "execute positioned as @s rotated as @s as @a at @s run tp @s ~ ~1 ~",
    'execute if data storage a:b {k:"run say"} run say quoted run',
    "execute if entity @s",
]


@pytest.mark.parametrize("command", BAD)
def test_a_bad_chain_is_refused_as_a_parse_of_the_whole_command_refuses_it(command: str) -> None:
    reference = _parser(CommandChecker(deny=()).tree).parse(command)
    assert isinstance(reference, _Failure), command
    with pytest.raises(CommandParseError) as info:
        CommandChecker(deny=DEFAULT_DENY).check(command)
    assert (info.value.column, str(info.value.message)) == (
        reference.column,
        str(reference.message),
    ), command


@pytest.mark.parametrize("command", GOOD)
def test_good_chains_pass(command: str) -> None:
    CommandChecker(deny=DEFAULT_DENY).check(command)


def test_a_bad_tail_after_the_longest_allowed_chain_is_refused_without_backtracking() -> None:
    checker = CommandChecker(deny=DEFAULT_DENY)
    # tags of its own: the parser's cache is shared by the checkers of one tree
    command = "execute " + "if entity @s[tag=longest] " * MAX_EXECUTE_STAGES + "run sya longest"
    before = checker._parser.parses
    with pytest.raises(CommandParseError) as info:
        checker.check(command)
    assert info.value.column == command.index("sya") + 1
    # the stages with the stand-in tail, then the tail: never the whole command, whose refusal
    # is what backtracks (~2^8 attempts at this length)
    assert checker._parser.parses - before == 2


def test_a_chain_longer_than_the_limit_is_refused_with_a_sentence() -> None:
    command = "execute " + "as @a at @s " * 5 + "run say hi"
    with pytest.raises(CommandRefused) as info:
        CommandChecker(deny=DEFAULT_DENY).check(command)
    text = str(info.value)
    assert "10 `execute` stages" in text and f"at most {MAX_EXECUTE_STAGES}" in text
    assert "function" in text


def test_the_chain_reading_counts_stages_and_finds_the_run_words() -> None:
    chain = read_chain('execute positioned as @s as @a[tag=as] if data a:b {x:"run"} run say run')
    assert chain.stages == 3  # positioned as = one; words in brackets, braces, quotes skipped
    assert chain.runs == (len('execute positioned as @s as @a[tag=as] if data a:b {x:"run"} '),)
    nested = read_chain("execute as @a run execute at @s run say hi")
    assert (nested.stages, len(nested.runs)) == (2, 2)
    assert read_chain("say execute as run").stages == 0
    assert read_chain("execute as @a run return run execute at @s run say x").stages == 2
