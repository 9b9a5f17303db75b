"""Facts from ../shared/notes/vanilla-1.21.md that no other mcsim test pinned down.

Each test drives the full Server (real pack files, real latest.log) and fails if mcsim departs from
the fact named in its docstring.
"""

from __future__ import annotations

import gzip
import threading
from collections.abc import Callable
from pathlib import Path

import pytest

from mcsim.server import Server
from tests.mcsim.conftest import WritePack

__all__: list[str] = []

WAIT = 5.0  # every wait on the realtime loop gives up after this long
OVERFLOW_100 = "Command execution stopped due to limit (executed 100 commands)"
MakeServer = Callable[..., Server]


def log_text(srv: Server) -> str:
    return srv.log_path.read_text(encoding="utf-8")


@pytest.fixture
def srv(make_server: MakeServer, pack: WritePack) -> Server:
    pack(
        {
            "t:load": "scoreboard objectives add o dummy\nsay from load",
            "t:later": "say from schedule",
            "t:tellraw": 'tellraw @a "whisper from a function"',
            "t:loop": "scoreboard players add #loop o 1\nfunction t:loop",
            "t:loop2": "scoreboard players add #loop2 o 1\nfunction t:loop2",
            "t:quote": '$data modify storage t:s text set value "$(v)"',
            "t:quote_caller": "function t:quote {v: 'a\"b'}\nscoreboard players set #went_on o 1",
            "t:count": "scoreboard players add #calls o 1\nreturn 1",
            "t:args": "$data modify storage t:s got append value $(v)\n"
            "data modify storage t:args a.v set value 99",
        },
        tags={"minecraft:load": ["t:load"]},
    )
    return make_server()


# -- what reaches latest.log ------------------------------------------------------------------


def test_say_from_load_and_scheduled_functions_is_said_by_server(srv: Server) -> None:
    """`say` run by a load/scheduled function logs `[Not Secure] [Server] text`."""
    srv.run("schedule function t:later 2t")
    srv.step(2)
    text = log_text(srv)
    assert "[Server thread/INFO]: [Not Secure] [Server] from load" in text
    assert "[Server thread/INFO]: [Not Secure] [Server] from schedule" in text


def test_say_run_as_an_entity_is_said_by_that_entity(srv: Server) -> None:
    """`execute as <player> run say` logs `[Not Secure] [<name>] text`."""
    srv.join("Alex")
    srv.run("execute as Alex run say as alex")
    assert "[Server thread/INFO]: [Not Secure] [Alex] as alex" in log_text(srv)
    assert srv.chat("Alex")[-1] == "[Alex] as alex"


def test_tellraw_from_a_function_reaches_players_but_never_the_log(srv: Server) -> None:
    """`tellraw` run from a function is shown to players and never logged."""
    srv.join("Alex")
    srv.run("function t:tellraw")
    assert srv.chat("Alex")[-1] == "whisper from a function"
    assert "whisper from a function" not in log_text(srv)


def test_tellraw_resolves_only_selector_components(srv: Server) -> None:
    """A plain text component keeps `@a` as text (only `say` expands selectors in text)."""
    srv.join("Alex")
    srv.run('tellraw Alex "hi @a"')
    assert srv.chat("Alex")[-1] == "hi @a"


def test_start_up_rolls_the_previous_latest_log(world: Path) -> None:
    """latest.log is rolled to logs/YYYY-MM-DD-N.log.gz when the server starts."""
    with Server(world, frozen=True) as first:
        first.run("say marker of the first run")
    with Server(world, frozen=True) as second:
        assert "marker of the first run" not in log_text(second)
        archives = sorted((world / "logs").glob("*.log.gz"))
        assert archives, list((world / "logs").iterdir())
        name = archives[-1].name
        assert name[:4].isdigit() and name[4] == "-" and name.endswith("-1.log.gz")
        rolled = gzip.decompress(archives[-1].read_bytes()).decode("utf-8")
        assert "[Not Secure] [Server] marker of the first run" in rolled


# -- the command budget -----------------------------------------------------------------------


def test_each_tick_function_gets_its_own_budget(make_server: MakeServer, pack: WritePack) -> None:
    """Each function of the #tick tag is its own top-level call with its own budget."""
    pack(
        {
            "t:load": "scoreboard objectives add o dummy",
            "t:loop": "scoreboard players add #loop o 1\nfunction t:loop",
            "t:loop2": "scoreboard players add #loop2 o 1\nfunction t:loop2",
        },
        tags={"minecraft:load": ["t:load"], "minecraft:tick": ["t:loop", "t:loop2"]},
    )
    srv: Server = make_server()
    srv.run("gamerule max_command_sequence_length 100")
    srv.step(1)
    # each round costs 2 (function entry + scoreboard command): 50 rounds fit in each budget
    assert (srv.score("#loop", "o"), srv.score("#loop2", "o")) == (50, 50)
    assert log_text(srv).count(OVERFLOW_100) == 2


def test_each_scheduled_function_gets_its_own_budget(srv: Server) -> None:
    """Each function fired by /schedule is its own top-level call with its own budget."""
    srv.run("gamerule max_command_sequence_length 100")
    srv.run("schedule function t:loop 1t")
    srv.run("schedule function t:loop2 1t")
    srv.step(1)
    assert (srv.score("#loop", "o"), srv.score("#loop2", "o")) == (50, 50)


