"""The Minecraft side: RCON, the pack client and its input, the command check, the pack installer,
the server's files, and the embedded stand-in server. Nothing here imports discord."""
