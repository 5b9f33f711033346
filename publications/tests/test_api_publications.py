"""The publications API through HTTP: representation, validation, list parameters, budgets."""

import hashlib

import pytest
from django.contrib.auth.models import Permission, User

from core.testing.media import make_pdf_bytes
from publications.models import Publication, PublicationFruit, PublicationFruitImage

pytestmark = pytest.mark.django_db

PUBLICATIONS = "/api/v1/publications"
KEYS = {
    "id",
    "title",
    "authors",
    "year",
    "description",
    "has_cover",
    "cover_thumbnail_url",  # the 300 px thumbnail pages show
    "cover_url",
    "cover_width",
    "cover_height",
    "fruits",
    "created_at",
    "updated_at",
}


def create(client, **body):
    return client.post(PUBLICATIONS, body, format="json")


def titles(response) -> list[str]:
    return [p["title"] for p in response.json()["results"]]


def test_create_returns_201_with_location_and_the_publication(curator_client):
    response = create(
        curator_client, title="  Deutschlands Obstsorten ", authors="Müller, Bißmann", year=1905
    )
    assert response.status_code == 201
    body = response.json()
    assert set(body) == KEYS
    assert response["Location"] == f"http://testserver/api/v1/publications/{body['id']}"
    assert body["title"] == "Deutschlands Obstsorten"
    assert (body["authors"], body["year"], body["description"]) == ("Müller, Bißmann", 1905, "")
    assert (body["has_cover"], body["cover_url"], body["fruits"]) == (False, None, [])
    assert (body["cover_width"], body["cover_height"]) == (0, 0)
    assert body["created_at"].endswith("Z")


def test_only_the_title_is_required_and_optional_text_is_empty_not_null(curator_client):
    body = create(curator_client, title="Pomona").json()
    assert (body["authors"], body["description"], body["year"]) == ("", "", None)


@pytest.mark.parametrize("year", [1400, 2100, None])
def test_years_at_the_bounds_and_null_are_accepted(curator_client, year):
    assert create(curator_client, title="T", year=year).json()["year"] == year


def test_a_title_of_300_characters_is_accepted(curator_client):
    assert create(curator_client, title="x" * 300).status_code == 201


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({}, "title"),
        ({"title": "   "}, "title"),
        ({"title": None}, "title"),
        ({"title": "x" * 301}, "title"),
        ({"title": "T", "year": 1399}, "year"),
        ({"title": "T", "year": 2101}, "year"),
        ({"title": "T", "year": 10**30}, "year"),
        ({"title": "T", "year": "soon"}, "year"),
        ({"title": "T", "year": 1900.5}, "year"),
        ({"title": "T", "authors": None}, "authors"),
        ({"title": "T", "description": None}, "description"),
        ({"title": "T", "authors": ["a list"]}, "authors"),
        ({"title": "T\x00"}, "title"),
    ],
)
def test_invalid_publications_are_rejected_and_nothing_is_stored(curator_client, body, field):
    response = curator_client.post(PUBLICATIONS, body, format="json")
    assert response.status_code == 400
    assert field in response.json()
    assert not Publication.objects.exists()


def test_put_replaces_fields_and_patch_updates_one(curator_client, publication_factory):
    publication = publication_factory(title="Old", authors="A", year=1900)
    path = f"{PUBLICATIONS}/{publication.pk}"
    response = curator_client.put(path, {"title": "New", "year": None}, format="json")
    assert response.status_code == 200
    assert (response.json()["title"], response.json()["year"]) == ("New", None)
    response = curator_client.patch(path, {"authors": "Lucas"}, format="json")
    assert response.status_code == 200
    assert (response.json()["title"], response.json()["authors"]) == ("New", "Lucas")
    assert curator_client.get(PUBLICATIONS, {"search": "lucas"}).json()["count"] == 1
    assert curator_client.get(PUBLICATIONS, {"search": "old"}).json()["count"] == 0


def test_an_update_keeps_the_cover_and_links(
    curator_client, publication_factory, fruit_factory, link_fruit, png_bytes
):
    publication = publication_factory(cover_data=png_bytes)
    link_fruit(publication, fruit_factory())
    body = curator_client.patch(
        f"{PUBLICATIONS}/{publication.pk}", {"title": "Renamed"}, format="json"
    ).json()
    assert body["has_cover"] and len(body["fruits"]) == 1
    assert bytes(Publication.objects.get().cover_data) == png_bytes


