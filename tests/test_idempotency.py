"""`Idempotency-Key` on the creating POSTs: a retry writes nothing and gets the first answer."""

import threading
import time
from datetime import timedelta

import pytest
from django.contrib.auth.models import User
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import OperationalError, connection, connections
from django.test.client import encode_multipart
from django.utils import timezone
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from catalog.models import Fruit, FruitImage
from core.idempotency.models import IdempotentRequest
from core.testing.media import make_object_png
from publications.models import Publication, PublicationFruitImage
from publications.services import publication_link_fruit

pytestmark = pytest.mark.django_db

FRUITS = "/api/v1/fruits"


def post_fruit(client, key, **body):
    body = {"name": "Boskoop", "type": "apple", **body}
    return client.post(FRUITS, body, format="json", HTTP_IDEMPOTENCY_KEY=key)


def test_a_retried_create_writes_nothing_and_replays_the_first_answer(curator_client):
    first = post_fruit(curator_client, "order-1")
    again = post_fruit(curator_client, "order-1")

    assert first.status_code == again.status_code == 201
    assert again.content == first.content
    assert again["Location"] == first["Location"]
    assert again["Content-Type"] == "application/json"
    assert again["Idempotent-Replayed"] == "true"
    assert not first.has_header("Idempotent-Replayed")
    assert Fruit.objects.count() == 1


def test_json_bodies_are_compared_by_value_not_by_bytes(curator_client):
    first = curator_client.post(
        FRUITS,
        '{"name": "Boskoop", "type": "apple"}',
        content_type="application/json",
        HTTP_IDEMPOTENCY_KEY="k",
    )
    again = curator_client.post(
        FRUITS,
        '{ "type":"apple",\n"name":"Boskoop" }',
        content_type="application/json",
        HTTP_IDEMPOTENCY_KEY="k",
    )
    assert (first.status_code, again.status_code) == (201, 201)
    assert again["Idempotent-Replayed"] == "true" and Fruit.objects.count() == 1


def test_the_same_key_with_another_body_or_path_is_a_422(curator_client):
    assert post_fruit(curator_client, "k").status_code == 201
    other_body = post_fruit(curator_client, "k", name="Cox")
    other_path = curator_client.post(
        "/api/v1/publications", {"title": "Pomona"}, format="json", HTTP_IDEMPOTENCY_KEY="k"
    )
    assert (other_body.status_code, other_path.status_code) == (422, 422)
    assert "Idempotency-Key" in other_body.json()["detail"]
    assert Fruit.objects.count() == 1 and not Publication.objects.exists()


@pytest.mark.parametrize("key", ["", "has space", "tab\tkey", "ü", "x" * 256])
def test_a_malformed_key_is_a_400_and_nothing_is_written(curator_client, key):
    response = post_fruit(curator_client, key)
    assert response.status_code == 400
    assert "Idempotency-Key" in response.json()
    assert not Fruit.objects.exists() and not IdempotentRequest.objects.exists()


def test_a_validation_error_is_replayed_too(curator_client):
    first = post_fruit(curator_client, "bad", type="banana")
    again = post_fruit(curator_client, "bad", type="banana")
    assert first.status_code == again.status_code == 400
    assert again.content == first.content and again["Idempotent-Replayed"] == "true"


def test_keys_belong_to_their_user(curator_client, staff_client):
    assert post_fruit(curator_client, "shared").status_code == 201
    other = post_fruit(staff_client, "shared", name="Cox")
    assert other.status_code == 201 and not other.has_header("Idempotent-Replayed")
    assert Fruit.objects.count() == 2


def test_a_retry_while_the_first_is_processed_is_a_409(curator_client, settings):
    # The claim of a request still under way (on this or another app server).
    IdempotentRequest.objects.create(
        user=curator_client.user,
        key="busy",
        fingerprint=_fingerprint_of_a_fruit_post(curator_client),
        created_at=timezone.now(),
    )
    response = post_fruit(curator_client, "busy")
    assert response.status_code == 409 and "still being processed" in response.json()["detail"]
    assert not Fruit.objects.exists()


