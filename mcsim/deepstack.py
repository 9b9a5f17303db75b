"""Where commands run: threads with a big stack and a recursion limit sized to the budget.

Vanilla (1.20.3+) runs functions from an explicit continuation queue, so only the command
budget bounds recursion: 400,000 budget units allow a function to call itself ~400,000 deep.
mcsim runs a function call as nested Python calls (a few frames per level), so every command
runs on a thread started here (the server thread, or the shared worker that `call_deep` hands
other callers' work to), and the recursion limit is raised to what the budget allows before each
top-level call. CPython 3.11 keeps Python-to-Python calls off the C stack, so the big stack only
guards the C-recursive paths (deep SNBT, text components); if Python still runs out, the
executor treats the RecursionError as running out of the budget.
"""

from __future__ import annotations

import concurrent.futures
import logging
import queue
import sys
import threading
from collections.abc import Callable
from typing import Any, TypeVar

__all__ = [
    "FRAMES_PER_LEVEL",
    "MAX_RECURSION_LIMIT",
    "STACK_SIZE",
    "call_deep",
    "ensure_recursion_limit",
    "start_deep_thread",
]

log = logging.getLogger(__name__)

T = TypeVar("T")

STACK_SIZE = 512 * 1024 * 1024
# Python frames one level of function recursion takes, measured at 4 for `function`,
# `execute ... run function`, `execute if function` and `return run function` (with margin).
FRAMES_PER_LEVEL = 8
# About 1,000,000 levels (~2 GB of frames); beyond it a RecursionError ends the call as an
# overflow of the budget would.
MAX_RECURSION_LIMIT = 8_000_000
_BASE_LIMIT = 200_000

_deep_threads: set[int] = set()
_stack_size_lock = threading.Lock()
_start_lock = threading.Lock()
_jobs: queue.Queue[tuple[Callable[[], Any], concurrent.futures.Future[Any]]] = queue.Queue()
_worker: threading.Thread | None = None


def ensure_recursion_limit(budget: int) -> None:
    """Raise (never lower) the interpreter's recursion limit to what `budget` can recurse."""
    wanted = min(MAX_RECURSION_LIMIT, _BASE_LIMIT + max(0, budget) * FRAMES_PER_LEVEL)
    if sys.getrecursionlimit() < wanted:
        sys.setrecursionlimit(wanted)


def start_deep_thread(target: Callable[[], None], name: str) -> threading.Thread:
    """A started daemon thread with the big stack, on which commands run directly."""

    def body() -> None:
        _deep_threads.add(threading.get_ident())
        try:
            target()
        finally:
            _deep_threads.discard(threading.get_ident())

    with _stack_size_lock:  # threading.stack_size is process-wide: set, start, restore
        old = threading.stack_size()
        threading.stack_size(STACK_SIZE)
        try:
            thread = threading.Thread(target=body, name=name, daemon=True)
            thread.start()
        finally:
            threading.stack_size(old)
    return thread


def _serve() -> None:
    while True:
        fn, future = _jobs.get()
        if not future.set_running_or_notify_cancel():
            continue
        try:
            future.set_result(fn())
        except BaseException as e:  # handed back to the caller, who raises it
            future.set_exception(e)


def call_deep(fn: Callable[[], T]) -> T:
    """fn() on a deep thread: here if this is one, else on the shared worker (waiting for it)."""
    if threading.get_ident() in _deep_threads:
        return fn()
    global _worker
    with _start_lock:
        if _worker is None:
            _worker = start_deep_thread(_serve, "mcsim deep stack")
    future: concurrent.futures.Future[T] = concurrent.futures.Future()
    _jobs.put((fn, future))
    return future.result()