def test_delete_removes_cover_links_pdfs_and_images_but_not_the_fruits(
    curator_client, publication_factory, fruit_factory, link_fruit, add_publication_image, png_bytes
):
    publication = publication_factory(cover_data=png_bytes)
    fruits = [fruit_factory(), fruit_factory()]
    for fruit in fruits:
        add_publication_image(link_fruit(publication, fruit, make_pdf_bytes()))
    other = publication_factory()
    add_publication_image(link_fruit(other, fruits[0]))
    assert curator_client.delete(f"{PUBLICATIONS}/{publication.pk}").status_code == 204
    assert curator_client.get(f"{PUBLICATIONS}/{publication.pk}").status_code == 404
    assert list(Publication.objects.all()) == [other]
    assert PublicationFruit.objects.get().publication == other
    assert PublicationFruitImage.objects.get().link.publication == other
    assert curator_client.get(f"/api/v1/fruits/{fruits[1].pk}").status_code == 200


def test_deleting_a_publication_reads_no_bytes(
    curator_client,
    publication_factory,
    fruit_factory,
    link_fruit,
    add_publication_image,
    png_bytes,
    reads_no_bytes,
):
    publication = publication_factory(cover_data=png_bytes)
    add_publication_image(link_fruit(publication, fruit_factory(), make_pdf_bytes()))
    with reads_no_bytes():
        assert curator_client.delete(f"{PUBLICATIONS}/{publication.pk}").status_code == 204
    assert not PublicationFruitImage.objects.exists()


def test_list_envelope_and_pagination(anon_client, publication_factory):
    for number in range(30):
        publication_factory(title=f"T{number:02}", year=1900)
    body = anon_client.get(PUBLICATIONS).json()
    assert (body["count"], len(body["results"]), body["previous"]) == (30, 24, None)
    assert body["next"] == "http://testserver/api/v1/publications?page=2"
    assert titles(anon_client.get(body["next"])) == [f"T{n}" for n in range(24, 30)]
    assert len(anon_client.get(PUBLICATIONS, {"page_size": 5}).json()["results"]) == 5
    assert anon_client.get(PUBLICATIONS, {"page": 3}).json() == {"detail": "Invalid page."}


def test_default_order_is_newest_year_first_unknown_last_then_title(
    anon_client, publication_factory
):
    publication_factory(title="b", year=1900)
    publication_factory(title="c", year=None)
    publication_factory(title="a", year=1900)
    publication_factory(title="d", year=2000)
    assert titles(anon_client.get(PUBLICATIONS)) == ["d", "a", "b", "c"]


@pytest.mark.parametrize(
    ("ordering", "expected"),
    [
        ("title", ["a", "b", "c", "d"]),
        ("-title", ["d", "c", "b", "a"]),
        ("year", ["b", "a", "d", "c"]),
        ("-year", ["d", "a", "b", "c"]),
        ("created_at", ["b", "c", "a", "d"]),
        ("-created_at", ["d", "a", "c", "b"]),
    ],
)
def test_ordering_by_each_field_keeps_unknown_years_last(
    anon_client, publication_factory, ordering, expected
):
    for title, year in [("b", 1800), ("c", None), ("a", 1850), ("d", 2000)]:
        publication_factory(title=title, year=year)
    assert titles(anon_client.get(PUBLICATIONS, {"ordering": ordering})) == expected


@pytest.mark.parametrize(
    "query", ["obstsorten", "OBSTSÖRTEN", "muller", "MÜLLER", "bißmann", "BISSMANN", "lucas"]
)
def test_search_is_case_and_accent_insensitive_over_title_and_authors(
    anon_client, publication_factory, query
):
    publication_factory(title="Deutschlands Obstsorten", authors="Müller, Bißmann, Lucas")
    publication_factory(title="Pomona Franconica", authors="Mayer")
    assert titles(anon_client.get(PUBLICATIONS, {"search": query})) == ["Deutschlands Obstsorten"]


