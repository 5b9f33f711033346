"""A publication's images of its linked fruits: upload, listing, bytes, thumbnails."""

import hashlib
import io

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from PIL import Image

from core.testing.media import make_image_bytes, make_object_png, make_pdf_bytes
from publications.models import PublicationFruitImage

pytestmark = pytest.mark.django_db

KEYS = {
    "id",
    "fruit_id",
    "url",
    "thumbnail_url",
    "content_type",
    "size",
    "width",
    "height",
    "has_thumbnail",
    "thumbnail_width",
    "thumbnail_height",
    "alt_text",
    "role",
    "creator",
    "source",
    "license",
    "license_url",
    "created_at",
}


def images_path(publication, image=None) -> str:
    path = f"/api/v1/publications/{publication.pk}/fruit-images"
    return path if image is None else f"{path}/{image.pk}"


def upload(client, publication, fruit_id, data, name="plate.png"):
    body = {"image": SimpleUploadedFile(name, data, content_type="application/octet-stream")}
    if fruit_id is not None:
        body["fruit"] = fruit_id
    return client.post(images_path(publication), body, format="multipart")


@pytest.fixture
def publication(publication_factory):
    return publication_factory()


@pytest.fixture
def fruit(publication, fruit_factory, link_fruit):
    """A fruit linked to `publication`."""
    linked = fruit_factory()
    link_fruit(publication, linked)
    return linked


def test_upload_answers_201_with_the_image_info_and_serves_the_same_bytes(
    curator_client, anon_client, publication, fruit
):
    png = make_object_png()
    response = upload(curator_client, publication, fruit.pk, png)
    assert response.status_code == 201
    body = response.json()
    assert set(body) == KEYS
    url = f"http://testserver/api/v1/publications/{publication.pk}/fruit-images/{body['id']}"
    stored = PublicationFruitImage.objects.get()
    assert response["Location"] == url  # the resource, unversioned
    assert body["url"] == f"{url}?v={hashlib.sha256(png).hexdigest()[:16]}"
    assert body["thumbnail_url"] == f"{url}/thumbnail?v={stored.thumbnail_sha256[:16]}"
    assert (body["thumbnail_width"], body["thumbnail_height"]) == (40, 40)
    assert (body["fruit_id"], body["content_type"], body["size"]) == (
        fruit.pk,
        "image/png",
        len(png),
    )
    assert (body["width"], body["height"], body["has_thumbnail"]) == (120, 100, True)
    image = anon_client.get(url, HTTP_ACCEPT="image/*")
    assert image.status_code == 200
    assert image.content == png
    assert image["Content-Type"] == "image/png"
    assert image["ETag"] == f'"{hashlib.sha256(png).hexdigest()}"'
    assert image["Content-Disposition"] == (
        f'inline; filename="publication-{publication.pk}-fruit-image-{body["id"]}.png"'
    )
    assert image["Cache-Control"] == "no-cache"
    assert anon_client.get(body["url"])["Cache-Control"] == "public, max-age=31536000, immutable"
    assert image["X-Content-Type-Options"] == "nosniff"


def test_the_thumbnail_is_a_jpeg_cropped_to_the_content(
    curator_client, anon_client, publication, fruit
):
    body = upload(curator_client, publication, fruit.pk, make_object_png()).json()
    response = anon_client.get(body["thumbnail_url"])
    assert response.status_code == 200
    assert response["Content-Type"] == "image/jpeg"
    assert response["Content-Disposition"] == (
        f'inline; filename="publication-{publication.pk}-fruit-image-{body["id"]}-thumbnail.jpg"'
    )
    stored = PublicationFruitImage.objects.get()
    assert response.content == bytes(stored.thumbnail_data)
    # The red 30x30 box at (30, 20) padded by 5 pixels: a 40x40 crop, never upscaled.
    assert Image.open(io.BytesIO(response.content)).size == (40, 40)


def test_the_thumbnail_falls_back_to_the_image_when_none_is_stored(
    anon_client, publication, fruit, link_fruit, add_publication_image
):
    image = add_publication_image(link_fruit(publication, fruit))
    PublicationFruitImage.objects.filter(pk=image.pk).update(
        thumbnail_data=None, thumbnail_sha256=""
    )
    response = anon_client.get(f"{images_path(publication, image)}/thumbnail")
    assert response.status_code == 200
    assert response.content == bytes(image.data)
    assert response["Content-Type"] == "image/png"


def test_an_image_of_a_fruit_that_is_not_linked_is_a_400_and_nothing_is_stored(
    curator_client, publication, publication_factory, fruit_factory, link_fruit, png_bytes
):
    elsewhere = fruit_factory()
    link_fruit(publication_factory(), elsewhere)
    for fruit_id in [elsewhere.pk, fruit_factory().pk, 99999]:
        response = upload(curator_client, publication, fruit_id, png_bytes)
        assert response.status_code == 400
        assert list(response.json()) == ["fruit"]
    assert not PublicationFruitImage.objects.exists()


@pytest.mark.parametrize(
    ("fruit_id", "data", "field"),
    [
        (None, make_object_png(), "fruit"),
        ("abc", make_object_png(), "fruit"),
        ("99999999999999999999999", make_object_png(), "fruit"),
        ("linked", b"", "image"),
        ("linked", b"not an image", "image"),
        ("linked", make_pdf_bytes(), "image"),
        ("linked", make_object_png()[:80], "image"),
        ("linked", b"<svg xmlns='http://www.w3.org/2000/svg'/>", "image"),
    ],
    ids=["no-fruit", "fruit-text", "fruit-huge", "empty", "text", "pdf", "truncated", "svg"],
)
def test_invalid_uploads_are_a_400_and_nothing_is_stored(
    curator_client, publication, fruit, fruit_id, data, field
):
    response = upload(
        curator_client, publication, fruit.pk if fruit_id == "linked" else fruit_id, data
    )
    assert response.status_code == 400
    assert field in response.json()
    assert not PublicationFruitImage.objects.exists()


