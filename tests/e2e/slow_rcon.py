"""A slow Minecraft server for the interaction-deadline tests: a TCP proxy in front of mcsim's RCON
that holds each reply (optionally, for real) and moves LocalDiscord's virtual clock on by `delay`
seconds before passing it on, so one round trip "takes" 5 seconds without a test waiting 5."""

from __future__ import annotations

import asyncio
import contextlib

from bot.testkit.localdiscord.emulator import VirtualClock


class SlowRcon:
    def __init__(self, target_port: int, clock: VirtualClock, delay: float = 5.0) -> None:
        self.target_port = target_port
        self.clock = clock
        self.delay = delay  # virtual seconds per reply
        self.real_delay = 0.0  # real seconds per reply (for budgets measured in real time)
        self.replies = 0
        self.port = 0
        self._server: asyncio.Server | None = None
        self._pumps: set[asyncio.Task[None]] = set()

    async def start(self) -> SlowRcon:
        self._server = await asyncio.start_server(self._client, "127.0.0.1", 0)
        self.port = self._server.sockets[0].getsockname()[1]
        return self

    async def close(self) -> None:
        if self._server is not None:
            self._server.close()
        for pump in list(self._pumps):
            pump.cancel()
        for pump in list(self._pumps):
            with contextlib.suppress(asyncio.CancelledError, OSError):
                await pump

    async def _client(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        up_reader, up_writer = await asyncio.open_connection("127.0.0.1", self.target_port)
        for pump in (
            self._pump(reader, up_writer, slow=False),
            self._pump(up_reader, writer, slow=True),
        ):
            task = asyncio.create_task(pump)
            self._pumps.add(task)
            task.add_done_callback(self._pumps.discard)

    async def _pump(
        self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, *, slow: bool
    ) -> None:
        try:
            while chunk := await reader.read(65536):  # ends when either side closes
                if slow:
                    if self.real_delay:
                        await asyncio.sleep(self.real_delay)
                    self.clock.advance(self.delay)
                    self.replies += 1
                writer.write(chunk)
                await writer.drain()
        except (ConnectionError, OSError):
            pass
        finally:
            writer.close()