def test_a_claim_whose_request_died_is_taken_over_after_the_claim_lapses(curator_client, settings):
    IdempotentRequest.objects.create(
        user=curator_client.user,
        key="killed",
        fingerprint=_fingerprint_of_a_fruit_post(curator_client),
        created_at=timezone.now() - timedelta(seconds=settings.IDEMPOTENCY_CLAIM_SECONDS + 1),
    )
    response = post_fruit(curator_client, "killed")
    assert response.status_code == 201 and Fruit.objects.count() == 1
    assert post_fruit(curator_client, "killed")["Idempotent-Replayed"] == "true"


def test_keys_expire_after_their_day_and_are_cleaned_up(curator_client, settings):
    assert post_fruit(curator_client, "old").status_code == 201
    IdempotentRequest.objects.update(
        created_at=timezone.now() - timedelta(hours=settings.IDEMPOTENCY_KEY_HOURS, seconds=1)
    )
    again = post_fruit(curator_client, "old", name="Cox")  # a new request under an old key
    assert again.status_code == 201 and not again.has_header("Idempotent-Replayed")
    assert IdempotentRequest.objects.get().created_at > timezone.now() - timedelta(minutes=1)


def test_an_answer_of_5xx_is_not_kept(curator_client, monkeypatch):
    from catalog import views

    def fail(**fields):
        raise RuntimeError("the write failed")

    monkeypatch.setattr(views, "fruit_create", fail)
    curator_client.raise_request_exception = False
    assert post_fruit(curator_client, "retry-me").status_code == 500
    assert not IdempotentRequest.objects.exists()
    monkeypatch.undo()
    assert post_fruit(curator_client, "retry-me").status_code == 201


class Deadlock(Exception):
    """What psycopg raises when PostgreSQL ends a deadlock by rolling one transaction back."""

    sqlstate = "40P01"


def test_a_try_again_answer_is_not_kept(curator_client, monkeypatch):
    from catalog import views

    def lose_a_race(**fields):
        raise OperationalError("deadlock detected") from Deadlock()

    monkeypatch.setattr(views, "fruit_create", lose_a_race)
    assert post_fruit(curator_client, "raced").status_code == 409
    monkeypatch.undo()
    again = post_fruit(curator_client, "raced")
    assert again.status_code == 201 and not again.has_header("Idempotent-Replayed")


def test_an_answer_that_cannot_be_stored_undoes_the_write(curator_client, monkeypatch):
    from core.idempotency import mixins

    def database_gone(record, response):
        raise OperationalError("server closed the connection unexpectedly")

    monkeypatch.setattr(mixins, "store", database_gone)
    response = post_fruit(curator_client, "lost")
    assert response.status_code == 503 and response["Retry-After"]
    assert not Fruit.objects.exists()  # the client was not told 201 for a fruit that is gone
    monkeypatch.undo()
    assert post_fruit(curator_client, "lost").status_code == 201
    assert Fruit.objects.count() == 1


def test_a_claim_left_by_a_request_that_ended_is_taken_over(curator_client, settings):
    """PostgreSQL knows at once (the claim's row is not locked); SQLite waits for the lapse."""
    IdempotentRequest.objects.create(
        user=curator_client.user,
        key="ended",
        fingerprint=_fingerprint_of_a_fruit_post(curator_client),
        created_at=timezone.now() - timedelta(seconds=5),
    )
    response = post_fruit(curator_client, "ended")
    if connection.vendor == "postgresql":
        assert response.status_code == 201 and Fruit.objects.count() == 1
    else:
        assert response.status_code == 409 and not Fruit.objects.exists()


