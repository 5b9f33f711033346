"""Public exposure: throttles, lockout, body caps, CORS, permissions, tokens, the deploy check."""

import io
import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.contrib.auth.hashers import PBKDF2PasswordHasher
from django.contrib.auth.models import Permission, User
from django.core.cache import cache
from django.test import Client
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from catalog.models import Fruit, FruitImage
from core.testing.media import make_object_png
from publications.tests.factories import PublicationFactory

pytestmark = pytest.mark.django_db

ROOT = Path(__file__).resolve().parents[1]
TOKEN = "/api/v1/auth/token"
RIGHT = {"username": "curator", "password": "curator-pass-123"}


@pytest.fixture
def rates(settings):
    """Set throttle rates for one test: `rates(token_address="3/minute")`."""

    def set_rates(**changed):
        settings.REST_FRAMEWORK = {
            **settings.REST_FRAMEWORK,
            "DEFAULT_THROTTLE_RATES": {
                **settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"],
                **changed,
            },
        }

    return set_rates


def user_with(*codenames, username="someone", is_staff=False) -> User:
    user = User.objects.create_user(username, password="a-long-pass-123", is_staff=is_staff)
    user.user_permissions.add(*Permission.objects.filter(codename__in=codenames))
    return user


def token_client(user) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=user).key}")
    return client


# Throttling and lockout -------------------------------------------------------------------------


def test_token_requests_per_address_are_throttled_with_retry_after(curator, rates):
    rates(token_address="3/minute", token_username=None)
    client = APIClient()
    for _ in range(3):
        assert client.post(TOKEN, {"username": "x", "password": "y"}).status_code == 400
    response = client.post(TOKEN, {"username": "curator", "password": "curator-pass-123"})
    assert response.status_code == 429
    assert int(response["Retry-After"]) > 0
    assert "throttled" in response.json()["detail"]
    # Another address is not affected.
    other = APIClient(REMOTE_ADDR="10.0.0.2")
    assert (
        other.post(TOKEN, {"username": "curator", "password": "curator-pass-123"}).status_code
        == 200
    )


def test_token_requests_per_username_are_throttled_across_addresses(curator, rates):
    rates(token_address=None, token_username="2/minute")
    for address in ("10.0.0.1", "10.0.0.2"):
        response = APIClient(REMOTE_ADDR=address).post(
            TOKEN, {"username": "Curator", "password": "no"}
        )
        assert response.status_code == 400
    response = APIClient(REMOTE_ADDR="10.0.0.3").post(
        TOKEN, {"username": "curator", "password": "curator-pass-123"}
    )
    assert response.status_code == 429


def test_repeated_failures_lock_the_address_out_of_every_login(curator, settings, rates):
    rates(token_address=None, token_username=None)
    settings.AXES_FAILURE_LIMIT = 3
    api = APIClient()
    for _ in range(3):
        assert api.post(TOKEN, {"username": "curator", "password": "guess"}).status_code in (
            400,
            429,
        )
    # The right password no longer helps, on the token endpoint or the login forms.
    response = api.post(TOKEN, {"username": "curator", "password": "curator-pass-123"})
    assert response.status_code == 429
    assert response.json()["detail"].startswith("Too many failed login attempts")
    assert int(response["Retry-After"]) == 900
    admin_login = Client().post(
        "/admin/login/", {"username": "curator", "password": "curator-pass-123"}
    )
    assert admin_login.status_code == 429
    assert admin_login["Retry-After"] == "900"
    # Another address still logs in.
    other = APIClient(REMOTE_ADDR="10.0.0.9")
    assert (
        other.post(TOKEN, {"username": "curator", "password": "curator-pass-123"}).status_code
        == 200
    )


@pytest.mark.parametrize("login", ["/admin/login/", "/api-auth/login/"])
def test_login_form_failures_lock_out_too(curator, settings, login):
    settings.AXES_FAILURE_LIMIT = 2
    client = Client()
    guess = {"username": "curator", "password": "guess"}
    assert client.post(login, guess).status_code == 200  # the form again, with its error
    assert client.post(login, guess).status_code == 429  # the limit is reached
    response = client.post(login, {"username": "curator", "password": "curator-pass-123"})
    assert response.status_code == 429
    assert response["Retry-After"] == "900"


def test_uploads_are_not_throttled_unless_a_rate_is_set(curator_client, fruit_factory, rates):
    fruit = fruit_factory()
    url = f"/api/v1/fruits/{fruit.pk}/images"
    photos = (make_object_png(size=(120 + n, 100)) for n in range(10))  # each new to the fruit
    for _ in range(3):
        assert curator_client.post(url, next(photos), content_type="image/png").status_code == 201
    rates(uploads="3/hour")
    cache.clear()
    for _ in range(3):
        assert curator_client.post(url, next(photos), content_type="image/png").status_code == 201
    response = curator_client.post(url, next(photos), content_type="image/png")
    assert response.status_code == 429
    assert FruitImage.objects.filter(fruit=fruit).count() == 6
    # Reads and deletes are not uploads.
    assert curator_client.get(url).status_code == 200


