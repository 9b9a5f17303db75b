"""The server: world files, packs, RCON and the Python API tests drive.

Threading: every state change happens under one lock. RCON commands are queued and run by the
server thread between ticks (mcsim/gameloop.py: the 20 TPS loop in realtime mode, a small
drain loop in manual mode); the Python API methods take the lock themselves, so they are safe
from any thread.
"""

from __future__ import annotations

import concurrent.futures
import logging
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Any, Literal, TypeVar, cast

from nbtlib.tag import Compound

import mcsim.commands  # noqa: F401  (registers every command family)
from mcsim.context import FeedbackSink, Source, server_source
from mcsim.deepstack import call_deep, start_deep_thread
from mcsim.dimensions import load_dimensions
from mcsim.executor import Executor
from mcsim.flavours import FlavourReply, FlavourState, get_flavour
from mcsim.gameloop import GameLoop
from mcsim.log import ServerLog
from mcsim.ops import op_level
from mcsim.packs import FunctionLibrary, Pack, discover_packs
from mcsim.session_lock import SessionLock, SessionLockedError
from mcsim.startup import (
    GAME_MODES,
    NEW_WORLD_SPAWN,
    game_mode,
    log_flush_lines,
    log_new_world,
    log_save,
    log_setup,
    log_shutdown_start,
)
from mcsim.state import Counters, SimState
from mcsim.world import (
    GAME_VERSION,
    LevelData,
    load_scoreboard,
    load_storage,
    read_properties,
    save_scoreboard,
    save_storage,
    write_properties,
)

__all__ = ["CommandResult", "Server"]

log = logging.getLogger(__name__)

T = TypeVar("T")
VERSION = GAME_VERSION


@dataclass(frozen=True)
class CommandResult:
    success: bool
    result: int
    feedback: list[str]


class _ConsoleSink(FeedbackSink):
    """The dedicated server console: every feedback line goes to the log as it is."""

    __slots__ = ("_log",)

    def __init__(self, server_log: ServerLog) -> None:
        super().__init__()
        self._log = server_log

    def send(self, text: str) -> None:
        super().send(text)
        self._log.info(text)

    def broadcast(self, text: str) -> None:
        self.send(text)


