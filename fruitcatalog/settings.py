"""Settings for Fruit Catalog.

Every deploy setting is read from the environment here and nowhere else (twelve-factor); a `.env`
file is not required. See README.md, "Configuration".
"""

import warnings
from datetime import timedelta
from pathlib import Path
from urllib.parse import quote, unquote

import environ
from corsheaders.defaults import default_headers as default_cors_headers
from django.core.exceptions import ImproperlyConfigured

BASE_DIR = Path(__file__).resolve().parent.parent

VERSION = "0.1.0"


class Environment(environ.Env):
    """django-environ's reader, held to what these settings have always accepted.

    A blank number, boolean or URL keeps its default; strings and lists are taken as written.
    A value is never read as the name of another variable (django-environ reads `$NAME` so, and
    a generated secret key may start with `$`). Booleans are 1/true/yes/on or 0/false/no/off in
    any case, list items are trimmed, and a value that does not parse stops start-up with an
    error naming its variable.
    """

    BOOLEANS = dict.fromkeys(("1", "true", "yes", "on"), True) | dict.fromkeys(
        ("0", "false", "no", "off"), False
    )
    KINDS = {bool: "1/true/yes/on or 0/false/no/off", int: "an integer", float: "a number"}

    def get_value(self, var, cast=None, default=environ.Env.NOTSET, parse_default=False):
        value = self.ENVIRON.get(var)
        if value is None or (cast not in (str, list) and not value.strip()):
            if default is self.NOTSET:
                raise ImproperlyConfigured(f"Set the {var} environment variable.")
            return self.parse_value(default, cast) if parse_default else default
        try:
            return self.parse_value(value, cast)
        except ValueError:
            kind = self.KINDS.get(cast, "valid")
            raise ImproperlyConfigured(f"{var} must be {kind}, got {value!r}.") from None

    @classmethod
    def parse_value(cls, value, cast):
        if cast is bool:
            try:
                return cls.BOOLEANS[value.strip().lower()]
            except KeyError:
                raise ValueError(value) from None
        if cast is list:
            return [item.strip() for item in value.split(",") if item.strip()]
        return super().parse_value(value, cast)


env = Environment()

DEBUG = env.bool("DJANGO_DEBUG", default=False)

# Required with debug off: gunicorn refuses to start without it (gunicorn.conf.py). Commands that
# sign nothing (migrate, makemigrations, collectstatic, backfill_thumbnails) run without it;
# Django raises wherever an empty key would be used.
SECRET_KEY = env.str("DJANGO_SECRET_KEY", default="")
if not SECRET_KEY and DEBUG:
    SECRET_KEY = "django-insecure-development-key-do-not-use-in-production"  # noqa: S105

ALLOWED_HOSTS = env.list("DJANGO_ALLOWED_HOSTS", default=["localhost", "127.0.0.1", "[::1]"])
CSRF_TRUSTED_ORIGINS = env.list("DJANGO_CSRF_TRUSTED_ORIGINS", default=[])

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "django.contrib.postgres",  # pg_trgm's lookups and functions for the fruit search
    "corsheaders",
    "axes",
    "rest_framework",
    "rest_framework.authtoken",
    "django_filters",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "simple_history",
    "core",
    "core.idempotency",
    "blobs",
    "catalog",
    "publications",
    "identification",
    "changes",
    "history",
    "wholefruit",
    "brapi",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    # CORS headers on every other answer under /api/, errors included; preflights end here.
    "corsheaders.middleware.CorsMiddleware",
    "core.site.faults.DatabaseUnavailableMiddleware",
    # Before the CSRF check, which reads form bodies: body caps and NUL bytes are refused first.
    "core.http.bodies.RequestGuardMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    # The request's language: the path's (/de/...) for the public pages, ?lang or
    # Accept-Language for the API, the cookie or Accept-Language for the admin. After the
    # session, before CommonMiddleware (Django's order for LocaleMiddleware).
    "core.http.languages.LanguageMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    # Each API and admin request is a door: the changes it makes are recorded with its user.
    "core.history.DoorMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    # Last: turns a locked-out login (django-axes) into a 429.
    "axes.middleware.AxesMiddleware",
]

# django-axes watches every authenticate() call (login forms and the token endpoint) and refuses
# a locked-out client before its password is checked.
AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",
    "django.contrib.auth.backends.ModelBackend",
]

ROOT_URLCONF = "fruitcatalog.urls"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [],  # each app's templates/ (core holds the site's base templates)
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