def test_a_multipart_upload_rebuilt_with_a_new_boundary_is_the_same_request(
    curator_client, fruit_factory
):
    fruit = fruit_factory()
    path = f"{FRUITS}/{fruit.pk}/images"
    png = make_object_png()

    def upload(boundary, data=png):
        body = encode_multipart(boundary, {"image": SimpleUploadedFile("a.png", data)})
        return curator_client.generic(
            "POST",
            path,
            body,
            content_type=f"multipart/form-data; boundary={boundary}",
            HTTP_IDEMPOTENCY_KEY="upload-1",
        )

    first, again = upload("BoUnDaRy1"), upload("another-boundary-2")
    assert first.status_code == again.status_code == 201
    assert again["Idempotent-Replayed"] == "true" and again.content == first.content
    assert FruitImage.objects.count() == 1
    other_file = upload("BoUnDaRy3", make_object_png(color=(0, 0, 200)))
    assert other_file.status_code == 422


def test_raw_uploads_and_publication_images_take_keys_too(curator_client, fruit_factory):
    publication = Publication.objects.create(title="Pomona")
    fruit = fruit_factory()
    publication_link_fruit(publication=publication, fruit=fruit)
    path = f"/api/v1/publications/{publication.pk}/fruit-images"
    body = {"fruit": fruit.pk, "image": SimpleUploadedFile("p.png", make_object_png())}
    first = curator_client.post(path, body, format="multipart", HTTP_IDEMPOTENCY_KEY="plate")
    body["image"] = SimpleUploadedFile("p.png", make_object_png())
    again = curator_client.post(path, body, format="multipart", HTTP_IDEMPOTENCY_KEY="plate")
    assert first.status_code == again.status_code == 201
    assert PublicationFruitImage.objects.count() == 1

    raw = f"{FRUITS}/{fruit.pk}/images"
    for _ in range(2):
        response = curator_client.generic(
            "POST", raw, make_object_png(), content_type="image/png", HTTP_IDEMPOTENCY_KEY="raw"
        )
        assert response.status_code == 201
    assert FruitImage.objects.filter(fruit=fruit).count() == 1


def test_without_a_key_nothing_changes(curator_client):
    for _ in range(2):
        assert (
            curator_client.post(FRUITS, {"name": "A", "type": "pear"}, format="json").status_code
            == 201
        )
    assert Fruit.objects.count() == 2 and not IdempotentRequest.objects.exists()


def _fingerprint_of_a_fruit_post(client) -> str:
    """The fingerprint `post_fruit` sends, taken from a request the service claims and drops."""
    from rest_framework.parsers import JSONParser
    from rest_framework.request import Request
    from rest_framework.test import APIRequestFactory

    from core.idempotency.mixins import fingerprint

    raw = APIRequestFactory().post(FRUITS, {"name": "Boskoop", "type": "apple"}, format="json")
    return fingerprint(Request(raw, parsers=[JSONParser()]))


@pytest.mark.postgres_only
@pytest.mark.django_db(transaction=True)
def test_two_concurrent_requests_with_one_key_create_once(monkeypatch):
    if connection.vendor != "postgresql":
        pytest.skip("needs PostgreSQL's concurrent sessions")
    from catalog import views

    # A superuser: transactional tests flush the Curators group its data migration made.
    user = User.objects.create_superuser("concurrent")
    token = Token.objects.create(user=user)
    second_answered = threading.Event()
    original_create = views.fruit_create

    def slow_create(**fields):
        second_answered.wait(timeout=10)  # the retry arrives while this one is under way
        return original_create(**fields)

    monkeypatch.setattr(views, "fruit_create", slow_create)
    answers = {}

    def send(name):
        client = APIClient()
        client.credentials(HTTP_AUTHORIZATION=f"Token {token.key}")
        try:
            answers[name] = post_fruit(client, "together")
        finally:
            connections.close_all()

    first = threading.Thread(target=send, args=("first",))
    first.start()
    for _ in range(100):  # the first request's claim is committed before its create runs
        if IdempotentRequest.objects.exists():
            break
        time.sleep(0.05)
    send("second")
    second_answered.set()
    first.join(timeout=20)

    assert answers["first"].status_code == 201
    assert answers["second"].status_code == 409
    assert Fruit.objects.count() == 1
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {token.key}")
    replayed = post_fruit(client, "together")
    assert replayed.status_code == 201 and replayed["Idempotent-Replayed"] == "true"
    assert replayed.content == answers["first"].content
