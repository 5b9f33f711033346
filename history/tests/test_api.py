"""A fruit's and a publication's history, revert, deleted fruits and their restore, imports."""

import pytest

from catalog.models import Fruit

pytestmark = pytest.mark.django_db

FRUITS = "/api/v1/fruits"


def create(client, **fields):
    response = client.post(FRUITS, {"type": "apple", **fields}, format="json")
    assert response.status_code == 201, response.content
    return response.json()


def history(client, pk):
    response = client.get(f"{FRUITS}/{pk}/history")
    assert response.status_code == 200, response.content
    return response.json()["results"]


def test_a_fruits_history_says_who_changed_what_old_to_new_newest_first(curator_client):
    fruit = create(curator_client, name="Boskop", names=[{"name": "Renette de Montfort"}])
    curator_client.patch(
        f"{FRUITS}/{fruit['id']}",
        {"name": "Boskoop", "names": [{"name": "Belle de Boskoop", "language": "fr"}]},
        format="json",
    )

    changed, created = history(curator_client, fruit["id"])
    assert (changed["action"], changed["user"], changed["via"], changed["batch"]) == (
        "changed",
        "curator",
        "api",
        None,
    )
    assert changed["changes"]["name"] == {"from": "Boskop", "to": "Boskoop"}
    assert [n["name"] for n in changed["changes"]["names"]["from"]] == ["Renette de Montfort"]
    assert [n["name"] for n in changed["changes"]["names"]["to"]] == ["Belle de Boskoop"]
    assert set(changed["changes"]) == {"name", "names"}
    assert created["action"] == "created"
    assert created["changes"]["name"] == {"from": None, "to": "Boskop"}
    assert "relations" not in created["changes"]  # none before it existed, none after


def test_the_history_is_for_curators_only(anon_client, reader_client, curator_client):
    fruit = create(curator_client, name="Topaz")
    assert anon_client.get(f"{FRUITS}/{fruit['id']}/history").status_code == 401
    assert reader_client.get(f"{FRUITS}/{fruit['id']}/history").status_code == 403
    assert curator_client.get(f"{FRUITS}/999999/history").status_code == 404


def test_a_revert_brings_back_fields_names_and_is_itself_a_version(curator_client):
    fruit = create(curator_client, name="Boskop", names=[{"name": "Renette de Montfort"}])
    pk = fruit["id"]
    curator_client.patch(f"{FRUITS}/{pk}", {"name": "Boskoop", "names": []}, format="json")
    created = history(curator_client, pk)[-1]

    response = curator_client.post(f"{FRUITS}/{pk}/history/{created['id']}/revert")

    assert response.status_code == 200, response.content
    body = response.json()
    assert (body["name"], [n["name"] for n in body["names"]]) == (
        "Boskop",
        ["Renette de Montfort"],
    )
    assert body["not_restored"] == []
    latest = history(curator_client, pk)[0]
    assert latest["action"] == "reverted"
    assert latest["changes"]["name"] == {"from": "Boskoop", "to": "Boskop"}


def test_a_revert_to_a_number_another_fruit_holds_now_is_a_409_and_changes_nothing(
    curator_client,
):
    fruit = create(curator_client, name="Topaz", catalog_number=10)
    pk = fruit["id"]
    curator_client.patch(f"{FRUITS}/{pk}", {"catalog_number": 11}, format="json")
    create(curator_client, name="Rubinola", catalog_number=10)
    first = history(curator_client, pk)[-1]

    response = curator_client.post(f"{FRUITS}/{pk}/history/{first['id']}/revert")

    assert response.status_code == 409
    assert "catalog_number" in response.json()
    assert Fruit.objects.get(pk=pk).catalog_number == 11
    assert (
        curator_client.post(
            f"{FRUITS}/{pk}/history/{'0' * 8}-0000-0000-0000-{'0' * 12}/revert"
        ).status_code
        == 404
    )


def test_a_relation_to_a_fruit_since_deleted_comes_back_by_its_name_and_is_named(
    curator_client,
):
    mother = create(curator_client, name="Cox Orange")
    child = create(
        curator_client, name="Alkmene", relations=[{"kind": "mother", "fruit_id": mother["id"]}]
    )
    first = history(curator_client, child["id"])[0]
    curator_client.patch(f"{FRUITS}/{child['id']}", {"relations": []}, format="json")
    assert curator_client.delete(f"{FRUITS}/{mother['id']}").status_code == 204

    response = curator_client.post(f"{FRUITS}/{child['id']}/history/{first['id']}/revert")

    assert response.status_code == 200, response.content
    body = response.json()
    assert [(r["kind"], r["fruit"], r["name"]) for r in body["relations"]] == [
        ("mother", None, "Cox Orange")
    ]
    assert len(body["not_restored"]) == 1 and "Cox Orange" in body["not_restored"][0]