WSGI_APPLICATION = "fruitcatalog.wsgi.application"

DATABASES = {
    "default": env.db_url(
        "DATABASE_URL", default=f"sqlite:///{quote(str(BASE_DIR / 'db.sqlite3'))}"
    )
}
if not DATABASES["default"]:
    raise ImproperlyConfigured(
        "DATABASE_URL must be a database URL such as postgres://user@host:5432/name, "
        f"got {env.str('DATABASE_URL', default='')!r}."
    )
DATABASES["default"].update(
    # Persistent connections (checked before reuse): a new connection per request cost more
    # than the rest of a thumbnail read.
    CONN_MAX_AGE=env.int("DATABASE_CONN_MAX_AGE", default=60),
    CONN_HEALTH_CHECKS=True,
    # libpq's URI names a socket directory percent-encoded (postgres://%2Frun%2Fpostgresql/name);
    # django-environ leaves it encoded.
    HOST=unquote(DATABASES["default"].get("HOST", "")),
)
# Nothing waits on the database for long (docs/operations.md, "Database timeouts"):
# - opening a connection gives up after DATABASE_CONNECT_TIMEOUT;
# - the server cancels a statement after DATABASE_STATEMENT_TIMEOUT_MS;
# - a request's database waits end after DATABASE_REQUEST_TIMEOUT seconds in all, whatever the
#   server does (core.db.deadlines cuts the connection): a 503, never a hang;
# - the kernel gives up on a peer that stops acknowledging (a partition) after
#   DATABASE_TCP_USER_TIMEOUT_MS, and keepalives find idle connections to a vanished server.
# All stay below gunicorn's worker timeout (30 s by default; the Dockerfile passes --timeout 60).
DATABASE_CONNECT_TIMEOUT = env.int("DATABASE_CONNECT_TIMEOUT", default=2)  # seconds
DATABASE_STATEMENT_TIMEOUT_MS = env.int("DATABASE_STATEMENT_TIMEOUT_MS", default=20_000)
DATABASE_REQUEST_TIMEOUT = env.float("DATABASE_REQUEST_TIMEOUT", default=25.0)  # seconds
DATABASE_TCP_USER_TIMEOUT_MS = env.int("DATABASE_TCP_USER_TIMEOUT_MS", default=10_000)
if DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql":
    # Django's backend, aware of the request's database deadline (core/db/deadlines.py).
    DATABASES["default"]["ENGINE"] = "core.db.backends.postgresql"
    DATABASES["default"].setdefault("OPTIONS", {}).update(
        {
            "connect_timeout": DATABASE_CONNECT_TIMEOUT,
            "keepalives": 1,
            "keepalives_idle": 30,
            "keepalives_interval": 5,
            "keepalives_count": 3,
            "tcp_user_timeout": DATABASE_TCP_USER_TIMEOUT_MS,
            # JIT compilation costs more than it saves on this service's short queries.
            "options": f"-c statement_timeout={DATABASE_STATEMENT_TIMEOUT_MS} -c jit=off",
            # Parameters travel separately from the SQL, so uploaded bytes reach the server as
            # binary instead of doubled as hex text in the statement.
            "server_side_binding": env.bool("DATABASE_SERVER_SIDE_BINDING", default=True),
            # psycopg prepares a query on the server once it has run this often on a connection:
            # parsed and planned once, which pays for the short queries run on every request. 0
            # turns it off, as a transaction-pooling PgBouncer older than 1.21 needs.
            "prepare_threshold": env.int("DATABASE_PREPARE_THRESHOLD", default=5) or None,
        }
    )
elif DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # Django's backend, whose commit first runs the work collected for it (core/db/commits.py).
    DATABASES["default"]["ENGINE"] = "core.db.backends.sqlite3"
    DATABASES["default"].setdefault("OPTIONS", {}).update(
        {
            # Writers take the write lock when their transaction begins, so a read-then-write
            # (the next catalog number) never fails to upgrade its lock ("database is
            # locked"); they queue for up to `timeout` seconds instead. WAL lets reads go on
            # while one writer writes.
            "transaction_mode": "IMMEDIATE",
            "timeout": env.int("DATABASE_SQLITE_TIMEOUT", default=10),
            "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
        }
    )

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

