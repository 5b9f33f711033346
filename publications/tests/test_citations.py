"""Citations: where and under which name a publication describes a fruit, through the API."""

import pytest

from publications.models import PublicationFruit

pytestmark = pytest.mark.django_db

FRUITS = "/api/v1/fruits"


def link_path(publication, fruit) -> str:
    return f"/api/v1/publications/{publication.pk}/fruits/{fruit.pk}"


def citation_of(body: dict) -> dict:
    return {key: body[key] for key in ("pages", "plate", "name_in_source", "is_first_description")}


def test_put_links_with_a_citation_and_fields_not_sent_keep_their_value(
    curator_client, publication_factory, fruit_factory
):
    publication, fruit = publication_factory(), fruit_factory(name="Gravensteiner")
    created = curator_client.put(
        link_path(publication, fruit),
        {"pages": " 112\u2013114 ", "plate": "23", "is_first_description": True},
        format="json",
    )
    assert created.status_code == 201
    assert citation_of(created.json()) == {
        "pages": "112\u2013114",
        "plate": "23",
        "name_in_source": "",
        "is_first_description": True,
    }
    again = curator_client.put(
        link_path(publication, fruit), {"name_in_source": "Gravensteiner Apfel"}, format="json"
    )
    assert again.status_code == 200
    assert citation_of(again.json()) == {
        "pages": "112\u2013114",
        "plate": "23",
        "name_in_source": "Gravensteiner Apfel",
        "is_first_description": True,
    }
    empty = curator_client.put(link_path(publication, fruit))  # no body: changes nothing
    assert empty.status_code == 200 and empty.json() == again.json()


def test_patch_changes_a_citation_and_answers_404_when_not_linked(
    curator_client, publication_factory, fruit_factory, link_fruit
):
    publication, fruit, other = publication_factory(), fruit_factory(), fruit_factory()
    link_fruit(publication, fruit)
    response = curator_client.patch(link_path(publication, fruit), {"plate": "IV"}, format="json")
    assert response.status_code == 200
    assert citation_of(response.json())["plate"] == "IV"
    listed = curator_client.get(f"/api/v1/publications/{publication.pk}").json()["fruits"]
    assert listed[0]["plate"] == "IV"
    missing = curator_client.patch(link_path(publication, other), {"plate": "V"}, format="json")
    assert missing.status_code == 404
    assert not PublicationFruit.objects.filter(fruit=other).exists()


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"pages": "x" * 51}, "pages"),
        ({"plate": "x" * 51}, "plate"),
        ({"name_in_source": "x" * 201}, "name_in_source"),
        ({"name_in_source": None}, "name_in_source"),
        ({"pages": 112}, "pages"),
        ({"is_first_description": "perhaps"}, "is_first_description"),
    ],
)
def test_invalid_citations_are_a_400_and_store_nothing(
    curator_client, publication_factory, fruit_factory, body, field
):
    publication, fruit = publication_factory(), fruit_factory()
    response = curator_client.put(link_path(publication, fruit), body, format="json")
    assert response.status_code == 400
    assert field in response.json()
    assert not PublicationFruit.objects.exists()


def test_a_body_that_is_not_an_object_is_a_400(curator_client, publication_factory, fruit_factory):
    publication, fruit = publication_factory(), fruit_factory()
    response = curator_client.put(link_path(publication, fruit), ["pages"], format="json")
    assert response.status_code == 400
    assert not PublicationFruit.objects.exists()


