"""Eight API clients creating fruits at once on a file SQLite database, with the real settings.

Run by test_database_settings.py in a child process (DATABASE_URL names a fresh file); prints
`<errors> <fruits> <distinct catalog numbers> <highest number>`.
"""

import os
import sys
import threading
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "fruitcatalog.settings")

import django

django.setup()

from django.conf import settings  # noqa: E402
from django.contrib.auth.models import Group, User  # noqa: E402
from django.core.management import call_command  # noqa: E402
from django.db import connections  # noqa: E402
from rest_framework.test import APIClient  # noqa: E402

WRITERS, CREATES = 8, 15

settings.ALLOWED_HOSTS = ["testserver"]
call_command("migrate", verbosity=0)
curator = User.objects.create_user("writer")
curator.groups.add(Group.objects.get(name="Curators"))
connections.close_all()

start = threading.Barrier(WRITERS)
errors = []


def write(worker: int) -> None:
    client = APIClient()
    client.force_authenticate(curator)
    start.wait()
    try:
        for index in range(CREATES):
            response = client.post(
                "/api/v1/fruits",
                {"name": f"Fruit {worker}-{index}", "type": "apple", "synonyms": [f"S{index}"]},
                format="json",
            )
            if response.status_code != 201:
                errors.append(response.status_code)
    finally:
        connections.close_all()


threads = [threading.Thread(target=write, args=(n,)) for n in range(WRITERS)]
for thread in threads:
    thread.start()
for thread in threads:
    thread.join()

from catalog.models import Fruit  # noqa: E402

numbers = list(Fruit.objects.values_list("catalog_number", flat=True))
print(len(errors), len(numbers), len(set(numbers)), max(numbers, default=0))