class Server:
    def __init__(
        self,
        world: Path | None = None,
        *,
        root: Path | None = None,
        rcon_port: int | None = None,
        rcon_password: str | None = None,
        frozen: bool = False,
        noop_commands: Iterable[str] = (),
        log_timestamp: str = "time",
        flavour: str = "vanilla",
    ) -> None:
        self.flavour = get_flavour(flavour)  # mcsim/flavours.py: Paper, Spigot, Fabric edges
        self.flavour_state = FlavourState()
        # Every RCON command received, in order (tests check what a client sent).
        self.rcon_commands: deque[str] = deque(maxlen=100_000)
        if (world is None) == (root is None):
            raise ValueError("give the server either a world folder or a root folder")
        # `root` is vanilla's layout: the server's folder holds server.properties, logs/ and
        # ops.json, the world is the folder named by `level-name` inside it. `world` alone is
        # mcsim's compact layout: everything in the world folder, which is then also the root.
        self.root = Path(root if root is not None else cast(Path, world))
        self.root.mkdir(parents=True, exist_ok=True)
        self.properties_path = self.root / "server.properties"
        self.properties = read_properties(self.properties_path)
        if not self.properties_path.exists():
            # A server writes its own defaults into a new server.properties (Paper: -1 pause).
            self.properties.update(self.flavour.default_properties)
            write_properties(self.properties_path, self.properties)
        self.world = self.root / self._level_folder if root is not None else self.root
        self.world.mkdir(parents=True, exist_ok=True)
        (self.world / "datapacks").mkdir(exist_ok=True)
        if rcon_port is not None:
            self.properties["enable-rcon"] = "true"
            self.properties["rcon.port"] = str(rcon_port)
        if rcon_password is not None:
            self.properties["rcon.password"] = rcon_password
        self._frozen_at_start = frozen
        self._noop = frozenset(noop_commands)
        self._log_timestamp = cast(Literal["time", "datetime"], log_timestamp)
        self.lock = threading.RLock()
        self._stop_lock = threading.Lock()
        self._thread: threading.Thread | None = None
        self._running = False
        self._stopping = False
        self._reload_requested = False
        self.loop = GameLoop(self)
        self._stop_requested = threading.Event()
        self._rcon: Any = None
        self._packs: dict[str, Pack] = {}
        self.sim: SimState | None = None
        self.executor: Executor | None = None
        self.log: ServerLog | None = None
        self._session: SessionLock | None = None
        self.realtime = False

    # -- lifecycle ----------------------------------------------------------------------------

    def start(self, *, realtime: bool = False) -> None:
        # #load runs here: on a deep-stack thread, as every command (mcsim/deepstack.py).
        call_deep(lambda: self._start(realtime))

    def _start(self, realtime: bool) -> None:
        with self.lock:
            if self._running:
                return
            began = time.monotonic()
            slog = self.flavour.wrap_log(
                ServerLog(self.root / "logs", timestamp=self._log_timestamp)
            )
            self.log = slog
            self.flavour.log_bootstrap(slog)
            # The order is vanilla's: log4j opens (and rolls) latest.log when Main's logger is
            # made, before Main.java locks the world; a locked world then ends the start with
            # this error, logged on the launcher's thread, before anything of the world is read
            # or written.
            try:
                self._session = SessionLock.acquire(self.world)
            except SessionLockedError as e:
                slog.error(
                    f"Failed to start the minecraft server\n{e.log_text}", thread="ServerMain"
                )
                slog.close()
                raise
            self.flavour.prepare_world(self.world)
            level = self._open_level(slog)
            log_setup(
                slog,
                self.properties,
                self.flavour.game_version,
                after_properties=lambda: self.flavour.log_after_properties(slog),
            )
            level.game_type = GAME_MODES[game_mode(self.properties)]
            from mcsim.entities import Entities

            sim = SimState(
                entities=Entities(),
                scoreboard=load_scoreboard(self.world / "data"),
                log=slog,
                properties=self.properties,
            )
            sim.storage = load_storage(self.world / "data")
            sim.game_time, sim.day_time = level.time, level.day_time
            sim.gamerules.update(level.gamerules)
            sim.enabled_packs = list(level.enabled_packs)
            sim.disabled_packs = list(level.disabled_packs)
            sim.schedules = list(level.schedules)
            sim.world = self.world
            sim.root = self.root
            sim.server = self
            sim.frozen = self._frozen_at_start
            sim.realtime = realtime
            self.sim = sim
            self.executor = Executor(sim, self._noop)
            sim.executor = self.executor
            self._level = level
            slog.info(f'Preparing level "{self._level_folder}"')
            if not level.initialized:
                # MinecraftServer.createWorlds -> setupSpawn; saved with the next save, as vanilla.
                level.spawn, level.spawn_rot = NEW_WORLD_SPAWN, (0.0, 0.0)
                level.spawn_dimension = "minecraft:overworld"
                level.initialized = True
            sim.spawn, sim.spawn_dimension = level.spawn, level.spawn_dimension
            self._load_packs(startup=True)
            self._run_load()
            slog.info(f'Done ({time.monotonic() - began:.3f}s)! For help, type "help"')
            self.realtime = realtime
            self._running = True
            self._stop_requested.clear()
            if self.properties.get("enable-rcon") == "true":
                from mcsim.rcon import RconServer

                slog.info("Starting remote control listener")
                self._rcon = RconServer(
                    self.properties.get("rcon.ip", "127.0.0.1") or "127.0.0.1",
                    int(self.properties.get("rcon.port", "25575")),
                    self.properties.get("rcon.password", ""),
                    self._submit,
                    slog,
                )
                try:
                    self._rcon.start()
                except (ValueError, OSError) as e:
                    # Vanilla logs and runs on without RCON (e.g. no rcon.password set).
                    slog.warn(str(e))
                    self._rcon = None
            self._thread = start_deep_thread(self.loop.run, "mcsim Server thread")

    @property
    def _level_folder(self) -> str:
        """The world's directory name: vanilla's `level-name` (Preparing level "world")."""
        return self.properties.get("level-name", "world").strip() or "world"

    def _open_level(self, slog: ServerLog) -> LevelData:
        """Read level.dat, or make a new world's; then write it at once, as Main.java does
        (session.backupLevelDataFile before the server thread starts): a freshly started world
        is a world to any tool that looks for level.dat."""
        path = self.world / "level.dat"
        level = LevelData.load(path)
        if level is None:
            log_new_world(slog)
            level = LevelData(level_name=self._level_folder)
            level.game_type = GAME_MODES[game_mode(self.properties)]
        level.save(path)
        return level

    def stop(self) -> None:
        # Serialised: a second caller (Ctrl-C while `stop` runs) waits for the first to finish.
        with self._stop_lock:
            self._stop_locked()

    def _stop_locked(self) -> None:
        with self.lock:
            if not self._running or self._stopping:
                return
            self._stopping = True
        self.loop.request_exit()
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(10)
        with self.lock:
            slog = self.log
            assert slog is not None and self.sim is not None
            # MinecraftServer.shutdown, then MinecraftDedicatedServer.exit stops RCON.
            log_shutdown_start(slog)
            from mcsim.playerdata import shutdown_players

            shutdown_players(self.sim, self.world)
            slog.info("Saving worlds")
            self._save_files()
            log_save(
                slog,
                self._level.level_name,
                self._level_folder,
                list(self.sim.dimensions),
                flush=True,
            )
            if self._rcon is not None:
                self._rcon.stop()
                self._rcon = None
            self.loop.drain_after_stop()
            slog.close()
            self._release_session()
            self._running = False
            self._stopping = False

    def crash(self) -> None:
        """What a crash or SIGKILL leaves (tests): the server gone with nothing saved and no
        shutdown lines, so the world on disk is that of the last save (autosave, `save-all`,
        stop) and a new Server on it starts from there, as vanilla does after a crash."""
        with self._stop_lock:
            with self.lock:
                if not self._running or self._stopping:
                    return
                self._stopping = True
            self.loop.request_exit()
            if self._thread is not None and self._thread is not threading.current_thread():
                self._thread.join(10)
            with self.lock:
                if self._rcon is not None:
                    self._rcon.stop()
                    self._rcon = None
                self.loop.drain_after_stop()
                if self.log is not None:
                    self.log.close()
                self._release_session()  # the OS frees a dead process's locks
                self._running = False
                self._stopping = False

    def _release_session(self) -> None:
        if self._session is not None:
            self._session.release()
            self._session = None

    def __enter__(self) -> Server:
        self.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()

    @property
    def running(self) -> bool:
        return self._running

    def wait_stopped(self, timeout: float | None = None) -> bool:
        """Block until `stop` (the command or Ctrl-C) asked the server to stop."""
        return self._stop_requested.wait(timeout)

    # -- commands -----------------------------------------------------------------------------

    def run(self, command: str, *, as_player: str | None = None) -> CommandResult:
        """Run one command as the console (level 4), or as an online player at their
        operator level from ops.json (0 when not an operator)."""
        result = call_deep(lambda: self._run_locked(command, as_player))
        self.maybe_stop()
        return result

    def _run_locked(self, command: str, as_player: str | None) -> CommandResult:
        text = command[1:] if command.startswith("/") else command
        with self.lock:
            sim, ex = self.world_state()
            assert self.log is not None
            if as_player is None:
                routed = self.flavour.route(self, text)
                if isinstance(routed, FlavourReply):
                    for line in routed.messages:
                        self.log.info(line)
                    return self._flavour_done(routed)
                text = routed
            if as_player is not None:
                player = sim.entities.player(as_player)
                if player is None:
                    raise ValueError(f"player {as_player} is not online")
                sink = FeedbackSink()
                source = Source(
                    entity=player,
                    pos=player.pos,
                    rot=player.rot,
                    dimension=player.dimension,
                    anchor="feet",
                    level=op_level(self.root, player.uuid, player.name),
                    name=player.name,
                    silent=False,
                    sink=sink,
                )
            else:
                sink = _ConsoleSink(self.log)
                source = self._server_source("Server", sink)
            outcome = ex.run_top(text, source)
            return self._after_call(outcome, sink)

    def run_rcon_command(self, text: str) -> str:
        with self.lock:
            _, ex = self.world_state()
            self.rcon_commands.append(text)
            routed = self.flavour.route(self, text)
            if isinstance(routed, FlavourReply):
                self._flavour_done(routed)
                return self.flavour.rcon_reply(list(routed.messages), error=False, own=True)
            sink = FeedbackSink(on_broadcast=self._rcon_broadcast)
            outcome = ex.run_top(routed, self._server_source("Rcon", sink))
            self._after_call(outcome, sink)
        # RconCommandOutput appends each message's text with no separator (the notes), so the
        # lines are joined with none. A Bukkit flavour shapes it its way.
        return self.flavour.rcon_reply(sink.lines, error=outcome.error, own=False)

    def _flavour_done(self, reply: FlavourReply) -> CommandResult:
        """A command the flavour answered itself: run what it left behind (a reload)."""
        if self._reload_requested:
            self._reload_requested = False
            self._load_packs(startup=False)
            self._run_load()
        return CommandResult(reply.success, reply.result, list(reply.messages))

    def log_line(self, text: str) -> None:
        """One INFO line in latest.log from the server thread (flavours' broadcasts)."""
        if self.log is not None:
            self.log.info(text)

    def _server_source(self, name: str, sink: FeedbackSink | None) -> Source:
        """The console (MinecraftServer.getCommandSource) or RCON (RconCommandOutput) source:
        level 4 at the world spawn's block position, rotation 0 0. The console is in the
        spawn's dimension, RCON always in the overworld."""
        sim, _ = self.world_state()
        x, y, z = sim.spawn
        dimension = sim.spawn_dimension if name == "Server" else "minecraft:overworld"
        return server_source(name, sink).with_(
            pos=(float(x), float(y), float(z)), dimension=dimension
        )

    def scheduled_source(self) -> Source:
        """CommandFunctionManager.getScheduledCommandSource (#tick, #load, schedule): the
        console source at level 2 (GAMEMASTERS), silent."""
        return self._server_source("Server", None).with_(level=2, silent=True)

    def _rcon_broadcast(self, text: str) -> None:
        sim = self.sim
        if sim is None or self.log is None:
            return
        if self.properties.get("broadcast-rcon-to-ops", "true") != "true":
            return
        if not sim.gamerules.get("log_admin_commands", True):
            return
        self.log.info(f"[Rcon: {text}]")

    def _after_call(self, outcome: Any, sink: FeedbackSink) -> CommandResult:
        """Requests a command left behind (reload, step in manual mode) run once it is done."""
        if self._reload_requested:
            self._reload_requested = False
            self._load_packs(startup=False)
            self._run_load()
        self.loop.run_pending_steps()
        # No result reported: a function that ran without `return` succeeded; zero contexts
        # (e.g. `execute as @s` from the console) did not.
        success = outcome.success if outcome.fired else outcome.ran_function and not outcome.error
        return CommandResult(success, outcome.result if success else 0, list(sink.lines))

    def _submit(self, command: str) -> concurrent.futures.Future[str]:
        """RconServer's `submit`: queue for the server thread (mcsim.gameloop)."""
        return self.loop.submit(command)

    def maybe_stop(self) -> None:
        if self._stop_requested.is_set() and self._running and not self._stopping:
            if threading.current_thread() is self._thread:
                # The server thread cannot join itself: hand the shutdown to a helper, which
                # first lets the RCON reply ("Stopping the server") go out.
                def later() -> None:
                    time.sleep(0.2)
                    self.stop()

                threading.Thread(target=later, name="mcsim stop", daemon=True).start()
            else:
                self.stop()

    def step(self, ticks: int = 1) -> None:
        """Run full ticks now, frozen or not (the test's clock). Each counts toward the
        autosave; the empty-server pause does not apply (tests step with nobody online)."""

        def steps() -> None:
            with self.lock:
                self.loop.step(ticks)

        call_deep(steps)

    # -- packs --------------------------------------------------------------------------------

    def available_packs(self) -> dict[str, Pack]:
        return dict(self._packs)

    def request_reload(self) -> None:
        self._reload_requested = True

    def request_stop(self) -> None:
        self._stop_requested.set()

    def _load_packs(self, *, startup: bool) -> None:
        sim, ex = self.world_state()
        assert self.log is not None
        self._packs = discover_packs(self.world / "datapacks", self.log)
        builtin = self.flavour.builtin_packs  # vanilla's; Paper adds its own `paper` pack
        enabled = [p for p in sim.enabled_packs if p in builtin or p in self._packs]
        for i, pid in enumerate(builtin):
            if pid not in enabled:
                enabled.insert(i, pid)
        for pid in self._packs:
            if pid in enabled or pid in sim.disabled_packs:
                continue
            # Whatever its pack_format says (MinecraftServer: only missing feature flags hold a
            # new pack back; the format only drives the client's "incompatible" warning).
            enabled.append(pid)
            self.log.info(f"Found new data pack {pid}, loading it automatically")
        sim.enabled_packs = enabled
        packs = [self._packs[p] for p in enabled if p in self._packs]
        if startup:
            # The dimension registry is read once: new dimensions need a restart, as vanilla.
            sim.dimensions = load_dimensions(packs, self.log)
        sim.functions = FunctionLibrary.load(packs, ex.compile_function_line, self.log)
        if not startup:
            self.log.info("Loaded data packs")  # informational; vanilla logs per-registry lines

    def _run_load(self) -> None:
        sim, ex = self.world_state()
        lib = sim.functions
        if lib is None:
            return
        for fid in lib.tags.get("minecraft:load", []):
            fn = lib.functions.get(fid)
            if fn is not None:
                ex.run_function_top(fn, self.scheduled_source())

    # -- world data ---------------------------------------------------------------------------

    def save(self, *, flush: bool = False) -> None:
        """Like save-all: level.dat, command storage, scoreboard, online players.

        `flush` (save-all flush) also logs the chunk storage lines, as vanilla's save does.
        """
        with self.lock:
            from mcsim.playerdata import save_all_players

            sim, _ = self.world_state()
            save_all_players(sim, self.world)
            self._save_files()
            if flush and self.log is not None:
                # saveAll(true, true, true): per-level lines suppressed, the flush lines kept.
                log_flush_lines(self.log, self._level_folder, list(sim.dimensions))

    def _save_files(self) -> None:
        sim, _ = self.world_state()
        level = self._level
        level.time, level.day_time = sim.game_time, sim.day_time
        level.gamerules = dict(sim.gamerules)
        level.enabled_packs = list(sim.enabled_packs)
        level.disabled_packs = list(sim.disabled_packs)
        level.schedules = list(sim.schedules)
        level.spawn, level.spawn_dimension = sim.spawn, sim.spawn_dimension
        level.save(self.world / "level.dat")
        save_storage(self.world / "data", sim.storage)
        save_scoreboard(self.world / "data", sim.scoreboard)

    # -- the Python API -----------------------------------------------------------------------

    def world_state(self) -> tuple[SimState, Executor]:
        if self.sim is None or self.executor is None:
            raise RuntimeError("the server is not started")
        return self.sim, self.executor

    def _locked(self, fn: Callable[[SimState], T]) -> T:
        with self.lock:
            sim, _ = self.world_state()
            return fn(sim)

    def join(
        self,
        name: str,
        *,
        pos: tuple[float, float, float] = (0, 64, 0),
        dimension: str = "minecraft:overworld",
    ) -> str:
        from mcsim.playerdata import join_player

        p = (float(pos[0]), float(pos[1]), float(pos[2]))
        with self.lock:
            sim, _ = self.world_state()
            if dimension not in sim.dimensions:
                raise ValueError(f"unknown dimension {dimension}")
            return join_player(sim, self.world, name, pos=p, dimension=dimension).uuid

    def leave(self, name: str) -> None:
        from mcsim.playerdata import leave_player

        with self.lock:
            sim, _ = self.world_state()
            leave_player(sim, self.world, name)

    def storage(self, id: str) -> dict[str, object]:
        from mcsim.nbt import to_python

        def read(sim: SimState) -> dict[str, object]:
            value = to_python(sim.storage.get(id, Compound()))
            assert isinstance(value, dict)
            return value

        return self._locked(read)

    def score(self, holder: str, objective: str) -> int | None:
        return self._locked(lambda sim: sim.scoreboard.get(holder, objective))

    def chat(self, player: str) -> list[str]:
        return self._locked(lambda sim: list(sim.chat.get(player, [])))

    @property
    def game_time(self) -> int:
        return self._locked(lambda sim: sim.game_time)

    @property
    def counters(self) -> Counters:
        return self._locked(lambda sim: sim.counters)

    @property
    def rcon_port(self) -> int | None:
        return None if self._rcon is None else int(self._rcon.port)

    @property
    def log_path(self) -> Path:
        return self.root / "logs" / "latest.log"

    def rotate_log(self) -> None:
        with self.lock:
            assert self.log is not None
            self.log.rotate()
