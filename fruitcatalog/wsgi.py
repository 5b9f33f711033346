"""WSGI entry point (gunicorn fruitcatalog.wsgi)."""

import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "fruitcatalog.settings")

application = get_wsgi_application()
