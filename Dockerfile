# mahjong-bot: a slim image, a non-root user, the data on a volume at /data.
#
# Base image pinned by digest: this is python:3.11-slim-bookworm (Python 3.11.16), the
# multi-platform index digest published on Docker Hub in September 2026. To move to a newer
# one: `docker buildx imagetools inspect python:3.11-slim-bookworm` and replace the digest.
FROM python:3.11-slim-bookworm@sha256:a36c24f9cbdf4fd0f52d67f0823eeac19c2028c637cecc392d97f980d4fec56b

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    MAHJONG_DATA_DIR=/data

# tini (Debian's) runs as PID 1: it passes docker stop's SIGTERM on to the bot, which then
# closes its tables, gateway and database (Python as PID 1 would ignore it and be killed
# after 10 s), and it reaps the drawing processes. fonts-noto-cjk draws members' Chinese,
# Japanese and Korean names on the pictures (the bot's own words need only its bundled
# fonts; without this package such names fall back to "?" or "Seat N").
RUN apt-get update \
    && apt-get install -y --no-install-recommends tini fonts-noto-cjk \
    && rm -rf /var/lib/apt/lists/*

WORKDIR /app
# The dependencies in their own layer, exactly as locked (with their hashes): changing the
# bot's code does not reinstall them.
COPY requirements.lock ./
RUN pip install --require-hashes -r requirements.lock

COPY pyproject.toml README.md ./
COPY bot ./bot
COPY cogs ./cogs
COPY renderer ./renderer
RUN pip install --no-deps . \
    && useradd --create-home --uid 10001 mahjong \
    && mkdir -p /data && chown mahjong:mahjong /data

USER mahjong
VOLUME ["/data"]
STOPSIGNAL SIGTERM
# Healthy while the bot is connected to Discord: it touches /data/mahjong.sqlite3.heartbeat
# every 20 s; `mahjong-bot health` fails when that is older than a minute.
HEALTHCHECK --interval=30s --timeout=10s --start-period=60s --retries=3 \
    CMD ["mahjong-bot", "health"]
ENTRYPOINT ["/usr/bin/tini", "--"]
CMD ["mahjong-bot"]