def test_counters_live_in_redis_when_redis_url_is_set(tmp_path):
    """With REDIS_URL, Django's Redis cache holds the counters that every app server shares."""
    redis = pytest.importorskip("redis")
    try:
        redis.Redis.from_url("redis://127.0.0.1:6379/15").ping()
    except redis.exceptions.ConnectionError:
        pytest.skip("no Redis on 127.0.0.1:6379")
    script = (
        "import django; django.setup()\n"
        "from django.conf import settings; from django.core.cache import cache\n"
        "print(settings.CACHES['default']['BACKEND'])\n"
        "cache.set('probe', 1); print(cache.get('probe'))\n"
    )
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "fruitcatalog.settings",
        "REDIS_URL": "redis://127.0.0.1:6379/15",
    }
    env.pop("DATABASE_URL", None)
    result = subprocess.run(
        [sys.executable, "-c", script],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    assert result.stdout.split() == ["django.core.cache.backends.redis.RedisCache", "1"]
    client = redis.Redis.from_url("redis://127.0.0.1:6379/15")
    assert any(b"probe" in key for key in client.keys("fruitcatalog*"))
    client.flushdb()


# Bodies and parameters --------------------------------------------------------------------------


def test_a_body_over_the_general_cap_is_413_before_it_is_read(settings, curator_client):
    settings.FRUITCATALOG_MAX_BODY_BYTES = 1000
    body = b"x" * 2000
    for path in (TOKEN, "/api/v1/fruits", "/admin/login/", "/api-auth/login/"):
        response = Client().post(path, body, content_type="multipart/form-data; boundary=x")
        assert response.status_code == 413, path
        assert "1000 bytes" in response.json()["detail"]
    assert Fruit.objects.count() == 0


def test_a_chunked_body_over_the_general_cap_is_413(settings):
    settings.FRUITCATALOG_MAX_BODY_BYTES = 1000
    response = Client().generic(
        "POST",
        TOKEN,
        b"",
        content_type="application/json",
        HTTP_TRANSFER_ENCODING="chunked",
        **{"wsgi.input_terminated": True, "wsgi.input": io.BytesIO(b"{" * 5000)},
    )
    assert response.status_code == 413


def test_upload_routes_keep_the_upload_limit(settings, curator_client, fruit_factory):
    settings.FRUITCATALOG_MAX_BODY_BYTES = 100
    fruit = fruit_factory()
    png = make_object_png()
    assert len(png) > 100
    response = curator_client.post(
        f"/api/v1/fruits/{fruit.pk}/images", png, content_type="image/png"
    )
    assert response.status_code == 201


def test_a_huge_synonym_list_is_refused_before_its_items_are_checked(curator_client):
    response = curator_client.post(
        "/api/v1/fruits", {"name": "A", "type": "apple", "synonyms": ["a"] * 50_000}, format="json"
    )
    assert response.status_code == 400
    assert response.json()["synonyms"] == ["Ensure this field has no more than 100 elements."]


def test_deeply_nested_json_to_the_token_endpoint_is_400():
    body = "[" * 100_000 + "]" * 100_000
    response = APIClient().post(TOKEN, body, content_type="application/json")
    assert response.status_code == 400


@pytest.mark.parametrize(
    "path",
    [
        "/api/v1/fruits?type=%00",
        "/api/v1/fruits?search=a%00b",
        "/admin/catalog/fruit/?type__exact=%00",
        "/admin/autocomplete/?term=%00&app_label=catalog&model_name=fruit&field_name=fruit",
    ],
)
def test_a_nul_byte_in_a_parameter_is_400(admin_client, path):
    response = admin_client.get(path)
    assert response.status_code == 400
    assert response.json() == {"detail": "Null characters are not allowed."}


# CORS -------------------------------------------------------------------------------------------


def test_public_reads_answer_any_origin_without_credentials(fruit_factory):
    fruit = fruit_factory()
    client = Client()
    for path in ("/api/v1/fruits", f"/api/v1/fruits/{fruit.pk}"):
        response = client.get(path, HTTP_ORIGIN="https://cards.example")
        assert response["Access-Control-Allow-Origin"] == "https://cards.example"
        assert "Access-Control-Allow-Credentials" not in response
        assert "ETag" in response["Access-Control-Expose-Headers"] or path.endswith("fruits")
    preflight = client.options(
        "/api/v1/fruits",
        HTTP_ORIGIN="https://cards.example",
        HTTP_ACCESS_CONTROL_REQUEST_METHOD="GET",
    )
    assert preflight.status_code == 200
    assert preflight["Access-Control-Allow-Origin"] == "https://cards.example"


def test_writes_answer_only_listed_origins(settings, curator_client):
    settings.CORS_ALLOWED_ORIGINS = ["https://curators.example"]
    client = Client()
    for origin, allowed in (("https://curators.example", True), ("https://evil.example", False)):
        preflight = client.options(
            "/api/v1/fruits", HTTP_ORIGIN=origin, HTTP_ACCESS_CONTROL_REQUEST_METHOD="POST"
        )
        assert ("Access-Control-Allow-Origin" in preflight) is allowed, origin
    response = curator_client.post(
        "/api/v1/fruits",
        {"name": "A", "type": "apple"},
        format="json",
        HTTP_ORIGIN="https://evil.example",
    )
    assert "Access-Control-Allow-Origin" not in response


def test_pages_outside_the_api_send_no_cors_headers():
    response = Client().get("/admin/login/", HTTP_ORIGIN="https://cards.example")
    assert "Access-Control-Allow-Origin" not in response


# Permissions and tokens -------------------------------------------------------------------------


def test_the_backfill_endpoint_needs_the_admin_actions_permissions():
    path = "/api/v1/admin/backfill-thumbnails"
    bare_staff = token_client(user_with(username="bare", is_staff=True))
    assert bare_staff.post(path).status_code == 403
    images_only = ["change_fruitimage", "change_publicationfruitimage"]
    # Covers are backfilled too, so the endpoint also needs `change_publication`.
    assert (
        token_client(user_with(*images_only, username="images", is_staff=True))
        .post(path)
        .status_code
        == 403
    )
    allowed = token_client(
        user_with(*images_only, "change_publication", username="ops", is_staff=True)
    )
    assert allowed.post(path).status_code == 200


def test_sub_resource_writes_need_the_childs_own_permission(fruit_factory):
    fruit = fruit_factory()
    image = FruitImage.objects.create(fruit=fruit, data=make_object_png())
    url = f"/api/v1/fruits/{fruit.pk}/images"
    only_parent = token_client(user_with("change_fruit", username="parent-only"))
    assert only_parent.post(url, make_object_png(), content_type="image/png").status_code == 403
    assert only_parent.delete(f"{url}/{image.pk}").status_code == 403
    full = token_client(
        user_with("change_fruit", "add_fruitimage", "delete_fruitimage", username="full")
    )
    other_photo = make_object_png(size=(130, 100))  # the fruit has the default one already
    assert full.post(url, other_photo, content_type="image/png").status_code == 201
    assert full.delete(f"{url}/{image.pk}").status_code == 204


def test_linking_needs_add_and_unlinking_delete_of_the_link(fruit_factory):
    fruit = fruit_factory()
    publication = PublicationFactory()
    url = f"/api/v1/publications/{publication.pk}/fruits/{fruit.pk}"
    only_parent = token_client(user_with("change_publication", username="parent-only"))
    assert only_parent.put(url).status_code == 403
    linker = token_client(
        user_with(
            "change_publication", "add_publicationfruit", "delete_publicationfruit", username="l"
        )
    )
    assert linker.put(url).status_code in (200, 201)
    assert only_parent.delete(url).status_code == 403
    assert linker.delete(url).status_code == 204


def test_a_password_change_revokes_the_users_tokens(curator):
    token = Token.objects.create(user=curator)
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {token.key}")
    assert (
        client.post("/api/v1/fruits", {"name": "A", "type": "apple"}, format="json").status_code
        == 201
    )
    curator.last_name = "Renamed"
    curator.save()
    assert Token.objects.filter(user=curator).exists()  # other changes keep the token
    curator.set_password("a-new-long-pass-456")
    curator.save()
    assert not Token.objects.filter(user=curator).exists()
    assert (
        client.post("/api/v1/fruits", {"name": "B", "type": "apple"}, format="json").status_code
        == 401
    )


def test_a_password_hash_upgrade_keeps_the_token(curator, settings):
    token = Token.objects.create(user=curator)
    settings.PASSWORD_HASHERS = [
        f"{__name__}.OneRoundPBKDF2Hasher",
        "django.contrib.auth.hashers.MD5PasswordHasher",
    ]
    assert curator.check_password("curator-pass-123")  # rehashes with the preferred hasher
    assert User.objects.get(pk=curator.pk).password.startswith("pbkdf2_sha256$1$")
    assert Token.objects.filter(pk=token.pk).exists()


class OneRoundPBKDF2Hasher(PBKDF2PasswordHasher):
    iterations = 1


# Deploy check -----------------------------------------------------------------------------------


def test_check_deploy_is_clean_with_the_documented_production_settings():
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("DJANGO_", "DATABASE_URL", "REDIS_URL"))
    }
    env.update(
        {
            "DJANGO_SETTINGS_MODULE": "fruitcatalog.settings",
            "DJANGO_SECRET_KEY": "k8#Qz!v2Lp@9mR$w4Xc&7Tn^1Hb*5Yd(3Ff)6Jg_0Us+Ee=Ai%Ko",
            "DJANGO_ALLOWED_HOSTS": "fruit.example",
            "DJANGO_SECURE_COOKIES": "1",
            "DJANGO_SECURE_SSL_REDIRECT": "1",
            "DJANGO_SECURE_HSTS_SECONDS": "31536000",
            "DJANGO_SECURE_HSTS_INCLUDE_SUBDOMAINS": "1",
            "DJANGO_SECURE_HSTS_PRELOAD": "1",
            "DJANGO_BEHIND_PROXY": "1",
            "DJANGO_NUM_PROXIES": "1",
            "REDIS_URL": "redis://127.0.0.1:6379/15",
        }
    )
    result = subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stderr + result.stdout
    assert "no issues" in result.stdout


