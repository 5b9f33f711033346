"""WSGI entry point (gunicorn fruitcatalog.wsgi; runserver loads it too)."""

import os

from django.conf import settings
from django.core.exceptions import ImproperlyConfigured
from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "fruitcatalog.settings")

django_application = get_wsgi_application()

from fruitcatalog.api import LIST_READS  # noqa: E402  (needs Django set up)
from fruitcatalog.blobs.wsgi import ByteReadApplication  # noqa: E402
from fruitcatalog.listreads import ListReadApplication  # noqa: E402

# Two fronts answer the most frequent reads before Django's handler, which answers the rest:
# byte reads, thumbnails above all (fruitcatalog/blobs/wsgi.py), and the plain pages of the
# fruit list (fruitcatalog/listreads.py).
application = ByteReadApplication(ListReadApplication(django_application, LIST_READS))

# Serving refuses to start without a secret key when debug is off; commands that sign nothing
# (migrate, makemigrations, collectstatic, backfill_thumbnails) run without one.
try:
    settings.SECRET_KEY  # noqa: B018  (Django raises on an empty key when it is read)
except ImproperlyConfigured:
    raise ImproperlyConfigured("DJANGO_SECRET_KEY is required when DJANGO_DEBUG is off.") from None
