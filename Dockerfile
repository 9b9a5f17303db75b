# The doom.schedule bot (`python -m bot`). compose.yaml runs it beside itzg/minecraft-server,
# sharing the server's /data volume: the bot reads logs/latest.log and server.properties there
# and installs the pack into world/datapacks.
FROM python:3.12-slim

WORKDIR /src
COPY pyproject.toml setup.py MANIFEST.in README.md ./
COPY bot ./bot
COPY cogs ./cogs
COPY console ./console
COPY mcsim ./mcsim
COPY datapack ./datapack
COPY locale ./locale
# A normal (not editable) install: the wheel carries the pack as bot/_datapack and the
# catalogs as bot/_locale (setup.py, which refuses to build without either).
RUN pip install --no-cache-dir . \
    && rm -rf /src \
    && useradd --uid 1000 --create-home doom \
    && mkdir -p /var/lib/doom && chown 1000:1000 /var/lib/doom

# uid 1000, as itzg/minecraft-server runs by default: the bot writes into the shared world.
USER 1000
WORKDIR /var/lib/doom
# The bot's database (bot.sqlite3) and event cursors.
ENV DOOM_DATA_DIR=/var/lib/doom
VOLUME ["/var/lib/doom"]
ENTRYPOINT ["python", "-m", "bot"]
CMD ["run"]
