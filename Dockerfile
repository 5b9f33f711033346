# Fruit Catalog: gunicorn serving fruitcatalog.wsgi on port 8000.
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    DJANGO_STATIC_MANIFEST=1

# libmagic detects the type of uploaded bytes. Unpinned on purpose: the slim base's Debian
# release fixes the version line, and pinning would block its security updates.
# hadolint ignore=DL3008
RUN apt-get update \
    && apt-get install -y --no-install-recommends libmagic1 \
    && rm -rf /var/lib/apt/lists/*

WORKDIR /app
COPY requirements.txt .
RUN pip install -r requirements.txt

COPY . .
RUN python manage.py collectstatic --noinput \
    && useradd --system --uid 10001 --home-dir /app fruitcatalog \
    && chmod +x docker-entrypoint.sh

USER 10001
EXPOSE 8000
HEALTHCHECK --interval=30s --timeout=5s --start-period=20s --retries=3 \
    CMD ["python", "-c", "import urllib.request; urllib.request.urlopen('http://127.0.0.1:8000/health', timeout=4)"]

ENTRYPOINT ["./docker-entrypoint.sh"]
# Three sync workers on 2 cores: `bench/bench_http.py --gunicorn-args` compares shapes (more sync
# workers or gthread did not serve reads faster there; docs/performance.md). Sync workers also
# bound memory: one upload per worker, each within its 300 MB budget. nginx in front
# (deploy/nginx.conf) buffers slow clients, which would otherwise hold a sync worker each, and
# caches versioned bytes. gunicorn.conf.py, read from /app, refuses to serve without a secret key.
CMD ["gunicorn", "fruitcatalog.wsgi", "--bind", "0.0.0.0:8000", "--workers", "3", "--timeout", "60", "--access-logfile", "-"]
