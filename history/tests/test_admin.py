"""The admin's History pages, "Revert to this version" and "Recover deleted fruits", driven
through the pages with Django's test client."""

import re
from datetime import timedelta
from html import unescape

import pytest
from django.contrib import admin
from django.contrib.auth.models import Permission, User
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from catalog.models import Fruit, FruitImage, ImportBatch
from core.testing.admin_pages import png_upload
from history.purging import purge_deleted
from history.versions import fruit_versions
from publications.models import Publication

pytestmark = pytest.mark.django_db

FRUITS = "/api/v1/fruits"
CHANGELIST = reverse("admin:catalog_fruit_changelist")
DELETED = reverse("admin:catalog_fruit_deleted")


@pytest.fixture
def desk(curator):
    """A curator's browser on the admin."""
    curator.is_staff = True
    curator.save()
    client = Client()
    client.force_login(curator)
    return client


def create(api, **fields):
    response = api.post(FRUITS, {"type": "apple", **fields}, format="json")
    assert response.status_code == 201, response.content
    return response.json()["id"]


def text(response) -> str:
    """The page's text, tags dropped, spaces collapsed."""
    return text_of(response.content.decode())


def text_of(html: str) -> str:
    return re.sub(r"\s+", " ", unescape(re.sub(r"<[^>]+>", " ", html)))


def history_url(pk):
    return reverse("admin:catalog_fruit_history", args=[pk])


def revert_url(pk, version_id):
    return reverse("admin:catalog_fruit_revert", args=[pk, version_id])


def messages_of(response) -> list[str]:
    return [str(message) for message in response.context["messages"]]


def test_a_fruits_history_lists_its_versions_newest_first_with_each_change_old_to_new(
    desk, curator_client
):
    pk = create(curator_client, name="Boskop", names=[{"name": "Renette de Montfort"}])
    curator_client.patch(
        f"{FRUITS}/{pk}",
        {"name": "Boskoop", "names": [{"name": "Belle de Boskoop", "language": "fr"}]},
        format="json",
    )

    response = desk.get(history_url(pk))

    assert response.status_code == 200
    page = response.content.decode()
    assert "<del>" in page and "<ins>" in page
    body = text(response)
    assert body.index(": Changed") < body.index(": Created")  # newest first
    assert "By curator, through the API." in body
    assert "Name Old value: Boskop New value: Boskoop" in body
    assert "Removed: Renette de Montfort (Synonym)" in body
    assert "Added: Belle de Boskoop (Synonym, fr)" in body
    # Each version but the newest can be gone back to.
    created = fruit_versions(pk)[0]
    assert page.count("Revert to this version") == 1
    assert revert_url(pk, created.id) in page


def test_a_change_an_import_made_names_the_import(desk, curator_client):
    body = "catalog_number,name,type\n5,Ontario,apple\n"
    response = curator_client.post("/api/v1/imports/fruits", body, content_type="text/csv")
    assert response.status_code == 200, response.content
    fruit = Fruit.objects.get(catalog_number=5)

    page = desk.get(history_url(fruit.pk)).content.decode()

    batch = fruit_versions(fruit.pk)[0].batch
    assert f"By curator, through import {batch}" in text_of(page)
    if admin.site.is_registered(ImportBatch):  # the import's page, where it can be undone
        assert reverse("admin:catalog_importbatch_change", args=[batch]) in page


def test_a_long_history_is_paged(desk, curator_client):
    pk = create(curator_client, name="Topaz", catalog_number=1)
    for number in range(2, 53):
        curator_client.patch(f"{FRUITS}/{pk}", {"catalog_number": number}, format="json")

    first, second = desk.get(history_url(pk)), desk.get(history_url(pk) + "?p=2")

    assert "52 versions" in text(first)
    assert first.content.decode().count('class="module history-version"') == 50
    assert second.content.decode().count('class="module history-version"') == 2
    assert ": Created" in text(second) and ": Created" not in text(first)


def test_a_publications_history_shows_its_fields_and_citations(desk, curator_client):
    pk = curator_client.post(
        "/api/v1/publications", {"title": "Pomologie", "year": 1860}, format="json"
    ).json()["id"]
    fruit = create(curator_client, name="Gravensteiner")
    curator_client.patch(f"/api/v1/publications/{pk}", {"year": 1861}, format="json")
    linked = curator_client.put(
        f"/api/v1/publications/{pk}/fruits/{fruit}", {"pages": "12"}, format="json"
    )
    assert linked.status_code == 201, linked.content

    response = desk.get(reverse("admin:publications_publication_history", args=[pk]))

    assert response.status_code == 200
    body = text(response)
    assert "Year Old value: 1860 New value: 1861" in body
    assert f"Added: Gravensteiner (fruit {fruit}), pp. 12" in body
    assert "Revert to this version" not in body  # publications are not reverted here


