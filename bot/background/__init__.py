"""What runs beside each server for as long as the bot does, started by the services: the crash
guard, the health checks and the event source (the log tailer or the storage poller, chosen per
server). Above the store, the Minecraft side and the events, which it combines; nothing here
imports discord. The wall-clock scheduler is bot.wallclock."""