def test_behind_a_proxy_the_lockout_counts_the_forwarded_client(curator, settings, rates):
    """Behind nginx every request comes from nginx: counting it would lock everyone out."""
    rates(token_address=None, token_username=None)
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "NUM_PROXIES": 1}
    settings.AXES_FAILURE_LIMIT = 2
    attacker = APIClient(REMOTE_ADDR="172.18.0.5", HTTP_X_FORWARDED_FOR="203.0.113.7")
    for _ in range(2):
        attacker.post(TOKEN, {"username": "curator", "password": "guess"})
    assert attacker.post(TOKEN, RIGHT).status_code == 429
    someone_else = APIClient(REMOTE_ADDR="172.18.0.5", HTTP_X_FORWARDED_FOR="198.51.100.2")
    assert someone_else.post(TOKEN, RIGHT).status_code == 200


def test_logging_in_as_oneself_between_guesses_does_not_reset_the_count(curator, settings):
    settings.AXES_FAILURE_LIMIT = 3
    User.objects.create_user("mallory", password="mallory-pass-123")
    client = Client()
    guess = {"username": "curator", "password": "guess"}
    own = {"username": "mallory", "password": "mallory-pass-123"}
    for _ in range(2):
        assert client.post("/admin/login/", guess).status_code == 200
        client.post("/api-auth/login/", own)  # a success of the attacker's own account
    response = client.post("/admin/login/", guess)
    assert response.status_code == 429


