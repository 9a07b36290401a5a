# Starboard app image: the same code as the SQLite default, configured for PostgreSQL by environment.
FROM python:3.11-slim
ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1
WORKDIR /srv/starboard
# Exactly the locked, hash-checked packages (scripts/lock.sh updates requirements.lock).
# pg_dump/pg_restore for `python -m app.cli backup` / `restore` (Debian 12's client is 15, as the server)
RUN apt-get update && apt-get install -y --no-install-recommends postgresql-client \
    && rm -rf /var/lib/apt/lists/*
COPY requirements.lock ./
RUN pip install --no-cache-dir --require-hashes -r requirements.lock
COPY pyproject.toml README.md alembic.ini ./
COPY app ./app
COPY migrations ./migrations
COPY templates ./templates
COPY static ./static
COPY docs ./docs
RUN pip install --no-cache-dir --no-deps --no-build-isolation .
EXPOSE 8000
# app.cli serve runs uvicorn with the configured limits: --timeout-keep-alive (TIMEOUT_KEEP_ALIVE=5),
# a deadline for request heads (HEADER_TIMEOUT=10, closes slow-loris connections), a request head size
# limit (MAX_HEADER_BYTES=16384), the websocket frame limit, and --proxy-headers trusting
# FORWARDED_ALLOW_IPS (the compose file sets it for its nginx). Migrations run in their own service.
CMD ["python", "-m", "app.cli", "serve", "--host", "0.0.0.0", "--port", "8000", "--no-demo", "--no-migrate"]