def test_search_treats_like_wildcards_literally_and_blank_matches_all(
    anon_client, publication_factory
):
    publication_factory(title="Plain")
    assert anon_client.get(PUBLICATIONS, {"search": "%"}).json()["count"] == 0
    assert anon_client.get(PUBLICATIONS, {"search": "_"}).json()["count"] == 0
    assert anon_client.get(PUBLICATIONS, {"search": "  "}).json()["count"] == 1


def test_filter_by_fruit_and_by_year(anon_client, publication_factory, fruit_factory, link_fruit):
    apple, pear = fruit_factory(), fruit_factory()
    link_fruit(publication_factory(title="Apples", year=1900), apple)
    both = publication_factory(title="Both", year=1905)
    link_fruit(both, apple)
    link_fruit(both, pear)
    publication_factory(title="None", year=1905)
    assert titles(anon_client.get(PUBLICATIONS, {"fruit": apple.pk})) == ["Both", "Apples"]
    assert titles(anon_client.get(PUBLICATIONS, {"fruit": pear.pk})) == ["Both"]
    assert titles(anon_client.get(PUBLICATIONS, {"year": 1905})) == ["Both", "None"]
    assert titles(anon_client.get(PUBLICATIONS, {"fruit": pear.pk, "year": 1900})) == []
    assert anon_client.get(PUBLICATIONS, {"fruit": 99999}).json()["count"] == 0


@pytest.mark.parametrize(
    "params",
    [
        {"fruit": "x"},
        {"fruit": "0"},
        {"fruit": "99999999999999999999999"},
        {"year": "1399"},
        {"year": "soon"},
        {"ordering": "secret"},
        {"ordering": "search_text"},
    ],
)
def test_invalid_list_parameters_are_a_400(anon_client, params):
    response = anon_client.get(PUBLICATIONS, params)
    assert response.status_code == 400
    assert set(response.json()) == set(params)


NO_CITATION = {"pages": "", "plate": "", "name_in_source": "", "is_first_description": False}


def test_links_are_listed_with_description_and_image_count_in_catalog_order(
    anon_client, publication_factory, fruit_factory, link_fruit, add_publication_image
):
    publication = publication_factory()
    late = fruit_factory(name="Late", catalog_number=20)
    early = fruit_factory(name="Early", catalog_number=10, type="pear")
    link = link_fruit(publication, late, make_pdf_bytes())
    add_publication_image(link)
    add_publication_image(link)
    link_fruit(publication, early)
    body = anon_client.get(f"{PUBLICATIONS}/{publication.pk}").json()
    assert body["fruits"] == [
        {
            "fruit": {"id": early.pk, "catalog_number": 10, "name": "Early", "type": "pear"},
            **NO_CITATION,
            "has_description": False,
            "description_url": None,
            "image_count": 0,
        },
        {
            "fruit": {"id": late.pk, "catalog_number": 20, "name": "Late", "type": "apple"},
            **NO_CITATION,
            "has_description": True,
            "description_url": (
                f"http://testserver/api/v1/publications/{publication.pk}"
                f"/fruits/{late.pk}/description?v={link.description_sha256[:16]}"
            ),
            "image_count": 2,
        },
    ]


def seed(publication_factory, fruit_factory, link_fruit, add_publication_image, png, count):
    """`count` publications with a cover, three linked fruits with a PDF and two images each."""
    fruits = [fruit_factory() for _ in range(3)]
    pdf = make_pdf_bytes()
    for index in range(count):
        publication = publication_factory(year=1900 + index, cover_data=png)
        for fruit in fruits:
            link = link_fruit(publication, fruit, pdf)
            add_publication_image(link, png)
            add_publication_image(link, png)


