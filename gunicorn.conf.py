"""gunicorn's settings file, read from the working directory (the Docker image's /app).

Serving refuses to start without a secret key when debug is off. The check lives here, not in
the WSGI module (Django's own, unwrapped) nor in the settings: commands that sign nothing
(migrate, collectstatic, backfill_thumbnails) run without a key.
"""

import os

from django.conf import settings
from django.core.exceptions import ImproperlyConfigured

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "fruitcatalog.settings")
try:
    settings.SECRET_KEY  # noqa: B018  (Django raises on an empty key when it is read)
except ImproperlyConfigured:
    raise SystemExit("DJANGO_SECRET_KEY is required when DJANGO_DEBUG is off.") from None
