"""Server -> bot: the Event type, the log tailer, the storage poller and the bus. The event
source that picks one of them per server is in bot.background. Nothing here imports discord."""
