"""RconServer against a minimal RCON client written here from the protocol (struct + socket).

The game loop is a stand-in thread that answers the futures `submit` returns, so these tests do not
depend on the rest of mcsim.
"""

from __future__ import annotations

import concurrent.futures
import queue
import re
import socket
import struct
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mcsim.log import ServerLog
from mcsim.rcon import RconServer, split_reply
from tests.rawrcon import WAIT, RawRcon

PASSWORD = "hunter2"

# A 10,000-unit reply with non-BMP characters, none cut by the 4096-unit fragment boundaries.
BIG_REPLY = "x" * 4094 + "😀" + "é" * 4094 + "\U0001f409" + "z" * 1808
# A reply whose surrogate pair straddles the first 4096-unit boundary.
CUT_REPLY = "a" * 4095 + "😀" + "b"


class Game:
    """A stand-in game loop: one thread answers submitted commands in arrival order."""

    def __init__(self) -> None:
        self.seen: list[str] = []
        self.hanging: list[concurrent.futures.Future[str]] = []
        self.on_stop: Callable[[], None] | None = None
        self._queue: queue.Queue[tuple[str, concurrent.futures.Future[str]] | None] = queue.Queue()
        self._thread = threading.Thread(target=self._run, name="test game loop", daemon=True)
        self._thread.start()

    def submit(self, command: str) -> concurrent.futures.Future[str]:
        future: concurrent.futures.Future[str] = concurrent.futures.Future()
        self._queue.put((command, future))
        return future

    def stop(self) -> None:
        self._queue.put(None)
        self._thread.join(WAIT)

    def _run(self) -> None:
        while (item := self._queue.get()) is not None:
            command, future = item
            self.seen.append(command)
            if command == "hang":
                self.hanging.append(future)
            elif command == "stop" and self.on_stop is not None:
                future.set_result("Stopping the server")
                self.on_stop()  # the server shuts RCON down from the game loop thread
            elif command == "fail":
                future.set_exception(RuntimeError("boom"))
            elif command == "big":
                future.set_result(BIG_REPLY)
            elif command == "cut":
                future.set_result(CUT_REPLY)
            elif command.startswith("reply "):
                future.set_result(command.removeprefix("reply ").replace("\\n", "\n"))
            else:
                future.set_result(f"echo:{command}")


@pytest.fixture
def game() -> Iterator[Game]:
    g = Game()
    yield g
    g.stop()


@pytest.fixture
def slog(tmp_path: Path) -> Iterator[ServerLog]:
    s = ServerLog(tmp_path / "logs")
    yield s
    s.close()


@pytest.fixture
def server(game: Game, slog: ServerLog) -> Iterator[RconServer]:
    srv = RconServer("127.0.0.1", 0, PASSWORD, game.submit, slog)
    srv.start()
    yield srv
    srv.stop()


@pytest.fixture
def connect(server: RconServer) -> Iterator[Callable[[], RawRcon]]:
    clients: list[RawRcon] = []

    def make() -> RawRcon:
        c = RawRcon(server.port)
        clients.append(c)
        return c

    yield make
    for c in clients:
        c.close()


def log_lines(slog: ServerLog) -> list[str]:
    return slog.path.read_text(encoding="utf-8").splitlines()


def wait_for_log(slog: ServerLog, pattern: str, count: int = 1) -> list[str]:
    """Lines matching `pattern` (regex on the whole line), once at least `count` are there."""
    done = threading.Event()
    matches: list[str] = []
    for _ in range(int(WAIT / 0.02)):
        matches = [line for line in log_lines(slog) if re.fullmatch(pattern, line)]
        if len(matches) >= count:
            return matches
        done.wait(0.02)
    raise AssertionError(f"log never had {count} x {pattern!r}: {log_lines(slog)}")


STAMP = r"\[\d\d:\d\d:\d\d\] "


def test_start_logs_listener_and_address(server: RconServer, slog: ServerLog) -> None:
    assert server.port > 0
    assert [line[11:] for line in log_lines(slog)] == [
        "[Server thread/INFO]: Thread RCON Listener started",
        f"[Server thread/INFO]: RCON running on 127.0.0.1:{server.port}",
    ]


def test_login_ok_and_bad_password(connect: Callable[[], RawRcon], game: Game) -> None:
    good = connect()
    assert good.login(PASSWORD, request_id=12345) == (12345, 2, b"")
    assert good.command("say hi") == "echo:say hi"

    bad = connect()
    assert bad.login("wrong", request_id=99) == (-1, 2, b"")
    # The connection stays open but unauthenticated: a command gets the same -1 answer.
    bad.send(100, 2, b"say sneaky")
    assert bad.receive() == (-1, 2, b"")
    assert bad.login("", request_id=5) == (-1, 2, b"")  # an empty password never matches
    assert bad.login(PASSWORD, request_id=6) == (6, 2, b"")
    assert bad.command("list") == "echo:list"
    # A failed login after a good one logs the connection out again.
    assert bad.login("nope") == (-1, 2, b"")
    bad.send(3, 2, b"list")
    assert bad.receive() == (-1, 2, b"")
    assert game.seen == ["say hi", "list"]