# English by default and German (docs/site.md, "Languages"). The message catalogs are in
# locale/, committed compiled (docs/operations.md).
LANGUAGE_CODE = "en"
LANGUAGES = [("en", "English"), ("de", "Deutsch")]
LOCALE_PATHS = [BASE_DIR / "locale"]
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = BASE_DIR / "staticfiles"
# Hashed, compressed, cache-forever names where `collectstatic` runs (the Docker image sets
# DJANGO_STATIC_MANIFEST=1); plain names served from the app finders otherwise (`make run`, the
# tests), so a fresh clone works with DEBUG on or off without a build step.
_HAS_STATIC_MANIFEST = env.bool(
    "DJANGO_STATIC_MANIFEST", default=(STATIC_ROOT / "staticfiles.json").exists()
)
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": (
            "whitenoise.storage.CompressedManifestStaticFilesStorage"
            if _HAS_STATIC_MANIFEST
            else "django.contrib.staticfiles.storage.StaticFilesStorage"
        )
    },
}
WHITENOISE_USE_FINDERS = not _HAS_STATIC_MANIFEST
if not STATIC_ROOT.exists():
    # Without collectstatic the finders serve everything; the missing folder is expected.
    warnings.filterwarnings("ignore", message="No directory at: ")
WHITENOISE_AUTOREFRESH = DEBUG

# Uploads: the service enforces its own limit on the whole body (blobs/parsers.py).
FRUITCATALOG_MAX_UPLOAD_BYTES = env.int("FRUITCATALOG_MAX_UPLOAD_BYTES", default=5 * 1024 * 1024)
# Every other route (JSON writes, token, login forms): refused with 413 before being read.
FRUITCATALOG_MAX_BODY_BYTES = env.int("FRUITCATALOG_MAX_BODY_BYTES", default=1024 * 1024)
# Keep accepted uploads in memory: they are stored in the database as bytes anyway.
FILE_UPLOAD_MAX_MEMORY_SIZE = FRUITCATALOG_MAX_UPLOAD_BYTES
# 50 megapixels: above any real fruit photograph, far below what a decompression bomb asks for.
FRUITCATALOG_MAX_IMAGE_PIXELS = env.int("FRUITCATALOG_MAX_IMAGE_PIXELS", default=50_000_000)
# The Darwin Core Archive's dataset: its title and the licence of the catalog's data (GBIF
# accepts CC0-1.0, CC-BY-4.0 and CC-BY-NC-4.0; each image states its own).
FRUITCATALOG_DATASET_TITLE = env.str("FRUITCATALOG_DATASET_TITLE", default="Fruit Catalog")
FRUITCATALOG_DATA_LICENSE = env.str("FRUITCATALOG_DATA_LICENSE", default="CC-BY-4.0")
# Who answers questions about the dataset, the `contact` GBIF's metadata profile requires: an
# organisation (the dataset's title unless set) and, where set, an e-mail address.
FRUITCATALOG_DATASET_CONTACT_ORGANIZATION = env.str(
    "FRUITCATALOG_DATASET_CONTACT_ORGANIZATION", default=""
)
FRUITCATALOG_DATASET_CONTACT_EMAIL = env.str("FRUITCATALOG_DATASET_CONTACT_EMAIL", default="")
# The longest a streamed export may take (docs/performance.md times a million fruits): below
# gunicorn's worker timeout (60 s in the Docker image), which would kill the worker instead.
FRUITCATALOG_EXPORT_SECONDS = env.int("FRUITCATALOG_EXPORT_SECONDS", default=50)
# How long one call of the backfill endpoint (or the admin action) works: well under gunicorn's
# 30 s default worker timeout. The command has no limit.
FRUITCATALOG_BACKFILL_SECONDS = env.int("FRUITCATALOG_BACKFILL_SECONDS", default=10)
# The change feed keeps its entries this many days; `manage.py prune_changes` deletes older ones.
FRUITCATALOG_CHANGES_RETENTION_DAYS = env.int("FRUITCATALOG_CHANGES_RETENTION_DAYS", default=365)
# A deleted fruit's images are kept this many days for its restore; `manage.py purge_deleted`
# then deletes them, and the fruit can no longer be restored (0: the next purge takes them all).
FRUITCATALOG_DELETED_RETENTION_DAYS = env.int("FRUITCATALOG_DELETED_RETENTION_DAYS", default=30)
# Entries per answer of the change feed: at most 1,000 is the API's promise (tests set fewer).
FRUITCATALOG_CHANGES_PAGE_SIZE = 1000
# Image and PDF bytes need no caching setting: a URL with the bytes' version is cached for good,
# any other is revalidated (blobs/responses.py).

