"""Settings from the environment: the secret key is required to serve with debug off."""

import os
import subprocess
import sys

import pytest
from django.conf import settings

pytestmark = pytest.mark.slow

WITHOUT_KEY = {
    name: value
    for name, value in os.environ.items()
    if name not in {"DJANGO_SECRET_KEY", "DJANGO_DEBUG"}
}


def run(*args: str, **env: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, *args],
        cwd=settings.BASE_DIR,
        env={**WITHOUT_KEY, "DATABASE_URL": "sqlite:///:memory:", **env},
        capture_output=True,
        text=True,
        timeout=60,
    )


GUNICORN = ("-m", "gunicorn", "--check-config", "fruitcatalog.wsgi")


def test_serving_refuses_to_start_without_a_secret_key_when_debug_is_off():
    result = run(*GUNICORN)
    assert result.returncode != 0
    assert "DJANGO_SECRET_KEY is required when DJANGO_DEBUG is off." in result.stderr


def test_serving_starts_with_a_key_or_in_debug():
    assert run(*GUNICORN, DJANGO_SECRET_KEY="k").returncode == 0
    assert run(*GUNICORN, DJANGO_DEBUG="1").returncode == 0


def test_commands_that_sign_nothing_run_without_a_key():
    result = run("manage.py", "makemigrations", "--check", "--dry-run")
    assert result.returncode == 0, result.stderr


def test_a_log_line_is_printed_once_in_debug():
    script = (
        "import django; django.setup(); import logging; "
        "logging.getLogger('django.request').warning('Not Found: /once')"
    )
    env = {"DJANGO_SETTINGS_MODULE": "fruitcatalog.settings", "DJANGO_DEBUG": "1"}
    result = run("-c", script, **env)
    assert result.stderr.count("Not Found: /once") == 1, result.stderr
