# The 够级 referee bot. Build: docker build -t gouji .   Run: docker run -e TELEGRAM_BOT_TOKEN=… gouji
FROM python:3.11-slim
WORKDIR /app
ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 GOUJI_DB=/data/gouji.sqlite3
COPY pyproject.toml README.md ./
COPY engine ./engine
COPY renderers ./renderers
COPY bot ./bot
COPY data ./data
RUN pip install --no-cache-dir -e . && mkdir -p /data
VOLUME ["/data"]
CMD ["python", "-m", "bot"]