# Security defaults; the cookie and HSTS switches matter only behind HTTPS, so they are opt-in.
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
X_FRAME_OPTIONS = "DENY"
SESSION_COOKIE_SECURE = env.bool("DJANGO_SECURE_COOKIES", default=False)
CSRF_COOKIE_SECURE = SESSION_COOKIE_SECURE
SECURE_SSL_REDIRECT = env.bool("DJANGO_SECURE_SSL_REDIRECT", default=False)
SECURE_HSTS_SECONDS = env.int("DJANGO_SECURE_HSTS_SECONDS", default=0)
SECURE_HSTS_INCLUDE_SUBDOMAINS = env.bool("DJANGO_SECURE_HSTS_INCLUDE_SUBDOMAINS", default=False)
SECURE_HSTS_PRELOAD = env.bool("DJANGO_SECURE_HSTS_PRELOAD", default=False)
if env.bool("DJANGO_BEHIND_PROXY", default=False):
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    USE_X_FORWARDED_HOST = True

# System checks that do not apply to how this project runs (each says why where it is added).
SILENCED_SYSTEM_CHECKS: list[str] = []

# Shared counters (throttles, login lockouts): Redis when REDIS_URL is set, so that every app
# server sees the same counts; otherwise this process's memory.
if redis_url := env.str("REDIS_URL", default=""):
    CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": redis_url,
            "KEY_PREFIX": "fruitcatalog",
            # Redis down must not take logins down for long: fail fast.
            "OPTIONS": {"socket_connect_timeout": 2, "socket_timeout": 2},
        }
    }
else:
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}
    # django-axes warns that local memory is per process: right for `make run` and the tests;
    # with several workers each counts alone, which is why production sets REDIS_URL.
    SILENCED_SYSTEM_CHECKS.append("axes.W001")
if DATABASES["default"]["ENGINE"] == "core.db.backends.sqlite3":
    # SQLite ignores an index's INCLUDE columns (catalog.FruitSpelling's): they let PostgreSQL
    # answer a search tier from the index alone, and cost SQLite nothing.
    SILENCED_SYSTEM_CHECKS.append("models.W040")

# Login lockout (django-axes): after AXES_FAILURE_LIMIT failed logins from one client address
# within the cool-off, that address gets 429 on the login forms and the token endpoint, even with
# the right password, until the cool-off has passed. Counted per address, not per username: a
# per-username lock would let anyone lock a curator out.
AXES_HANDLER = "axes.handlers.cache.AxesCacheHandler"
AXES_FAILURE_LIMIT = env.int("FRUITCATALOG_LOGIN_FAILURE_LIMIT", default=10)
AXES_COOLOFF_TIME = timedelta(seconds=env.int("FRUITCATALOG_LOGIN_COOLOFF_SECONDS", default=900))
AXES_LOCKOUT_PARAMETERS = ["ip_address"]
# A success does not wipe the address's failures: otherwise anyone with an account could guess
# at others' passwords without limit, logging in as themselves between guesses.
AXES_RESET_ON_SUCCESS = False
AXES_LOCKOUT_CALLABLE = "core.rest.throttling.lockout_response"
# The same client address as the throttles (django-axes' own lookup needs django-ipware).
AXES_CLIENT_IP_CALLABLE = "core.rest.throttling.client_address"
AXES_VERBOSE = False

# CORS (django-cors-headers): public reads under /api/ and /brapi/ answer any origin, without
# credentials (core.apps); writes only from the origins listed here.
CORS_URLS_REGEX = r"^/(api|brapi)/.*$"
CORS_ALLOWED_ORIGINS = env.list("FRUITCATALOG_CORS_WRITE_ORIGINS", default=[])
CORS_ALLOW_CREDENTIALS = False
CORS_EXPOSE_HEADERS = [
    "ETag",
    "Location",
    "Retry-After",
    "Content-Disposition",
    "Idempotent-Replayed",
]
CORS_ALLOW_HEADERS = (*default_cors_headers, "idempotency-key")
CORS_PREFLIGHT_MAX_AGE = 86400

