"""Byte URLs that never go stale: every URL handed out carries the version of what it serves.

A URL with the current version is cached for good (`immutable`); the bare path, or a stale
version, is served the current bytes with `no-cache` and the ETag, so a cache revalidates.
"""

import hashlib
from urllib.parse import parse_qs, urlsplit

import pytest

from catalog.models import FruitImage
from catalog.tests.factories import FruitFactory
from core.testing.media import make_image_bytes, make_object_png, make_pdf_bytes
from core.testing.queries import reading_no_bytes
from publications.models import Publication, PublicationFruit, PublicationFruitImage
from publications.services import (
    publication_fruit_set_description,
    publication_link_fruit,
    publication_set_cover,
)
from publications.tests.factories import PublicationFactory

pytestmark = pytest.mark.django_db

IMMUTABLE = "public, max-age=31536000, immutable"


def version(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()[:16]


def version_in(url: str) -> str:
    """The `v` query parameter of a URL."""
    return parse_qs(urlsplit(url).query)["v"][0]


def bare(url: str) -> str:
    """The URL's path, without its version."""
    return urlsplit(url).path


@pytest.fixture
def catalog_with_bytes():
    """A fruit with an image, a publication with a cover, a PDF and an image of the fruit."""
    fruit = FruitFactory()
    image = FruitImage.objects.create(fruit=fruit, data=make_object_png(size=(120, 100)))
    publication = PublicationFactory(cover_data=make_image_bytes("JPEG", size=(90, 120)))
    link, _ = publication_link_fruit(publication=publication, fruit=fruit)
    publication_fruit_set_description(link=link, data=make_pdf_bytes())
    plate = PublicationFruitImage.objects.create(
        link=link, data=make_object_png(size=(140, 100), box=(10, 10, 99, 69))
    )
    return fruit, image, publication, plate


def byte_urls_in_the_api(client, fruit, publication) -> list[str]:
    """Every byte URL the API's bodies hand out for the fixture's rows."""
    detail = client.get(f"/api/v1/fruits/{fruit.pk}").json()
    listed = client.get("/api/v1/fruits").json()["results"][0]
    pub = client.get(f"/api/v1/publications/{publication.pk}").json()
    plates = client.get(f"/api/v1/publications/{publication.pk}/fruit-images").json()
    links = client.get(f"/api/v1/publications/{publication.pk}/fruits").json()
    return [
        detail["thumbnail_url"],
        listed["thumbnail_url"],
        *[image[key] for image in detail["images"] for key in ("url", "thumbnail_url")],
        pub["cover_url"],
        pub["fruits"][0]["description_url"],
        links[0]["description_url"],
        *[image[key] for image in plates for key in ("url", "thumbnail_url")],
    ]


def test_every_byte_url_in_the_api_carries_the_version_of_what_it_serves(
    anon_client, catalog_with_bytes
):
    fruit, _, publication, _ = catalog_with_bytes
    urls = byte_urls_in_the_api(anon_client, fruit, publication)
    assert len(urls) == 9
    for url in urls:
        response = anon_client.get(url)
        assert response.status_code == 200, url
        assert version_in(url) == version(response.content), url
        assert response["Cache-Control"] == IMMUTABLE, url


def test_the_model_methods_the_pages_call_are_versioned_and_the_identities_are_not(
    catalog_with_bytes,
):
    _, image, publication, plate = catalog_with_bytes
    link = PublicationFruit.objects.get()
    base = f"/api/v1/fruits/{image.fruit_id}/images/{image.pk}"
    assert image.get_absolute_url() == base  # the resource (`Location`), whatever its bytes
    assert image.get_data_url() == f"{base}?v={image.sha256[:16]}"
    assert image.get_thumbnail_url() == f"{base}/thumbnail?v={image.thumbnail_sha256[:16]}"
    assert publication.get_cover_url() == (
        f"/api/v1/publications/{publication.pk}/cover?v={publication.cover_sha256[:16]}"
    )
    assert link.get_description_url() == (
        f"/api/v1/publications/{publication.pk}/fruits/{image.fruit_id}/description"
        f"?v={link.description_sha256[:16]}"
    )
    assert link.get_absolute_url() == (
        f"/api/v1/publications/{publication.pk}/fruits/{image.fruit_id}"
    )
    assert plate.get_data_url().endswith(f"/fruit-images/{plate.pk}?v={plate.sha256[:16]}")


def test_without_a_cover_or_pdf_their_urls_are_none(db):
    publication = PublicationFactory()
    link, _ = publication_link_fruit(publication=publication, fruit=FruitFactory())
    assert publication.get_cover_url() is None
    assert link.get_description_url() is None


def byte_paths(catalog_with_bytes):
    """(versioned path, bytes served) of each kind of byte endpoint."""
    _, image, publication, plate = catalog_with_bytes
    link = PublicationFruit.objects.get()
    publication = Publication.objects.get(pk=publication.pk)
    return [
        (image.get_data_url(), bytes(image.data)),
        (image.get_thumbnail_url(), bytes(image.thumbnail_data)),
        (publication.get_cover_url(), bytes(publication.cover_data)),
        (link.get_description_url(), bytes(link.description_data)),
        (plate.get_data_url(), bytes(plate.data)),
        (plate.get_thumbnail_url(), bytes(plate.thumbnail_data)),
    ]


def test_the_current_version_is_cached_for_good_on_200_304_and_head(
    anon_client, catalog_with_bytes
):
    for path, data in byte_paths(catalog_with_bytes):
        response = anon_client.get(path)
        assert (response.status_code, response.content) == (200, data), path
        assert response["Cache-Control"] == IMMUTABLE, path
        etag = response["ETag"]
        for method, headers in (("get", {"HTTP_IF_NONE_MATCH": etag}), ("head", {})):
            with reading_no_bytes() as captured:
                again = getattr(anon_client, method)(path, **headers)
            assert again.status_code == (304 if headers else 200), (method, path)
            assert again["Cache-Control"] == IMMUTABLE, (method, path)
            assert len(captured.captured_queries) == 1, (method, path)


def test_without_a_version_the_bytes_are_revalidated_with_a_304_that_reads_no_bytes(
    anon_client, catalog_with_bytes
):
    for path, data in byte_paths(catalog_with_bytes):
        response = anon_client.get(bare(path))
        assert response.content == data, path
        assert response["Cache-Control"] == "no-cache", path
        with reading_no_bytes() as captured:
            revalidated = anon_client.get(bare(path), HTTP_IF_NONE_MATCH=response["ETag"])
        assert revalidated.status_code == 304, path
        assert revalidated["Cache-Control"] == "no-cache", path
        assert revalidated["ETag"] == response["ETag"]
        assert len(captured.captured_queries) == 1, path  # the one indexed metadata query


@pytest.mark.parametrize("stale", ["0123456789abcdef", "", "not-a-version", "X" * 500])
def test_a_stale_or_unknown_version_gets_the_current_bytes_never_cached_nor_redirected(
    anon_client, catalog_with_bytes, stale
):
    for path, data in byte_paths(catalog_with_bytes):
        response = anon_client.get(f"{bare(path)}?v={stale}")
        assert response.status_code == 200, path
        assert response.content == data, path
        assert response["Cache-Control"] == "no-cache", path
        assert response["ETag"] == f'"{hashlib.sha256(data).hexdigest()}"'


def test_replaced_bytes_get_a_new_url_and_the_old_one_serves_them_uncached(
    anon_client, curator_client, catalog_with_bytes
):
    fruit, image, publication, _ = catalog_with_bytes
    old_image, old_cover = image.get_thumbnail_url(), publication.get_cover_url()
    cached = anon_client.get(old_image).content
    replacement = make_object_png(size=(90, 70), color=(0, 0, 200))
    image.store(replacement)
    image.save()
    gif = make_image_bytes("GIF", size=(40, 50))
    publication_set_cover(publication=publication, data=gif)

    body = curator_client.get(f"/api/v1/fruits/{fruit.pk}").json()
    new_image = body["thumbnail_url"]
    assert bare(new_image) == bare(old_image) and new_image != f"http://testserver{old_image}"
    new = anon_client.get(new_image)
    assert new.content != cached
    assert new["Cache-Control"] == IMMUTABLE
    old = anon_client.get(old_image)
    assert (old.content, old["Cache-Control"]) == (new.content, "no-cache")

    cover_url = curator_client.get(f"/api/v1/publications/{publication.pk}").json()["cover_url"]
    assert version_in(cover_url) == version(gif) != version_in(old_cover)
    stale = anon_client.get(old_cover)
    assert (stale.content, stale["Cache-Control"]) == (gif, "no-cache")


def test_a_thumbnail_url_follows_the_fallback_to_the_image_and_back(
    anon_client, staff_client, catalog_with_bytes
):
    fruit, image, _, _ = catalog_with_bytes
    FruitImage.objects.filter(pk=image.pk).update(
        thumbnail_data=None, thumbnail_sha256="", thumbnail_width=0, thumbnail_height=0
    )
    url = anon_client.get(f"/api/v1/fruits/{fruit.pk}").json()["thumbnail_url"]
    assert version_in(url) == image.sha256[:16]  # the endpoint serves the image itself
    assert anon_client.get(url)["Cache-Control"] == IMMUTABLE

    assert staff_client.post("/api/v1/admin/backfill-thumbnails").status_code == 200
    made = anon_client.get(f"/api/v1/fruits/{fruit.pk}").json()["thumbnail_url"]
    thumbnail = anon_client.get(made)
    assert version_in(made) == version(thumbnail.content) != image.sha256[:16]
    assert thumbnail["Content-Type"] == "image/jpeg"
    assert anon_client.get(url)["Cache-Control"] == "no-cache"  # now a stale version


def test_every_byte_path_serves_its_versions_and_revalidates_its_bare_path(
    anon_client, catalog_with_bytes
):
    for path, data in byte_paths(catalog_with_bytes):
        response = anon_client.get(path)
        assert response.content == data, path
        assert response["Cache-Control"] == IMMUTABLE, path
        revalidated = anon_client.get(bare(path), HTTP_IF_NONE_MATCH=response["ETag"])
        assert (revalidated.status_code, revalidated["Cache-Control"]) == (304, "no-cache")
        head = anon_client.head(path)
        assert (head.status_code, head["Cache-Control"]) == (200, IMMUTABLE)
        stale = anon_client.get(f"{bare(path)}?v=0000000000000000")
        assert (stale.content, stale["Cache-Control"]) == (data, "no-cache")


def test_the_schema_documents_the_version_and_both_caching_behaviours(anon_client):
    schema = anon_client.get(
        "/api/v1/schema", HTTP_ACCEPT="application/vnd.oai.openapi+json"
    ).json()
    byte_reads = [
        "/api/v1/fruits/{id}/images/{imageId}",
        "/api/v1/fruits/{id}/images/{imageId}/thumbnail",
        "/api/v1/publications/{id}/cover",
        "/api/v1/publications/{id}/fruits/{fruitId}/description",
        "/api/v1/publications/{id}/fruit-images/{imgId}",
        "/api/v1/publications/{id}/fruit-images/{imgId}/thumbnail",
    ]
    for path in byte_reads:
        operation = schema["paths"][path]["get"]
        (parameter,) = [p for p in operation["parameters"] if p["name"] == "v"]
        assert parameter["in"] == "query" and not parameter.get("required", False), path
        assert IMMUTABLE in operation["description"] and "no-cache" in operation["description"]
        assert "Cache-Control" in operation["responses"]["200"]["headers"], path
        assert "Cache-Control" in operation["responses"]["304"]["headers"], path
    fruit = schema["components"]["schemas"]["Fruit"]["properties"]
    assert (
        "?v=" in fruit["thumbnail_url"]["description"]
        or "`?v=`" in (fruit["thumbnail_url"]["description"])
    )
