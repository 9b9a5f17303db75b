"""Server -> bot: the Event type, the log tailer, the storage poller, and the event source that
picks one of them per server. Nothing here imports discord."""