@pytest.mark.parametrize("count", [1, 12])
def test_list_uses_constant_queries_and_never_selects_bytes(
    anon_client,
    publication_factory,
    fruit_factory,
    link_fruit,
    add_publication_image,
    png_bytes,
    reads_no_bytes,
    django_assert_max_num_queries,
    count,
):
    seed(publication_factory, fruit_factory, link_fruit, add_publication_image, png_bytes, count)
    # count, the page's ids, its rows, their links
    with reads_no_bytes(), django_assert_max_num_queries(4):
        body = anon_client.get(PUBLICATIONS).json()
    assert body["count"] == count
    first = body["results"][0]
    assert first["has_cover"] is True
    version = hashlib.sha256(png_bytes).hexdigest()[:16]
    assert first["cover_url"] == (
        f"http://testserver/api/v1/publications/{first['id']}/cover?v={version}"
    )
    assert (first["cover_width"], first["cover_height"]) == (120, 100)
    assert [link["image_count"] for link in first["fruits"]] == [2, 2, 2]
    assert all(link["has_description"] for link in first["fruits"])


def test_detail_uses_two_queries_and_never_selects_bytes(
    anon_client,
    publication_factory,
    fruit_factory,
    link_fruit,
    add_publication_image,
    png_bytes,
    reads_no_bytes,
    django_assert_max_num_queries,
):
    seed(publication_factory, fruit_factory, link_fruit, add_publication_image, png_bytes, 2)
    publication = Publication.objects.first()
    with reads_no_bytes(), django_assert_max_num_queries(2):
        body = anon_client.get(f"{PUBLICATIONS}/{publication.pk}").json()
    assert len(body["fruits"]) == 3


def test_trailing_slash_works_without_redirect(anon_client, publication_factory):
    publication = publication_factory()
    assert anon_client.get(f"{PUBLICATIONS}/").json()["count"] == 1
    assert anon_client.get(f"{PUBLICATIONS}/{publication.pk}/").json()["id"] == publication.pk


@pytest.mark.parametrize("publication_id", ["0", "99999999999999999999999999", "abc"])
def test_unknown_ids_are_a_json_404_for_every_method(curator_client, publication_id):
    path = f"{PUBLICATIONS}/{publication_id}"
    for response in [
        curator_client.get(path),
        curator_client.patch(path, {"title": "x"}, format="json"),
        curator_client.delete(path),
    ]:
        assert response.status_code == 404
        assert response.json() == {"detail": "Not found."}


def test_anonymous_writes_are_401_with_a_token_challenge(anon_client, publication_factory):
    publication = publication_factory()
    for response in [
        create(anon_client, title="T"),
        anon_client.patch(f"{PUBLICATIONS}/{publication.pk}", {"title": "x"}, format="json"),
        anon_client.delete(f"{PUBLICATIONS}/{publication.pk}"),
    ]:
        assert response.status_code == 401
        assert response["WWW-Authenticate"] == "Token"


def test_writes_without_the_model_permission_are_403_and_reads_are_public(
    reader_client, publication_factory
):
    publication = publication_factory()
    path = f"{PUBLICATIONS}/{publication.pk}"
    assert create(reader_client, title="T").status_code == 403
    assert reader_client.put(path, {"title": "x"}, format="json").status_code == 403
    assert reader_client.delete(path).status_code == 403
    assert reader_client.get(path).status_code == 200
    assert Publication.objects.get().title == publication.title


def test_each_write_needs_its_own_permission(publication_factory):
    from rest_framework.authtoken.models import Token
    from rest_framework.test import APIClient

    user = User.objects.create_user("editor")
    user.user_permissions.add(Permission.objects.get(codename="change_publication"))
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=user).key}")
    publication = publication_factory()
    path = f"{PUBLICATIONS}/{publication.pk}"
    assert client.patch(path, {"title": "Edited"}, format="json").status_code == 200
    assert client.delete(path).status_code == 403
    assert create(client, title="T").status_code == 403


@pytest.mark.parametrize("ordering", ["", ",", ",,,", "title,", ",-year"])
def test_empty_ordering_terms_are_ignored(anon_client, publication_factory, ordering):
    publication_factory(title="b", year=1900)
    publication_factory(title="a", year=2000)
    expected = ["a", "b"]
    assert titles(anon_client.get(PUBLICATIONS, {"ordering": ordering})) == expected


@pytest.mark.parametrize("field", ["title", "authors", "description"])
def test_text_fields_take_strings_not_numbers(curator_client, field):
    body = {"title": "Pomologische Monatshefte", field: 0}
    response = curator_client.post("/api/v1/publications", body, format="json")
    assert response.status_code == 400
    assert response.json() == {field: ["Not a valid string."]}
