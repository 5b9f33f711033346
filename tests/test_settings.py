"""Settings from the environment: how values are read, and the secret key serving needs."""

import json
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


READ_SETTINGS = """
import json
from django.conf import settings as s

database = s.DATABASES["default"]
fields = ["ENGINE", "NAME", "USER", "PASSWORD", "HOST", "PORT"]
fields += ["CONN_MAX_AGE", "CONN_HEALTH_CHECKS"]
print(json.dumps({
    "DEBUG": s.DEBUG,
    "SECRET_KEY": s.SECRET_KEY,
    "ALLOWED_HOSTS": s.ALLOWED_HOSTS,
    "CORS_ALLOWED_ORIGINS": s.CORS_ALLOWED_ORIGINS,
    "FRUITCATALOG_MAX_UPLOAD_BYTES": s.FRUITCATALOG_MAX_UPLOAD_BYTES,
    "DATABASE_REQUEST_TIMEOUT": s.DATABASE_REQUEST_TIMEOUT,
    "RATES": s.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"],
    "DATABASE": {field: database.get(field) for field in fields},
    "OPTIONS": database.get("OPTIONS", {}),
}))
"""


def settings_under(**env: str) -> dict:
    """The settings that a process started with `env` reads (those these tests look at)."""
    env = {"DJANGO_SETTINGS_MODULE": "fruitcatalog.settings", "DJANGO_SECRET_KEY": "k", **env}
    result = run("-c", READ_SETTINGS, **env)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


@pytest.mark.parametrize("value", [None, "", " "])
def test_unset_or_blank_numbers_and_booleans_keep_their_defaults(value):
    names = ("DJANGO_DEBUG", "FRUITCATALOG_MAX_UPLOAD_BYTES", "DATABASE_REQUEST_TIMEOUT")
    read = settings_under(**({} if value is None else dict.fromkeys(names, value)))
    assert read["DEBUG"] is False
    assert read["FRUITCATALOG_MAX_UPLOAD_BYTES"] == 5 * 1024 * 1024
    assert read["DATABASE_REQUEST_TIMEOUT"] == 25.0
    assert read["ALLOWED_HOSTS"] == ["localhost", "127.0.0.1", "[::1]"]
    assert read["RATES"] == {
        "token_address": "20/minute",
        "token_username": "10/minute",
        "uploads": None,
        "exports": "60/hour",
    }


def test_values_are_read_as_written():
    read = settings_under(
        DJANGO_DEBUG="On",
        # A generated key may start with `$`: it is the key, not the name of another variable.
        DJANGO_SECRET_KEY="$HOME-is-not-read-here",
        DJANGO_ALLOWED_HOSTS=" fruit.example, www.fruit.example,",
        FRUITCATALOG_CORS_WRITE_ORIGINS="https://editor.example, ",
        FRUITCATALOG_MAX_UPLOAD_BYTES="10_000_000",
        DATABASE_REQUEST_TIMEOUT="2.5",
        # A blank rate switches its throttle off.
        FRUITCATALOG_EXPORT_RATE_PER_ADDRESS="",
    )
    assert read["DEBUG"] is True
    assert read["SECRET_KEY"] == "$HOME-is-not-read-here"
    assert read["ALLOWED_HOSTS"] == ["fruit.example", "www.fruit.example"]
    assert read["CORS_ALLOWED_ORIGINS"] == ["https://editor.example"]
    assert read["FRUITCATALOG_MAX_UPLOAD_BYTES"] == 10_000_000
    assert read["DATABASE_REQUEST_TIMEOUT"] == 2.5
    assert read["RATES"]["exports"] is None


BOOLEAN = "1/true/yes/on or 0/false/no/off"


@pytest.mark.parametrize(
    ("name", "value", "expected"),
    [
        ("DJANGO_DEBUG", "maybe", f"must be {BOOLEAN}, got 'maybe'."),
        ("DJANGO_SECURE_COOKIES", "ture", f"must be {BOOLEAN}, got 'ture'."),
        ("FRUITCATALOG_MAX_UPLOAD_BYTES", "abc", "must be an integer, got 'abc'."),
        ("DATABASE_CONN_MAX_AGE", "1m", "must be an integer, got '1m'."),
        ("DATABASE_REQUEST_TIMEOUT", "abc", "must be a number, got 'abc'."),
        ("DATABASE_URL", "fruitcatalog", "must be a database URL such as postgres://"),
    ],
)
def test_a_bad_value_stops_start_up_naming_its_variable(name, value, expected):
    result = run("manage.py", "check", DJANGO_SECRET_KEY="k", **{name: value})
    assert result.returncode != 0
    assert f"ImproperlyConfigured: {name} {expected}" in result.stderr, result.stderr[-2000:]


def test_database_urls_name_a_server_a_socket_or_a_file():
    socket = settings_under(DATABASE_URL="postgres:///fruitcatalog", DATABASE_CONN_MAX_AGE="600")
    assert socket["DATABASE"] == {
        "ENGINE": "core.db.backends.postgresql",  # Django's, aware of the request's deadline
        "NAME": "fruitcatalog",
        "USER": "",
        "PASSWORD": "",
        "HOST": "",  # libpq's default socket directory
        "PORT": "",
        "CONN_MAX_AGE": 600,
        "CONN_HEALTH_CHECKS": True,
    }
    assert socket["OPTIONS"]["connect_timeout"] == 2

    encoded = settings_under(DATABASE_URL="postgresql://app@%2Frun%2Fpostgresql/fruitcatalog")
    assert (encoded["DATABASE"]["HOST"], encoded["DATABASE"]["NAME"]) == (
        "/run/postgresql",
        "fruitcatalog",
    )

    server = settings_under(
        DATABASE_URL="postgres://app:p%40ss@db.example:6432/fruitcatalog?sslmode=require"
    )
    database = server["DATABASE"]
    assert (database["USER"], database["PASSWORD"], database["HOST"], database["PORT"]) == (
        "app",
        "p@ss",
        "db.example",
        6432,
    )
    assert (database["CONN_MAX_AGE"], server["OPTIONS"]["sslmode"]) == (60, "require")

    default = settings_under(DATABASE_URL="")["DATABASE"]
    assert (default["ENGINE"], default["NAME"]) == (
        "core.db.backends.sqlite3",  # Django's, whose commit runs what is collected for it
        str(settings.BASE_DIR / "db.sqlite3"),
    )
