"""The wall-clock scheduler: planned rows handed over to their server's pack at their time.

``Scheduler`` (scheduler.py) is the facade the services, the operations and the faces hold; its
parts, one job each: what a row may be and become (rules.py, ``RowRules``), when each armed
row's next work is due and the loop that waits for it (due_heap.py, ``DueHeap``), the tasks it
starts (inflight.py, ``Inflight``), the request staged and the countdown said ahead of a run
(staging.py, ``Staging``), the late rules at a row's due time (firing.py, ``Firing``), one run's
hand-over (delivery.py, ``Delivery``) and the alerts (alerts.py, ``Alerts``).

Started by the services beside the crash guard and the health checks; above the store, the
Minecraft side and the events, which it combines, and bot.times, whose clock and grammar it runs
on. Nothing here imports discord."""
