"""Authentication and permissions: public reads, model permissions for writes, tokens."""

import pytest
from django.contrib.auth.models import Group, Permission, User
from django.http import HttpRequest
from rest_framework.test import APIClient

from catalog.models import Fruit
from core.rest.curators import CURATORS_GROUP

pytestmark = pytest.mark.django_db

FRUITS = "/api/v1/fruits"


def test_reads_are_public(anon_client, fruit_factory):
    fruit = fruit_factory()
    assert anon_client.get(FRUITS).status_code == 200
    assert anon_client.get(f"{FRUITS}/{fruit.pk}").status_code == 200
    assert anon_client.head(FRUITS).status_code == 200
    assert anon_client.options(FRUITS).status_code == 200


def test_anonymous_writes_get_401_with_token_challenge(anon_client, fruit_factory):
    fruit = fruit_factory()
    responses = [
        anon_client.post(FRUITS, {"name": "A", "type": "apple"}, format="json"),
        anon_client.patch(f"{FRUITS}/{fruit.pk}", {"name": "B"}, format="json"),
        anon_client.delete(f"{FRUITS}/{fruit.pk}"),
    ]
    for response in responses:
        assert response.status_code == 401
        assert response["WWW-Authenticate"] == "Token"
        assert "detail" in response.json()
    assert Fruit.objects.get().name == fruit.name


def test_users_without_the_permission_get_403(reader_client, fruit_factory):
    fruit = fruit_factory()
    assert (
        reader_client.post(FRUITS, {"name": "A", "type": "apple"}, format="json").status_code == 403
    )
    assert (
        reader_client.patch(f"{FRUITS}/{fruit.pk}", {"name": "B"}, format="json").status_code == 403
    )
    assert reader_client.delete(f"{FRUITS}/{fruit.pk}").status_code == 403


def test_each_write_needs_its_own_model_permission(fruit_factory):
    fruit = fruit_factory()
    user = User.objects.create_user("adder", password="x-pass-123")
    user.user_permissions.add(Permission.objects.get(codename="add_fruit"))
    client = APIClient()
    client.force_authenticate(user)
    assert client.post(FRUITS, {"name": "A", "type": "apple"}, format="json").status_code == 201
    assert client.patch(f"{FRUITS}/{fruit.pk}", {"name": "B"}, format="json").status_code == 403
    assert client.delete(f"{FRUITS}/{fruit.pk}").status_code == 403


def test_curators_group_holds_every_catalog_permission():
    codenames = set(
        Group.objects.get(name=CURATORS_GROUP).permissions.values_list("codename", flat=True)
    )
    for model in ("fruit", "fruitname", "fruitimage"):
        for action in ("add", "change", "delete", "view"):
            assert f"{action}_{model}" in codenames


def test_token_endpoint_returns_a_token_that_authenticates_writes(db):
    User.objects.create_user("ann", password="s3cret-pass").groups.add(
        Group.objects.get(name=CURATORS_GROUP)
    )
    client = APIClient()
    response = client.post(
        "/api/v1/auth/token", {"username": "ann", "password": "s3cret-pass"}, format="json"
    )
    assert response.status_code == 200
    token = response.json()["token"]
    client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    assert client.post(FRUITS, {"name": "A", "type": "apple"}, format="json").status_code == 201
    assert client.post(
        "/api/v1/auth/token/", {"username": "ann", "password": "s3cret-pass"}
    ).json() == {"token": token}


def test_wrong_credentials_get_400_with_non_field_errors(db):
    User.objects.create_user("ann", password="s3cret-pass")
    response = APIClient().post(
        "/api/v1/auth/token", {"username": "ann", "password": "nope"}, format="json"
    )
    assert response.status_code == 400
    assert "non_field_errors" in response.json()


def test_invalid_token_is_a_401(fruit_factory):
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION="Token not-a-real-token")
    assert client.post(FRUITS, {"name": "A", "type": "apple"}, format="json").status_code == 401


def test_a_bearer_token_works_as_generated_clients_send_it(curator_client):
    token = curator_client._credentials["HTTP_AUTHORIZATION"].split()[1]
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {token}")
    assert client.post(FRUITS, {"name": "A", "type": "apple"}, format="json").status_code == 201
    client.credentials(HTTP_AUTHORIZATION="Bearer")
    response = client.post(FRUITS, {"name": "B", "type": "apple"}, format="json")
    assert response.status_code == 401
    assert "Token <key>" in response.json()["detail"]


def test_session_login_works_for_the_browsable_api(curator, fruit_factory):
    client = APIClient(enforce_csrf_checks=False)
    # django-axes watches every authenticate() call, which needs the request it comes from.
    assert client.login(request=HttpRequest(), username="curator", password="curator-pass-123")
    response = client.get(FRUITS, HTTP_ACCEPT="text/html")
    assert response.status_code == 200
    assert b"curator" in response.content
    assert client.post(FRUITS, {"name": "A", "type": "apple"}, format="json").status_code == 201
