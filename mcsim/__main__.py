"""`python -m mcsim (--root DIR | --world DIR) [--rcon-port N] [--rcon-password PW] [--frozen]
[--flavour F]`.

Runs the server in real time (20 TPS) until `stop` (over RCON) or Ctrl-C.
"""

from __future__ import annotations

import argparse
import gc
import logging
import signal
import sys
from pathlib import Path

__all__ = ["main"]

log = logging.getLogger(__name__)


def main(argv: list[str] | None = None) -> int:
    # Start-up makes most of the process's long-lived objects (mecha's, beet's and nbtlib's
    # modules, the parse cache's ASTs); the collector's full passes over that growing heap were
    # ~17% of a start's CPU, and found nothing to free. Off until the server runs, then on with
    # those objects frozen (below).
    collecting = gc.isenabled()
    gc.disable()
    try:
        return _main(argv)
    finally:
        if collecting:
            gc.enable()


def _main(argv: list[str] | None) -> int:
    from mcsim.flavours import flavour_names
    from mcsim.server import Server
    from mcsim.session_lock import SessionLockedError

    ap = argparse.ArgumentParser(prog="mcsim", description="A stand-in Minecraft 1.21 server.")
    where = ap.add_mutually_exclusive_group(required=True)
    where.add_argument(
        "--root",
        type=Path,
        help="server folder, laid out as vanilla's: server.properties, logs/, and the world "
        "folder named by level-name (created if missing)",
    )
    where.add_argument(
        "--world",
        type=Path,
        help="world folder holding everything, server.properties and logs/ included (created if "
        "missing)",
    )
    ap.add_argument("--rcon-port", type=int, default=None, help="enable RCON on this port")
    ap.add_argument("--rcon-password", default=None, help="RCON password")
    ap.add_argument("--frozen", action="store_true", help="start with the game frozen")
    ap.add_argument(
        "--noop",
        action="append",
        default=[],
        metavar="ROOT",
        help="treat this command root as a successful no-op (repeatable; for demos)",
    )
    ap.add_argument(
        "--flavour",
        default="vanilla",
        choices=flavour_names(),
        help="server software to imitate at the edges the bot sees (default: vanilla)",
    )
    args = ap.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    server = Server(
        args.world,
        root=args.root,
        rcon_port=args.rcon_port,
        rcon_password=args.rcon_password,
        frozen=args.frozen,
        noop_commands=args.noop,
        flavour=args.flavour,
    )
    try:
        server.start(realtime=True)
    except SessionLockedError as e:
        # What vanilla's console shows (Main.java), then a failing exit status for scripts.
        print(f"Failed to start the minecraft server\n{e.log_text}", file=sys.stderr, flush=True)
        return 1
    # The loaded packs (mecha's ASTs, the parser, nbtlib tags) live as long as the process; once
    # frozen, Python's full collections no longer walk them. Unfrozen, each full collection held
    # the game loop and RCON replies for 100-200 ms (bench/wallclock.py: p99 of a hand-over 155 ms
    # against 27 ms with collection off): a pause of the simulator, not of the server it stands
    # in for.
    gc.freeze()
    gc.enable()

    def interrupt(signum: int, frame: object) -> None:
        server.request_stop()

    # before the lines a script waits for: a signal sent once they are read stops it cleanly
    signal.signal(signal.SIGINT, interrupt)
    signal.signal(signal.SIGTERM, interrupt)
    print(f"mcsim ({args.flavour}) running on {server.world} (log: {server.log_path})", flush=True)
    if server.rcon_port is not None:
        print(f"RCON on 127.0.0.1:{server.rcon_port}", flush=True)
    try:
        while not server.wait_stopped(0.5):
            pass
    finally:
        server.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
