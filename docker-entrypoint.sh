#!/bin/sh
# Apply migrations before serving, unless DJANGO_MIGRATE=0 (e.g. a separate release step).
set -e
if [ "${DJANGO_MIGRATE:-1}" != "0" ]; then
    python manage.py migrate --noinput
fi
exec "$@"