def test_removing_a_description_needs_change_of_the_link_not_delete(fruit_factory, pdf_bytes):
    from publications.services import publication_fruit_set_description, publication_link_fruit

    fruit = fruit_factory()
    publication = PublicationFactory()
    link, _ = publication_link_fruit(publication=publication, fruit=fruit)
    publication_fruit_set_description(link=link, data=pdf_bytes)
    url = f"/api/v1/publications/{publication.pk}/fruits/{fruit.pk}/description"
    editor = token_client(
        user_with("change_publication", "change_publicationfruit", username="editor")
    )
    assert editor.delete(url).status_code == 204


def test_an_unreachable_redis_is_a_503_not_a_500(tmp_path):
    """With REDIS_URL pointing at nothing, throttled and locked-out routes answer 503: JSON in
    the API, the site's HTML page in the admin."""
    script = (
        "import django; django.setup()\n"
        "from django.test import Client\n"
        "from django.test.utils import setup_test_environment; setup_test_environment()\n"
        "c = Client(raise_request_exception=False)\n"
        "r = c.post('/api/v1/auth/token', {'username': 'a', 'password': 'b'},"
        " content_type='application/json')\n"
        "print(r.status_code, r['Content-Type'], r.get('Retry-After'))\n"
        "r = c.post('/admin/login/', {'username': 'a', 'password': 'b'})\n"
        "print(r.status_code, r['Content-Type'], r.get('Retry-After'))\n"
    )
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "fruitcatalog.settings",
        "DJANGO_DEBUG": "1",
        "REDIS_URL": "redis://127.0.0.1:1/0",  # nothing listens on port 1
        "DATABASE_URL": f"sqlite:///{tmp_path / 'db.sqlite3'}",
    }
    subprocess.run([sys.executable, "manage.py", "migrate", "-v0"], cwd=ROOT, env=env, check=True)
    result = subprocess.run(
        [sys.executable, "-c", script], cwd=ROOT, env=env, capture_output=True, text=True
    )
    assert result.returncode == 0, result.stderr
    lines = result.stdout.split("\n")
    assert lines[0] == "503 application/json 5", result.stdout
    assert lines[1] == "503 text/html; charset=utf-8 5", result.stdout