def test_the_fruit_detail_lists_citations_oldest_first_and_the_list_does_not(
    curator_client, anon_client, publication_factory, fruit_factory
):
    fruit = fruit_factory(name="Gravensteiner")
    undated = publication_factory(title="Aaa, undated", year=None)
    newer = publication_factory(title="Obstsorten", year=1905, authors="Müller")
    older = publication_factory(title="Pomona", year=1669)
    for publication, pages in ((undated, ""), (newer, "112"), (older, "7")):
        curator_client.put(link_path(publication, fruit), {"pages": pages}, format="json")

    detail = anon_client.get(f"{FRUITS}/{fruit.pk}").json()
    assert [(c["publication"]["title"], c["pages"]) for c in detail["citations"]] == [
        ("Pomona", "7"),
        ("Obstsorten", "112"),
        ("Aaa, undated", ""),
    ]
    assert detail["citations"][1]["publication"] == {
        "id": newer.pk,
        "title": "Obstsorten",
        "authors": "Müller",
        "year": 1905,
    }
    assert "citations" not in anon_client.get(FRUITS).json()["results"][0]
    updated = curator_client.patch(f"{FRUITS}/{fruit.pk}", {"name": "Gravensteiner"}, format="json")
    assert len(updated.json()["citations"]) == 3


def test_the_fruit_detail_reads_its_citations_in_one_query(
    anon_client, publication_factory, fruit_factory, link_fruit, django_assert_max_num_queries
):
    fruit = fruit_factory()
    link_fruit(publication_factory(), fruit)
    anon_client.get(f"{FRUITS}/{fruit.pk}")  # the connection's one-time feature checks
    with django_assert_max_num_queries(5) as few:
        anon_client.get(f"{FRUITS}/{fruit.pk}")
    for _ in range(5):
        link_fruit(publication_factory(), fruit)
    with django_assert_max_num_queries(len(few.captured_queries)):
        assert len(anon_client.get(f"{FRUITS}/{fruit.pk}").json()["citations"]) == 6


def found(client, search: str) -> list[tuple[str, str | None]]:
    body = client.get(FRUITS, {"search": search}).json()
    return [(fruit["name"], fruit["matched_name"]) for fruit in body["results"]]


def test_search_finds_a_fruit_by_the_name_its_source_uses_until_that_changes(
    curator_client, publication_factory, fruit_factory
):
    publication = publication_factory()
    fruit = fruit_factory(name="Gravensteiner")
    fruit_factory(name="Boskoop")
    path = link_path(publication, fruit)
    curator_client.put(path, {"name_in_source": "Blumen-Calvill"}, format="json")
    assert found(curator_client, "blumen calvill") == [("Gravensteiner", "Blumen-Calvill")]
    assert found(curator_client, "Blumencalvil") == [("Gravensteiner", "Blumen-Calvill")]

    curator_client.patch(path, {"name_in_source": "Ernteapfel"}, format="json")
    assert found(curator_client, "blumen calvill") == []
    assert found(curator_client, "ernteapfel") == [("Gravensteiner", "Ernteapfel")]

    curator_client.delete(path)
    assert found(curator_client, "ernteapfel") == []
    curator_client.put(path, {"name_in_source": "Ernteapfel"}, format="json")
    curator_client.delete(f"/api/v1/publications/{publication.pk}")
    assert found(curator_client, "ernteapfel") == []
    # Renaming the fruit keeps the names its sources use (the catalog asks for them).
    other = publication_factory()
    curator_client.put(link_path(other, fruit), {"name_in_source": "Ernteapfel"}, format="json")
    curator_client.patch(f"{FRUITS}/{fruit.pk}", {"name": "Gravensteiner Rot"}, format="json")
    assert found(curator_client, "ernteapfel") == [("Gravensteiner Rot", "Ernteapfel")]


def test_sending_citation_fields_needs_the_change_permission(
    db, publication_factory, fruit_factory
):
    from django.contrib.auth.models import Permission, User
    from rest_framework.test import APIClient

    user = User.objects.create_user("linker", password="linker-pass-123", is_staff=True)
    user.user_permissions.set(
        Permission.objects.filter(codename__in=["change_publication", "add_publicationfruit"])
    )
    client = APIClient()
    client.force_authenticate(user)
    publication, fruit = publication_factory(), fruit_factory()
    denied = client.put(link_path(publication, fruit), {"plate": "1"}, format="json")
    assert denied.status_code == 403
    assert not PublicationFruit.objects.exists()
    assert client.put(link_path(publication, fruit)).status_code == 201
