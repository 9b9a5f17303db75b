"""Queue insertion (core/q: append, front, or the binary search that starts with Shar's step): a
task lands after every task due at or before it, for queue lengths around each power of two and
every place in the queue, ties included."""

from __future__ import annotations

import pytest
from tests.datapack.dpharness import Pack

__all__: list[str] = []

LENGTHS = [2, 3, 4, 5, 6, 7, 9, 10, 17, 18, 33]


def fill(pack: Pack, n: int, shift: int) -> list[int]:
    """n queued tasks due in pairs, so ties are tried everywhere: 10, 10, 20, 20, ... (shift 0)
    or 10, 20, 20, 30, 30, ... (shift 1), so that a pair's first and last fall at each index."""
    dues = [10 * ((i + shift) // 2) + 10 for i in range(n)]
    for i, due in enumerate(dues):
        assert pack.call("schedule_at", {"run": "say q", "tick": due, "id": f"q{i}"}).success
    assert [t["due"] for t in pack.queue()] == dues
    return dues


@pytest.mark.parametrize("shift", [0, 1])
@pytest.mark.parametrize("n", LENGTHS)
def test_a_task_goes_after_every_task_due_at_or_before_it(pack: Pack, n: int, shift: int) -> None:
    dues = fill(pack, n, shift)
    for due in range(5, dues[-1] + 10, 5):
        assert pack.call("schedule_at", {"run": "say new", "tick": due, "id": "new"}).success
        queue = pack.queue()
        where = [t["id"] for t in queue].index("new")
        assert where == sum(1 for d in dues if d <= due), (n, due)
        assert [t["due"] for t in queue] == sorted(t["due"] for t in queue)
        assert pack.call("cancel_one", {"id": "new"}).success
    assert [t["id"] for t in pack.queue()] == [f"q{i}" for i in range(n)]