def test_an_upload_without_the_image_field_is_a_400(curator_client, publication, fruit):
    response = curator_client.post(
        images_path(publication), {"fruit": fruit.pk}, format="multipart"
    )
    assert response.status_code == 400
    assert list(response.json()) == ["image"]


@pytest.mark.parametrize("content_type", ["image/png", "application/octet-stream", "text/plain"])
def test_an_upload_that_is_not_multipart_is_a_415(
    curator_client, publication, fruit, png_bytes, content_type
):
    response = curator_client.generic(
        "POST", images_path(publication), png_bytes, content_type=content_type
    )
    assert response.status_code == 415
    assert not PublicationFruitImage.objects.exists()


def test_an_upload_over_the_limit_is_a_413(curator_client, publication, fruit, settings):
    settings.FRUITCATALOG_MAX_UPLOAD_BYTES = 2000
    big = make_image_bytes("PNG", size=(64, 64)) + b"\0" * 2000
    assert upload(curator_client, publication, fruit.pk, big).status_code == 413
    assert not PublicationFruitImage.objects.exists()


def test_the_list_shows_the_publication_images_oldest_first_filtered_by_fruit(
    anon_client,
    publication,
    publication_factory,
    fruit,
    fruit_factory,
    link_fruit,
    add_publication_image,
):
    other_fruit = fruit_factory()
    first = add_publication_image(link_fruit(publication, fruit))
    second = add_publication_image(link_fruit(publication, other_fruit))
    third = add_publication_image(link_fruit(publication, fruit))
    add_publication_image(link_fruit(publication_factory(), fruit))
    body = anon_client.get(images_path(publication)).json()
    assert [image["id"] for image in body] == [first.pk, second.pk, third.pk]
    assert [image["fruit_id"] for image in body] == [fruit.pk, other_fruit.pk, fruit.pk]
    filtered = anon_client.get(images_path(publication), {"fruit": fruit.pk}).json()
    assert [image["id"] for image in filtered] == [first.pk, third.pk]
    assert anon_client.get(images_path(publication), {"fruit": 99999}).json() == []
    assert anon_client.get(images_path(publication), {"fruit": "x"}).status_code == 400
    assert anon_client.get("/api/v1/publications/99999/fruit-images").status_code == 404


def test_the_list_uses_two_queries_and_never_selects_bytes(
    anon_client,
    publication,
    fruit,
    fruit_factory,
    link_fruit,
    add_publication_image,
    reads_no_bytes,
    django_assert_max_num_queries,
):
    for linked in [fruit, fruit_factory(), fruit_factory()]:
        link = link_fruit(publication, linked, make_pdf_bytes())
        for _ in range(3):
            add_publication_image(link)
    with reads_no_bytes(), django_assert_max_num_queries(2):
        body = anon_client.get(images_path(publication)).json()
    assert len(body) == 9
    assert all(image["url"].startswith("http://testserver/") for image in body)


def test_an_image_of_another_publication_is_a_404_here(
    anon_client,
    curator_client,
    publication,
    fruit,
    publication_factory,
    link_fruit,
    add_publication_image,
):
    foreign = add_publication_image(link_fruit(publication_factory(), fruit))
    path = images_path(publication, foreign)
    assert anon_client.get(path).status_code == 404
    assert anon_client.get(f"{path}/thumbnail").status_code == 404
    assert curator_client.delete(path).status_code == 404
    assert PublicationFruitImage.objects.filter(pk=foreign.pk).exists()


def test_deleting_an_image_answers_204_and_then_404(
    curator_client, publication, fruit, link_fruit, add_publication_image
):
    image = add_publication_image(link_fruit(publication, fruit))
    assert curator_client.delete(f"{images_path(publication, image)}/").status_code == 204
    assert curator_client.get(images_path(publication, image)).status_code == 404
    body = curator_client.get(f"/api/v1/publications/{publication.pk}").json()
    assert body["fruits"][0]["image_count"] == 0


def test_304_and_head_of_image_and_thumbnail_do_not_read_the_bytes(
    anon_client, publication, fruit, link_fruit, add_publication_image, reads_no_bytes
):
    image = add_publication_image(link_fruit(publication, fruit))
    for path in [images_path(publication, image), f"{images_path(publication, image)}/thumbnail"]:
        etag = anon_client.get(path)["ETag"]
        with reads_no_bytes():
            not_modified = anon_client.get(path, HTTP_IF_NONE_MATCH=etag)
            head = anon_client.head(path)
        assert (not_modified.status_code, not_modified.content) == (304, b"")
        assert (head.status_code, head.content) == (200, b"")
        assert head["ETag"] == etag
        assert int(head["Content-Length"]) == len(anon_client.get(path).content)


def test_image_writes_need_change_publication(
    anon_client, reader_client, publication, fruit, link_fruit, add_publication_image, png_bytes
):
    image = add_publication_image(link_fruit(publication, fruit))
    for client, status in [(anon_client, 401), (reader_client, 403)]:
        assert upload(client, publication, fruit.pk, png_bytes).status_code == status
        assert client.delete(images_path(publication, image)).status_code == status
    assert list(PublicationFruitImage.objects.all()) == [image]
    assert reader_client.get(images_path(publication)).status_code == 200