def test_command_before_login_is_refused(connect: Callable[[], RawRcon], game: Game) -> None:
    c = connect()
    c.send(1, 2, b"stop")
    assert c.receive() == (-1, 2, b"")
    assert c.login(PASSWORD) == (7, 2, b"")
    assert game.seen == []


def test_unknown_types_answer_in_hex(connect: Callable[[], RawRcon]) -> None:
    c = connect()  # no login needed: the default branch does not check it
    for ptype, text in [
        (200, "c8"),
        (0, "0"),
        (1, "1"),
        (-5, "fffffffb"),
        (0x7ABCDEF0, "7abcdef0"),
    ]:
        c.send(31, ptype, b"whatever")
        assert c.receive() == (31, 0, f"Unknown request {text}".encode())


def test_long_reply_arrives_intact_in_4096_unit_fragments(connect: Callable[[], RawRcon]) -> None:
    c = connect()
    c.login(PASSWORD)
    fragments = c.command_fragments("big")
    texts = [f.decode("utf-8") for f in fragments]
    assert len(BIG_REPLY.encode("utf-16-le")) == 2 * 10_000
    assert "".join(texts) == BIG_REPLY
    assert [len(t.encode("utf-16-le")) // 2 for t in texts] == [4096, 4096, 10_000 - 8192]
    # Fragments are cut on UTF-16 units, not bytes: the first has 4094 + 2 units, 4098 bytes.
    assert len(fragments[0]) == 4094 + 4


def test_surrogate_pair_cut_at_4096_becomes_two_question_marks(
    connect: Callable[[], RawRcon],
) -> None:
    c = connect()
    c.login(PASSWORD)
    fragments = c.command_fragments("cut")
    assert fragments == [b"a" * 4095 + b"?", b"?b"]


def test_empty_reply_is_one_empty_packet(connect: Callable[[], RawRcon]) -> None:
    c = connect()
    c.login(PASSWORD)
    assert c.command_fragments("reply ") == [b""]


def test_multiline_feedback_is_passed_through(connect: Callable[[], RawRcon]) -> None:
    c = connect()
    c.login(PASSWORD)
    assert c.command("reply one\\ntwo") == "one\ntwo"


def test_failing_command_answers_error_executing(connect: Callable[[], RawRcon]) -> None:
    c = connect()
    c.login(PASSWORD)
    assert c.command("fail") == "Error executing: fail (boom)"


def test_body_cap_1446_bytes(connect: Callable[[], RawRcon], game: Game, slog: ServerLog) -> None:
    c = connect()
    c.login(PASSWORD)
    at_cap = "é" * 723  # 1446 bytes of UTF-8: the packet is exactly 1460 bytes
    assert c.command(at_cap) == "echo:" + at_cap
    over = "x" * 1447
    c.send(50, 2, over.encode())
    assert c.closed_by_server()
    assert over not in game.seen
    wait_for_log(slog, STAMP + r"\[RCON Client /127\.0\.0\.1 #2/INFO\]: .* shutting down")
    assert not any("/ERROR]" in line for line in log_lines(slog))


def test_two_packets_sent_together_close_the_connection(
    connect: Callable[[], RawRcon], game: Game
) -> None:
    c = connect()
    c.login(PASSWORD)
    one = struct.pack("<iii", 14, 1, 2) + b"list\0\0"
    c.sock.sendall(one + one)  # one segment on loopback: one read sees 36 bytes, length says 14
    assert c.closed_by_server()
    assert game.seen == []


def test_short_packets_close_silently_or_with_an_error(
    connect: Callable[[], RawRcon], slog: ServerLog
) -> None:
    c = connect()
    c.sock.sendall(b"\x05\0\0\0\0")  # under 10 bytes: end of connection, no reply
    assert c.closed_by_server()
    d = connect()
    d.sock.sendall(struct.pack("<iii", 8, 1, 3))  # login with no body: getString throws
    assert d.closed_by_server()
    errors = wait_for_log(slog, STAMP + r"\[RCON Client /127\.0\.0\.1 #3/ERROR\]: .*")
    assert errors[0].endswith("Exception whilst parsing RCON input")


def test_two_clients_each_with_their_own_connection(
    connect: Callable[[], RawRcon], game: Game, slog: ServerLog
) -> None:
    a, b = connect(), connect()
    assert a.login(PASSWORD, request_id=1) == (1, 2, b"")
    assert b.login("bad", request_id=2) == (-1, 2, b"")
    assert a.command("from a", request_id=10) == "echo:from a"
    b.send(11, 2, b"from b")
    assert b.receive() == (-1, 2, b"")  # b's failed login does not touch a, nor a's success b
    assert b.login(PASSWORD, request_id=3) == (3, 2, b"")
    assert b.command("from b", request_id=20) == "echo:from b"
    assert a.command("again a", request_id=30) == "echo:again a"
    assert game.seen == ["from a", "from b", "again a"]
    started = wait_for_log(
        slog, STAMP + r"\[RCON Listener #1/INFO\]: Thread RCON Client /127\.0\.0\.1 started", 2
    )
    assert len(started) == 2
    a.close()
    wait_for_log(
        slog,
        STAMP + r"\[RCON Client /127\.0\.0\.1 #2/INFO\]: Thread RCON Client /127\.0\.0\.1 "
        r"shutting down",
    )
    assert b.command("still here", request_id=40) == "echo:still here"


def test_commands_from_many_clients_all_reach_the_game_loop(
    connect: Callable[[], RawRcon], game: Game
) -> None:
    clients = [connect() for _ in range(4)]
    for c in clients:
        c.login(PASSWORD)
    results: dict[int, list[str]] = {}

    def run(n: int, c: RawRcon) -> None:
        results[n] = [c.command(f"c{n} {i}", request_id=100 + 2 * i) for i in range(10)]

    threads = [threading.Thread(target=run, args=(n, c)) for n, c in enumerate(clients)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(WAIT * 4)
    for n in range(4):
        assert results[n] == [f"echo:c{n} {i}" for i in range(10)]
        mine = [cmd for cmd in game.seen if cmd.startswith(f"c{n} ")]
        assert mine == [f"c{n} {i}" for i in range(10)]  # each connection's order is kept


def test_stop_with_clients_connected(game: Game, slog: ServerLog) -> None:
    server = RconServer("127.0.0.1", 0, PASSWORD, game.submit, slog)
    server.start()
    idle, busy = RawRcon(server.port), RawRcon(server.port)
    try:
        idle.login(PASSWORD)
        busy.login(PASSWORD)
        busy.send(9, 2, b"hang")  # the game loop never answers this one
        wait_for_log(slog, r".*Thread RCON Client /127\.0\.0\.1 started", 2)
        for _ in range(int(WAIT / 0.02)):
            if game.hanging:
                break
            threading.Event().wait(0.02)
        assert server.client_count == 2
        server.stop()
        assert idle.closed_by_server()
        assert busy.closed_by_server()
        assert not game.hanging[0].cancelled()  # the game loop may still answer it safely
        game.hanging[0].set_result("too late")
        with pytest.raises(OSError):
            socket.create_connection(("127.0.0.1", server.port), timeout=WAIT).close()
        tail = [line[11:] for line in log_lines(slog)]
        assert "[Server thread/INFO]: Thread RCON Listener stopped" in tail
        assert tail.count("[Server thread/INFO]: Thread RCON Client /127.0.0.1 stopped") == 2
        assert (
            "[RCON Client /127.0.0.1 #2/INFO]: Thread RCON Client /127.0.0.1 shutting down" in tail
        )
        assert (
            "[RCON Client /127.0.0.1 #3/INFO]: Thread RCON Client /127.0.0.1 shutting down" in tail
        )
        server.stop()  # twice is harmless
    finally:
        idle.close()
        busy.close()


def test_stop_command_answers_before_rcon_closes(game: Game, slog: ServerLog) -> None:
    server = RconServer("127.0.0.1", 0, PASSWORD, game.submit, slog)
    server.start()
    game.on_stop = server.stop
    c = RawRcon(server.port)
    try:
        c.login(PASSWORD)
        c.send(77, 2, b"stop")
        assert c.receive() == (77, 0, b"Stopping the server")
        assert c.closed_by_server()
        wait_for_log(slog, r".*\[Server thread/INFO\]: Thread RCON Client /127\.0\.0\.1 stopped")
    finally:
        c.close()
        server.stop()


def test_bind_failure_raises_and_password_is_required(game: Game, slog: ServerLog) -> None:
    with RconServer("127.0.0.1", 0, PASSWORD, game.submit, slog) as first:
        taken = RconServer("127.0.0.1", first.port, PASSWORD, game.submit, slog)
        with pytest.raises(OSError):
            taken.start()
    with pytest.raises(ValueError, match="No rcon password set"):
        RconServer("127.0.0.1", 0, "", game.submit, slog).start()


@given(st.text(alphabet=st.characters(codec="utf-8"), max_size=9000))
def test_split_reply_rejoins_when_no_pair_is_cut(text: str) -> None:
    bodies = split_reply(text)
    units = len(text.encode("utf-16-le")) // 2
    assert len(bodies) == max(1, -(-units // 4096))
    joined = b"".join(bodies).decode("utf-8")
    cut_pairs = [
        i
        for i in range(4096, units, 4096)
        if 0xD800 <= int.from_bytes(text.encode("utf-16-le")[2 * i - 2 : 2 * i], "little") < 0xDC00
    ]
    # Each cut pair turns into "??", as Java encodes the two lone halves.
    assert len(joined) == len(text) + len(cut_pairs)
    if not cut_pairs:
        assert joined == text
