# The 够级 referee bot.
#   docker build -t gouji .
#   docker run -e TELEGRAM_BOT_TOKEN=… -v gouji:/data gouji
# It runs as an unprivileged user; the SQLite database lives on the /data volume.
FROM python:3.11-slim
WORKDIR /app
ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 GOUJI_DB=/data/gouji.sqlite3
COPY pyproject.toml README.md ./
COPY engine ./engine
COPY renderers ./renderers
COPY bot ./bot
COPY data ./data
RUN pip install --no-cache-dir -e . \
    && useradd --system --uid 10001 --home-dir /app --shell /usr/sbin/nologin gouji \
    && mkdir -p /data && chown gouji:gouji /data
USER gouji
VOLUME ["/data"]
# SIGTERM stops long polling cleanly; every action was stored when it was made.
STOPSIGNAL SIGTERM
# healthy: the database writable and a successful getUpdates within the last two minutes
HEALTHCHECK --interval=60s --timeout=10s --start-period=60s --retries=3 \
    CMD ["python", "-m", "bot", "health"]
# "run": without a token the container says so and exits, it never runs the offline demo
CMD ["python", "-m", "bot", "run"]
