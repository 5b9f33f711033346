"""WSGI entry point: Django's own application (gunicorn serves it; runserver loads it too)."""

import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "fruitcatalog.settings")

application = get_wsgi_application()