def test_a_deleted_fruit_is_listed_and_restored_under_its_id_and_number_once(
    curator_client, anon_client
):
    fruit = create(curator_client, name="Topaz", catalog_number=42, names=[{"name": "Topas"}])
    pk = fruit["id"]
    assert curator_client.delete(f"{FRUITS}/{pk}").status_code == 204

    (deleted,) = curator_client.get("/api/v1/deleted-fruits").json()["results"]
    assert (deleted["id"], deleted["name"], deleted["catalog_number"], deleted["user"]) == (
        pk,
        "Topaz",
        42,
        "curator",
    )
    assert anon_client.get("/api/v1/deleted-fruits").status_code == 401

    restored = curator_client.post(f"/api/v1/deleted-fruits/{pk}/restore")

    assert restored.status_code == 201, restored.content
    body = restored.json()
    assert (body["id"], body["catalog_number"], [n["name"] for n in body["names"]]) == (
        pk,
        42,
        ["Topas"],
    )
    assert curator_client.get("/api/v1/deleted-fruits").json()["results"] == []
    assert curator_client.post(f"/api/v1/deleted-fruits/{pk}/restore").status_code == 404
    actions = [version["action"] for version in history(curator_client, pk)]
    assert actions == ["restored", "deleted", "created"]


def test_a_publications_history_shows_its_fields_and_citations(curator_client):
    created = curator_client.post(
        "/api/v1/publications", {"title": "Pomologie", "year": 1860}, format="json"
    )
    assert created.status_code == 201, created.content
    pk = created.json()["id"]
    curator_client.patch(f"/api/v1/publications/{pk}", {"year": 1861}, format="json")

    response = curator_client.get(f"/api/v1/publications/{pk}/history")

    assert response.status_code == 200, response.content
    changed, first = response.json()["results"]
    assert changed["changes"] == {"year": {"from": 1860, "to": 1861}}
    assert first["action"] == "created"


def test_the_imports_are_listed_for_curators(curator_client, anon_client):
    body = "catalog_number,name,type\n5,Ontario,apple\n"
    response = curator_client.post("/api/v1/imports/fruits", body, content_type="text/csv")
    assert response.status_code == 200, response.content

    (batch,) = curator_client.get("/api/v1/imports").json()["results"]
    assert (batch["user"], batch["created_count"], batch["changed_count"]) == ("curator", 1, 0)
    assert anon_client.get("/api/v1/imports").status_code == 401


def test_a_fruit_stored_before_the_history_is_restored_from_its_deletion(
    curator_client, fruit_factory
):
    fruit = fruit_factory(name="Topaz", synonyms=["Topas"], catalog_number=77)
    from catalog.models import FruitName

    Fruit.history.all().delete()  # as if stored before the history was installed
    FruitName.history.all().delete()
    assert curator_client.delete(f"{FRUITS}/{fruit.pk}").status_code == 204

    restored = curator_client.post(f"/api/v1/deleted-fruits/{fruit.pk}/restore")

    assert restored.status_code == 201, restored.content
    body = restored.json()
    assert (body["name"], body["catalog_number"], [n["name"] for n in body["names"]]) == (
        "Topaz",
        77,
        ["Topas"],
    )


def test_a_save_that_changes_nothing_adds_no_version(curator_client):
    fruit = create(curator_client, name="Topaz")
    assert (
        curator_client.patch(
            f"{FRUITS}/{fruit['id']}", {"name": "Topaz"}, format="json"
        ).status_code
        == 200
    )
    assert [v["action"] for v in history(curator_client, fruit["id"])] == ["created"]


def test_undoing_an_import_needs_the_right_to_delete_fruits(curator_client, db):
    from django.contrib.auth.models import Permission, User
    from rest_framework.test import APIClient

    body = "catalog_number,name,type\n5,Ontario,apple\n"
    assert (
        curator_client.post("/api/v1/imports/fruits", body, content_type="text/csv").status_code
        == 200
    )
    editor = User.objects.create_user("editor", password="editor-pass-123")
    editor.user_permissions.add(Permission.objects.get(codename="change_fruit"))
    client = APIClient()
    client.force_authenticate(editor)
    batch = curator_client.get("/api/v1/imports").json()["results"][0]["id"]

    assert client.post(f"/api/v1/imports/{batch}/undo").status_code == 403
    assert Fruit.objects.filter(name="Ontario").exists()
