"""The wall-clock scheduler: planned rows handed over to their server's pack at their time
(scheduler.py), each run's hand-over (delivery.py). Started by the services beside the crash
guard and the health checks; above the store, the Minecraft side and the events, which it
combines, and bot.times, whose clock and grammar it runs on. Nothing here imports discord."""
