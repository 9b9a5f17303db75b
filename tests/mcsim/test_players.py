"""Players joining and leaving (log lines, player data files, leave_game) and Carpet's /player."""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest

import mcsim.commands.entity
import mcsim.commands.player  # noqa: F401  (registers the handlers)
from mcsim.context import FeedbackSink, Source, server_source
from mcsim.entities import Entities, offline_uuid
from mcsim.log import ServerLog
from mcsim.nbt import read_nbt_file
from mcsim.playerdata import (
    LEAVE_GAME,
    join_player,
    leave_player,
    player_data_path,
    shutdown_players,
)
from mcsim.rawcommands import find_raw_handler
from mcsim.registry import Call
from mcsim.scoreboard import Scoreboard
from mcsim.state import SimState


def make_sim(root: Path) -> SimState:
    sim = SimState(
        entities=Entities(),
        scoreboard=Scoreboard(),
        log=ServerLog(root / "logs"),
        properties={},
        rng=random.Random(3),
    )
    sim.world = root
    sim.scoreboard.add_objective("left", LEAVE_GAME)
    return sim


def messages(sim: SimState) -> list[str]:
    return [line.split("]: ", 1)[1] for line in sim.log.path.read_text().splitlines()]


@pytest.fixture
def sim(tmp_path: Path) -> SimState:
    return make_sim(tmp_path)


def player_cmd(sim: SimState, line: str, source: Source | None = None) -> tuple[int, list[str]]:
    handler = find_raw_handler(line)
    assert handler is not None
    sink = FeedbackSink()
    result = handler(Call(sim, (source or server_source()).with_(sink=sink)), line)
    return result, sink.lines


def test_join_logs_vanilla_lines_and_announces_to_others(sim: SimState, tmp_path: Path) -> None:
    join_player(sim, tmp_path, "Steve", pos=(0.5, 64.0, -3.25))
    join_player(sim, tmp_path, "Alex")
    lines = messages(sim)
    assert re.fullmatch(
        r"Steve\[/127\.0\.0\.1:\d+\] logged in with entity id 1 at \(0\.5, 64\.0, -3\.25\)",
        lines[0],
    )
    assert lines[1] == "Steve joined the game"
    assert lines[3] == "Alex joined the game"
    assert sim.chat["Steve"] == ["Alex joined the game"]
    assert sim.chat["Alex"] == []  # the joiner is not on the list when vanilla broadcasts
    assert sim.entities.player("Steve").uuid == offline_uuid("Steve")  # type: ignore[union-attr]


def test_leave_logs_bumps_leave_game_and_saves_data(sim: SimState, tmp_path: Path) -> None:
    join_player(sim, tmp_path, "Steve")
    join_player(sim, tmp_path, "Alex")
    steve = sim.entities.player("Steve")
    assert steve is not None
    steve.tags.add("vip")
    steve.pos = (1.0, 2.0, 3.0)
    steve.dimension = "minecraft:the_nether"
    leave_player(sim, tmp_path, "Steve")
    assert messages(sim)[-2:] == ["Steve lost connection: Disconnected", "Steve left the game"]
    assert sim.chat["Alex"][-1] == "Steve left the game"
    assert sim.scoreboard.get("Steve", "left") == 1
    assert sim.entities.player("Steve") is None
    saved = read_nbt_file(player_data_path(tmp_path, offline_uuid("Steve")))
    assert str(saved["Dimension"]) == "minecraft:the_nether"
    assert [str(t) for t in saved["Tags"]] == ["vip"]


def test_rejoin_restores_tags_position_and_dimension_across_restarts(tmp_path: Path) -> None:
    first = make_sim(tmp_path)
    join_player(first, tmp_path, "Steve")
    steve = first.entities.player("Steve")
    assert steve is not None
    steve.tags.add("home")
    steve.pos, steve.dimension = (7.5, 80.0, 7.5), "minecraft:the_end"
    leave_player(first, tmp_path, "Steve")
    first.log.close()
    second = make_sim(tmp_path)  # a new server on the same world
    back = join_player(second, tmp_path, "Steve", pos=(0.0, 64.0, 0.0))
    assert back.tags == {"home"}
    assert back.pos == (7.5, 80.0, 7.5) and back.dimension == "minecraft:the_end"
    assert messages(second)[0].endswith("at (7.5, 80.0, 7.5)")


def test_server_stop_saves_players_without_bumping_leave_game(
    sim: SimState, tmp_path: Path
) -> None:
    join_player(sim, tmp_path, "Steve")
    shutdown_players(sim, tmp_path)
    assert sim.scoreboard.get("Steve", "left") is None
    assert player_data_path(tmp_path, offline_uuid("Steve")).exists()
    assert sim.entities.players() == []


def test_carpet_spawn_at_position_facing_in_dimension(sim: SimState) -> None:
    line = "player Bot spawn at 10 70 -4 facing 90 0 in minecraft:the_nether"
    assert player_cmd(sim, line) == (1, [])
    bot = sim.entities.player("Bot")
    assert bot is not None and bot.fake
    assert bot.pos == (10.5, 70.0, -3.5) and bot.rot == (90.0, 0.0)
    assert bot.dimension == "minecraft:the_nether"
    assert messages(sim)[:2] == [
        "Bot[local] logged in with entity id 1 at (10.5, 70.0, -3.5)",
        "Bot joined the game",
    ]


def test_carpet_spawn_defaults_to_the_source_and_refuses_duplicates(sim: SimState) -> None:
    src = server_source().with_(pos=(1.0, 65.0, 2.0), dimension="minecraft:the_end")
    assert player_cmd(sim, "/player Bot spawn", src)[0] == 1
    bot = sim.entities.player("Bot")
    assert bot is not None and bot.pos == (1.0, 65.0, 2.0) and bot.dimension == "minecraft:the_end"
    assert player_cmd(sim, "player Bot spawn") == (0, ["Player Bot is already logged on"])
    assert player_cmd(sim, "player Abcdefghijklmnopq spawn") == (
        0,
        ["Player name: Abcdefghijklmnopq is too long"],
    )


def test_carpet_kill_disconnects_the_fake_player(sim: SimState, tmp_path: Path) -> None:
    player_cmd(sim, "player Bot spawn")
    assert player_cmd(sim, "player Bot kill") == (1, [])
    assert sim.entities.player("Bot") is None
    assert messages(sim)[-3:] == [
        "Bot was killed",
        "Bot lost connection: Killed",
        "Bot left the game",
    ]
    assert sim.scoreboard.get("Bot", "left") == 1
    assert player_data_path(tmp_path, offline_uuid("Bot")).exists()


def test_carpet_kill_refuses_real_and_absent_players(sim: SimState, tmp_path: Path) -> None:
    join_player(sim, tmp_path, "Steve")
    assert player_cmd(sim, "player Steve kill") == (0, ["Only fake players can be moved or killed"])
    assert player_cmd(sim, "player Nobody kill") == (0, ["Can only manipulate existing players"])


def test_vanilla_kill_of_a_fake_player_also_disconnects_it(sim: SimState) -> None:
    from mcsim.executor import Executor

    player_cmd(sim, "player Bot spawn")
    out = Executor(sim).run_top("kill Bot", server_source())
    assert out.success
    assert sim.entities.player("Bot") is None
    assert sim.scoreboard.get("Bot", "left") == 1