def test_the_revert_preview_shows_what_would_change_and_changes_nothing(desk, curator_client):
    pk = create(curator_client, name="Boskop", names=[{"name": "Renette de Montfort"}])
    curator_client.patch(f"{FRUITS}/{pk}", {"name": "Boskoop", "names": []}, format="json")
    created = fruit_versions(pk)[0]

    response = desk.get(revert_url(pk, created.id))

    assert response.status_code == 200
    body = text(response)
    assert "Field Now After the revert" in body
    assert "Name Old value: Boskoop New value: Boskop" in body
    assert "Added: Renette de Montfort (Synonym)" in body
    assert "images and card image stay as they are" in body
    assert Fruit.objects.get(pk=pk).name == "Boskoop"
    assert len(fruit_versions(pk)) == 2


def test_posting_the_revert_reverts_and_records_a_reverted_version(desk, curator_client):
    pk = create(curator_client, name="Boskop", names=[{"name": "Renette de Montfort"}])
    curator_client.patch(f"{FRUITS}/{pk}", {"name": "Boskoop", "names": []}, format="json")
    created = fruit_versions(pk)[0]

    response = desk.post(revert_url(pk, created.id), follow=True)

    assert response.redirect_chain[-1][0] == reverse("admin:catalog_fruit_change", args=[pk])
    assert "“1 Boskop” was reverted to the chosen version." in messages_of(response)
    fruit = Fruit.objects.get(pk=pk)
    assert (fruit.name, list(fruit.names.values_list("name", flat=True))) == (
        "Boskop",
        ["Renette de Montfort"],
    )
    latest = fruit_versions(pk)[-1]
    assert (latest.action, latest.via, latest.user) == ("reverted", "admin", "curator")
    assert ": Reverted" in text(desk.get(history_url(pk)))


def test_a_revert_to_a_number_another_fruit_holds_is_refused_with_an_error(desk, curator_client):
    pk = create(curator_client, name="Topaz", catalog_number=10)
    curator_client.patch(f"{FRUITS}/{pk}", {"catalog_number": 11}, format="json")
    other = create(curator_client, name="Rubinola", catalog_number=10)
    first = fruit_versions(pk)[0]

    preview = text(desk.get(revert_url(pk, first.id)))
    response = desk.post(revert_url(pk, first.id))

    assert f"This revert would be refused: catalog number 10 is fruit {other}'s now" in preview
    assert response.status_code == 409
    assert any(
        message.startswith(f"Refused, nothing changed: catalog number 10 is fruit {other}'s")
        for message in messages_of(response)
    )
    assert Fruit.objects.get(pk=pk).catalog_number == 11
    assert fruit_versions(pk)[-1].action == "changed"


def test_an_unknown_version_or_fruit_is_a_404(desk, curator_client):
    pk = create(curator_client, name="Topaz")
    unknown = "00000000-0000-0000-0000-000000000000"
    assert desk.get(revert_url(pk, unknown)).status_code == 404
    assert desk.post(revert_url(pk, unknown)).status_code == 404
    assert desk.get(history_url(999999)).status_code == 404


def test_deleted_fruits_are_listed_previewed_and_recovered(desk, curator_client):
    pk = create(curator_client, name="Topaz", catalog_number=42, names=[{"name": "Topas"}])
    create(curator_client, name="Elstar")
    assert curator_client.delete(f"{FRUITS}/{pk}").status_code == 204
    recover = reverse("admin:catalog_fruit_recover", args=[pk])

    changelist = desk.get(CHANGELIST).content.decode()
    listed = desk.get(DELETED)
    preview = desk.get(recover)

    assert f'href="{DELETED}"' in changelist and "Recover deleted fruits" in changelist
    body = text(listed)
    assert "Topaz 42" in body and "Elstar" not in body and "1 deleted fruit" in body
    assert f'href="{recover}"' in listed.content.decode()
    assert preview.status_code == 200
    assert "Other names Topas (Synonym)" in text(preview)
    assert "Catalog number 42" in text(preview)
    assert not Fruit.objects.filter(pk=pk).exists()

    response = desk.post(recover, follow=True)

    assert response.redirect_chain[-1][0] == reverse("admin:catalog_fruit_change", args=[pk])
    assert "“42 Topaz” was recovered." in messages_of(response)
    fruit = Fruit.objects.get(pk=pk)
    assert (fruit.catalog_number, list(fruit.names.values_list("name", flat=True))) == (
        42,
        ["Topas"],
    )
    assert fruit_versions(pk)[-1].action == "restored"
    assert "No deleted fruit is waiting" in text(desk.get(DELETED))
    again = desk.post(recover, follow=True)
    assert any("not a deleted fruit" in message for message in messages_of(again))
    assert desk.get(recover).status_code == 404


