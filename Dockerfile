# mahjong-bot: a slim image, a non-root user, the database on a volume at /data.
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    MAHJONG_DB=/data/mahjong.sqlite3

WORKDIR /app
COPY pyproject.toml README.md ./
COPY bot ./bot
COPY cogs ./cogs
COPY renderer ./renderer
RUN pip install . \
    && useradd --create-home --uid 10001 mahjong \
    && mkdir -p /data && chown mahjong:mahjong /data

USER mahjong
VOLUME ["/data"]
CMD ["mahjong-bot"]