def test_overflow_drops_pending_store_callbacks(srv: Server) -> None:
    """At budget 0 the rest is dropped: a pending `execute store` never fires."""
    srv.run("gamerule max_command_sequence_length 100")
    srv.run("scoreboard players set #r o 7")
    srv.run("scoreboard players set #s o 7")
    srv.run("execute store result score #r o store success score #s o run function t:loop")
    # the two store stages cost 1 each, then 49 rounds of 2 use up the rest
    assert srv.score("#loop", "o") == 49
    assert (srv.score("#r", "o"), srv.score("#s", "o")) == (7, 7)


# -- functions and macros ---------------------------------------------------------------------


def test_a_macro_value_holding_a_quote_breaks_that_call_only(srv: Server) -> None:
    """Macro values go in as raw text: a `"` in a value breaks the line, the call fails with
    "Failed to instantiate function ...", and the caller goes on with its next line."""
    out = srv.run("function t:quote {v: 'a\"b'}")
    assert not out.success
    assert out.feedback[-1].startswith("Failed to instantiate function t:quote: ")
    assert "text" not in srv.storage("t:s")
    srv.run("function t:quote_caller")
    assert srv.score("#went_on", "o") == 1
    assert "text" not in srv.storage("t:s")


def test_execute_as_reads_every_contexts_macro_arguments_before_any_body_runs(
    srv: Server,
) -> None:
    """`execute as @a run function f with ...`: the `function` command (incl. reading its macro
    arguments) is evaluated for all contexts first, then the bodies run in order. The body
    rewrites the argument storage: had the second read come after the first body, it would see 99.
    """
    srv.join("A")
    srv.join("B")
    srv.run("data modify storage t:args a set value {v: 1}")
    srv.run("execute as @a run function t:args with storage t:args a")
    assert srv.storage("t:s")["got"] == [1, 1]
    assert srv.storage("t:args")["a"] == {"v": 99}


def test_if_function_runs_for_all_contexts_before_the_chain_goes_on(srv: Server) -> None:
    """`execute as @a if function f run X`: f runs for every context before any X runs."""
    srv.join("A")
    srv.join("B")
    srv.run("scoreboard players set #min o 1000")
    # each X records the smallest call count it saw: 1 if the chain went on after the first call
    srv.run("execute as @a if function t:count run scoreboard players operation #min o < #calls o")
    assert srv.score("#calls", "o") == 2
    assert srv.score("#min", "o") == 2


# -- players and targets ----------------------------------------------------------------------


def test_execute_as_the_uuid_of_a_player_who_left_runs_nothing_silently(srv: Server) -> None:
    """`execute as <uuid>` searches loaded entities only: not loaded, nothing runs, no error."""
    uuid = srv.join("Cat")
    srv.leave("Cat")
    out = srv.run(f"execute as {uuid} run scoreboard players set #ran o 1")
    assert (out.success, out.feedback) == (False, [])
    assert srv.score("#ran", "o") is None
    srv.join("Cat")
    assert srv.run(f"execute as {uuid} run scoreboard players set #ran o 1").success
    assert srv.score("#ran", "o") == 1


def test_scores_survive_a_reconnect(srv: Server) -> None:
    """A player's scores survive leaving and joining again."""
    srv.join("Bob")
    srv.run("scoreboard players set Bob o 5")
    srv.leave("Bob")
    srv.join("Bob")
    assert srv.score("Bob", "o") == 5


# -- tick ---------------------------------------------------------------------------------------


def test_tick_rate_range(server: Server) -> None:
    """`tick rate` takes 1.0 to 10000.0."""
    assert server.run("tick rate 10000").success
    assert server.run("tick rate 1").success
    assert not server.run("tick rate 0.5").success
    assert not server.run("tick rate 10001").success


def test_freeze_stops_tick_functions_and_schedules_in_realtime(
    make_server: MakeServer, pack: WritePack
) -> None:
    """`/tick freeze` stops game time, #tick functions and /schedule in the 20 TPS loop."""
    pack(
        {
            "t:load": "scoreboard objectives add o dummy",
            "t:tick": "scoreboard players add #ticks o 1",
            "t:later": "scoreboard players add #fired o 1",
        },
        tags={"minecraft:load": ["t:load"], "minecraft:tick": ["t:tick"]},
    )
    srv: Server = make_server(frozen=False)
    srv.stop()
    srv.start(realtime=True)
    srv.run("tick rate 1000")  # so that a short wait spans many ticks
    pause = threading.Event()
    for _ in range(int(WAIT / 0.01)):
        if srv.game_time >= 5:
            break
        pause.wait(0.01)
    assert srv.game_time >= 5
    frozen = srv.run("tick freeze")
    assert frozen.success
    time_at_freeze = srv.game_time
    ticks_at_freeze = srv.score("#ticks", "o")
    srv.run("schedule function t:later 1t")
    pause.wait(0.2)  # 200 ticks' worth at the target rate
    assert srv.game_time == time_at_freeze
    assert srv.score("#ticks", "o") == ticks_at_freeze
    assert srv.score("#fired", "o") is None
    srv.run("tick unfreeze")
    for _ in range(int(WAIT / 0.01)):
        if srv.score("#fired", "o") == 1:
            break
        pause.wait(0.01)
    assert srv.score("#fired", "o") == 1


# -- parsing ------------------------------------------------------------------------------------


def test_trailing_data_after_an_argument_is_a_syntax_error(server: Server) -> None:
    """Brigadier needs whitespace after an argument: `a#b` as an objective reads `a`, then finds
    trailing data and refuses the line. (`#` starts a comment only at the start of a function
    line.) The pack's id check relies on this."""
    server.run("scoreboard objectives add a dummy")
    out = server.run("scoreboard players get #chk a#b")
    assert not out.success
    assert out.feedback[-1].endswith("<--[HERE]"), out.feedback
    assert server.run("say a#b").success  # a greedy message takes the rest of the line