# Idempotent creates (core/idempotency): answers are kept this long per user and key,
# and a claim whose request never answered (a killed worker) lapses after the longest a request
# may take (gunicorn's timeout) plus a margin.
IDEMPOTENCY_KEY_HOURS = env.int("FRUITCATALOG_IDEMPOTENCY_KEY_HOURS", default=24)
IDEMPOTENCY_CLAIM_SECONDS = env.int("FRUITCATALOG_IDEMPOTENCY_CLAIM_SECONDS", default=90)

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        # Token first: its WWW-Authenticate header turns anonymous writes into 401, not 403.
        "core.rest.authentication.TokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["core.rest.permissions.ModelPermissionsOrReadOnly"],
    "DEFAULT_RENDERER_CLASSES": [
        "rest_framework.renderers.JSONRenderer",
        "rest_framework.renderers.BrowsableAPIRenderer",
    ],
    "DEFAULT_PARSER_CLASSES": ["core.rest.parsers.SafeJSONParser"],
    "DEFAULT_FILTER_BACKENDS": ["django_filters.rest_framework.DjangoFilterBackend"],
    "DEFAULT_PAGINATION_CLASS": "core.rest.pagination.PageNumberPagination",
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "EXCEPTION_HANDLER": "core.rest.exceptions.exception_handler",
    # How many proxies in front append to X-Forwarded-For (1 behind the shipped nginx): the
    # throttles and the login lockout (core.rest.throttling.client_address) count the client
    # address that many hops from the right; 0 trusts only REMOTE_ADDR.
    "NUM_PROXIES": env.int("DJANGO_NUM_PROXIES", default=0),
    # Throttles named by scope (core/rest/throttling.py); `None` switches one off.
    "DEFAULT_THROTTLE_RATES": {
        "token_address": env.str("FRUITCATALOG_TOKEN_RATE_PER_ADDRESS", default="20/minute"),
        "token_username": env.str("FRUITCATALOG_TOKEN_RATE_PER_USERNAME", default="10/minute"),
        # Curators' uploads are bounded by cost, not by rate, unless this is set (say "600/hour").
        "uploads": env.str("FRUITCATALOG_UPLOAD_RATE_PER_USER", default="") or None,
        # A full export reads the whole catalog; harvesters revalidate (304s are not counted).
        "exports": env.str("FRUITCATALOG_EXPORT_RATE_PER_ADDRESS", default="60/hour") or None,
    },
    "URL_FORMAT_OVERRIDE": None,
}

SPECTACULAR_SETTINGS = {
    "TITLE": "Fruit Catalog API",
    "DESCRIPTION": (
        "A catalog of fruit varieties and the publications that describe them. Reads are public; "
        "writes need a token (`Authorization: Token <key>`, from `POST /api/v1/auth/token`) or a "
        "session, and the Django model permission for the resource.\n\n"
        "**Languages.** Answers are in English (the default) or German: `?lang=en` or `?lang=de` "
        'on any request (another value is a 400 `{"lang": [...]}`), else the `Accept-Language` '
        "header (its first supported language; the language cookie is not read). Labels, type "
        "display names and every error message (DRF's and the service's own) come in that "
        "language; field names, codes, ids and values never change, and these descriptions are "
        "English. Every answer with a body in words "
        "says `Content-Language` and `Vary: Accept-Language`; files (images, PDFs, exports) are "
        "the same in every language and say neither."
    ),
    "VERSION": VERSION,
    "SERVE_INCLUDE_SCHEMA": False,
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    "COMPONENT_SPLIT_REQUEST": True,
    "ENUM_NAME_OVERRIDES": {
        "FruitTypeEnum": "catalog.models.FruitType",
        "ChangeKindEnum": "changes.models.Kind",
        "ChangeActionEnum": "changes.models.Action",
    },
    "SCHEMA_PATH_PREFIX": r"/api/v1",
    "PREPROCESSING_HOOKS": ["core.rest.schema.canonical_paths"],
    "POSTPROCESSING_HOOKS": [
        "drf_spectacular.hooks.postprocess_schema_enums",
        "core.rest.schema.add_error_responses",
    ],
}

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": env.str("DJANGO_LOG_LEVEL", default="INFO")},
    # django-axes logs every successful login at INFO; failures and lockouts are warnings.
    # pypdf warns about every repair it makes: a hostile file would flood the log.
    # Django's own loggers go to the root handler only: with DEBUG on, Django's default console
    # handler printed every line a second time (`make run`).
    "loggers": {
        "django": {"handlers": [], "level": "INFO", "propagate": True},
        "axes": {"level": "WARNING"},
        "pypdf": {"level": "ERROR"},
    },
}