def test_a_deleted_fruits_history_is_shown_with_a_way_back(desk, curator_client):
    pk = create(curator_client, name="Topaz")
    curator_client.delete(f"{FRUITS}/{pk}")

    response = desk.get(history_url(pk))

    assert response.status_code == 200
    body = text(response)
    assert "History: Topaz (deleted)" in body and ": Deleted" in body
    assert reverse("admin:catalog_fruit_recover", args=[pk]) in response.content.decode()
    assert "Revert to this version" not in body


def test_a_recovery_refused_for_a_number_held_says_so(desk, curator_client):
    pk = create(curator_client, name="Topaz", catalog_number=42)
    curator_client.delete(f"{FRUITS}/{pk}")
    other = create(curator_client, name="Rubinola", catalog_number=42)

    response = desk.post(reverse("admin:catalog_fruit_recover", args=[pk]))

    assert response.status_code == 409
    assert any(
        f"catalog number 42 is fruit {other}'s now" in message for message in messages_of(response)
    )
    assert not Fruit.objects.filter(pk=pk).exists()


def test_without_change_fruit_the_pages_are_forbidden(client, curator_client):
    pk = create(curator_client, name="Topaz", catalog_number=10)
    curator_client.patch(f"{FRUITS}/{pk}", {"catalog_number": 11}, format="json")
    gone = create(curator_client, name="Elstar")
    curator_client.delete(f"{FRUITS}/{gone}")
    first = fruit_versions(pk)[0]
    viewer = User.objects.create_user("viewer", password="viewer-pass-123", is_staff=True)
    viewer.user_permissions.add(
        Permission.objects.get(codename="view_fruit"),
        Permission.objects.get(codename="view_publication"),
    )
    client.force_login(viewer)
    publication = Publication.objects.create(title="Pomologie")

    for url in (
        history_url(pk),
        revert_url(pk, first.id),
        DELETED,
        reverse("admin:catalog_fruit_recover", args=[gone]),
        reverse("admin:publications_publication_history", args=[publication.pk]),
    ):
        assert client.get(url).status_code == 403, url
    assert client.post(revert_url(pk, first.id)).status_code == 403
    assert client.post(reverse("admin:catalog_fruit_recover", args=[gone])).status_code == 403
    assert Fruit.objects.get(pk=pk).catalog_number == 11
    assert not Fruit.objects.filter(pk=gone).exists()
    changelist = client.get(CHANGELIST)
    assert changelist.status_code == 200
    assert "Recover deleted fruits" not in changelist.content.decode()


def test_a_purged_fruit_is_no_longer_offered(desk, curator_client):
    pk = create(curator_client, name="Topaz")
    curator_client.delete(f"{FRUITS}/{pk}")
    purge_deleted(before=timezone.now() + timedelta(seconds=1))
    recover = reverse("admin:catalog_fruit_recover", args=[pk])

    assert "No deleted fruit is waiting" in text(desk.get(DELETED))
    assert desk.get(recover).status_code == 404
    assert recover not in desk.get(history_url(pk)).content.decode()
    assert any("not a deleted fruit" in m for m in messages_of(desk.post(recover, follow=True)))


def test_a_recovered_fruit_has_its_images_back(desk, curator_client, png_bytes):
    pk = create(curator_client, name="Topaz")
    uploaded = curator_client.post(f"{FRUITS}/{pk}/images", {"image": png_upload(png_bytes)})
    assert uploaded.status_code == 201, uploaded.content
    curator_client.delete(f"{FRUITS}/{pk}")
    recover = reverse("admin:catalog_fruit_recover", args=[pk])

    assert "Images image " in text(desk.get(recover))
    desk.post(recover)

    assert FruitImage.objects.get(fruit_id=pk).data == png_bytes


def test_a_deleted_publications_history_is_headed_by_its_title(desk, curator_client):
    pk = curator_client.post(
        "/api/v1/publications", {"title": "Pomologie", "year": 1860}, format="json"
    ).json()["id"]
    assert curator_client.delete(f"/api/v1/publications/{pk}").status_code == 204

    response = desk.get(reverse("admin:publications_publication_history", args=[pk]))

    assert response.status_code == 200
    assert "History: Pomologie (deleted)" in text(response)


def test_a_revert_that_would_make_a_parentage_loop_is_refused_with_an_error(desk, curator_client):
    mother = create(curator_client, name="Cox Orange")
    child = create(
        curator_client, name="Alkmene", relations=[{"kind": "mother", "fruit_id": mother}]
    )
    with_mother = fruit_versions(child)[-1]
    curator_client.patch(f"{FRUITS}/{child}", {"relations": []}, format="json")
    curator_client.patch(
        f"{FRUITS}/{mother}", {"relations": [{"kind": "mother", "fruit_id": child}]}, format="json"
    )

    response = desk.post(revert_url(child, with_mother.id))

    assert response.status_code == 409
    assert any(message.startswith("Refused, nothing changed:") for message in messages_of(response))
    assert fruit_versions(child)[-1].action == "changed"
