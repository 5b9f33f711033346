"""Fruit images through HTTP: upload rules, byte responses, thumbnails, metadata in lists."""

import hashlib
import io

import pytest
from PIL import Image

from catalog.models import FruitImage
from core.testing.media import (
    gif_of_frames,
    make_image_bytes,
    make_object_png,
    png_chunk,
    progressive_jpeg,
    solid_png,
)

pytestmark = pytest.mark.django_db


def images_url(fruit):
    return f"/api/v1/fruits/{fruit.pk}/images"


def version(data: bytes) -> str:
    """The version byte URLs carry: the first 16 hex digits of the bytes' SHA-256."""
    return hashlib.sha256(data).hexdigest()[:16]


def upload(client, fruit, data, name="photo.png"):
    return client.post(
        images_url(fruit), {"image": io.BytesIO(data) | _named(name)}, format="multipart"
    )


class _named:
    """`io.BytesIO(...) | _named("x.png")`: give an in-memory file the name multipart needs."""

    def __init__(self, name):
        self.name = name

    def __ror__(self, buffer):
        buffer.name = self.name
        return buffer


def test_multipart_upload_returns_201_with_image_info_and_location(curator_client, fruit_factory):
    fruit = fruit_factory()
    png = make_object_png(size=(400, 300))
    response = upload(curator_client, fruit, png)
    assert response.status_code == 201
    body = response.json()
    image = FruitImage.objects.get()
    path = f"http://testserver/api/v1/fruits/{fruit.pk}/images/{image.pk}"
    thumbnail = bytes(image.thumbnail_data)
    assert body == {
        "id": image.pk,
        "url": f"{path}?v={version(png)}",
        "thumbnail_url": f"{path}/thumbnail?v={version(thumbnail)}",
        "content_type": "image/png",
        "size": len(png),
        "width": 400,
        "height": 300,
        "has_thumbnail": True,
        "thumbnail_width": Image.open(io.BytesIO(thumbnail)).width,
        "thumbnail_height": Image.open(io.BytesIO(thumbnail)).height,
        "alt_text": "",
        "role": "fruit",
        "creator": "",
        "source": "",
        "license": "",
        "license_url": None,
        "created_at": body["created_at"],
    }
    # The resource's identity has no version: it stays the same when its bytes are replaced.
    assert response["Location"] == path


@pytest.mark.parametrize("content_type", ["image/jpeg", "image/png", "application/octet-stream"])
def test_raw_body_upload_lets_the_bytes_decide_the_type(
    curator_client, fruit_factory, content_type
):
    fruit = fruit_factory()
    jpeg = make_image_bytes("JPEG", size=(120, 80))
    response = curator_client.generic("POST", images_url(fruit), jpeg, content_type=content_type)
    assert response.status_code == 201
    assert response.json()["content_type"] == "image/jpeg"


@pytest.mark.parametrize(
    ("fmt", "mime"), [("GIF", "image/gif"), ("WEBP", "image/webp"), ("JPEG", "image/jpeg")]
)
def test_every_supported_format_is_accepted(curator_client, fruit_factory, fmt, mime):
    fruit = fruit_factory()
    response = upload(curator_client, fruit, make_image_bytes(fmt, size=(50, 40)), name="x.bin")
    assert response.status_code == 201
    assert response.json()["content_type"] == mime


SVG = (
    b'<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10">'
    b'<rect width="10" height="10"/></svg>'
)
HTML = b"<!DOCTYPE html><html><body><script>alert(1)</script></body></html>"


@pytest.mark.parametrize(
    "data",
    [
        pytest.param(SVG, id="svg"),
        pytest.param(HTML, id="html"),
        pytest.param(b"just some text", id="text"),
        pytest.param(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n1 0 obj\n<<>>\nendobj\n", id="pdf"),
        pytest.param(make_object_png()[:200], id="truncated-png"),
        pytest.param(make_object_png()[:-12], id="png-without-iend"),
        pytest.param(make_image_bytes("GIF")[:-1], id="gif-without-trailer"),
        pytest.param(make_image_bytes("JPEG", size=(300, 300))[:600], id="truncated-jpeg"),
        pytest.param(b"\x89PNG\r\n\x1a\n" + b"\x00" * 100, id="png-header-only"),
    ],
)
def test_unacceptable_files_are_400_and_nothing_is_stored(curator_client, fruit_factory, data):
    fruit = fruit_factory()
    response = upload(curator_client, fruit, data, name="innocent.png")
    assert response.status_code == 400
    assert "image" in response.json()
    assert not FruitImage.objects.exists()


def test_empty_upload_is_400(curator_client, fruit_factory):
    fruit = fruit_factory()
    assert upload(curator_client, fruit, b"").status_code == 400
    response = curator_client.generic("POST", images_url(fruit), b"", content_type="image/png")
    assert response.status_code == 400
    assert not FruitImage.objects.exists()


def test_missing_file_field_is_400(curator_client, fruit_factory):
    fruit = fruit_factory()
    response = curator_client.post(images_url(fruit), {"other": "x"}, format="multipart")
    assert response.status_code == 400
    assert response.json() == {"image": ["No file was submitted."]}


def test_decompression_bomb_is_rejected(curator_client, fruit_factory, settings):
    settings.FRUITCATALOG_MAX_IMAGE_PIXELS = 1000
    fruit = fruit_factory()
    response = upload(curator_client, fruit, make_image_bytes("PNG", size=(100, 100)))
    assert response.status_code == 400
    assert not FruitImage.objects.exists()


@pytest.mark.parametrize("content_type", ["text/plain", "application/json", "application/pdf"])
def test_other_request_content_types_are_415(curator_client, fruit_factory, content_type):
    fruit = fruit_factory()
    response = curator_client.generic(
        "POST", images_url(fruit), make_object_png(), content_type=content_type
    )
    assert response.status_code == 415
    detail = response.json()["detail"]
    assert f'"{content_type}"' in detail
    assert "multipart/form-data" in detail and "application/octet-stream" in detail
    assert not FruitImage.objects.exists()


def test_a_body_without_a_content_type_is_a_415_that_says_what_the_route_takes(curator_client):
    response = curator_client.generic("POST", "/api/v1/fruits", b"{}", content_type="")
    assert response.status_code == 415
    assert response.json()["detail"] == (
        "Unsupported media type: a body without a Content-Type. This route takes application/json."
    )


def test_body_over_the_limit_is_413_and_exactly_the_limit_is_accepted(
    curator_client, fruit_factory, settings
):
    fruit = fruit_factory()
    png = make_object_png()
    settings.FRUITCATALOG_MAX_UPLOAD_BYTES = len(png)
    accepted = curator_client.generic("POST", images_url(fruit), png, content_type="image/png")
    assert accepted.status_code == 201
    too_big = curator_client.generic(
        "POST", images_url(fruit), png + b"\0", content_type="image/png"
    )
    assert too_big.status_code == 413
    assert "detail" in too_big.json()
    assert FruitImage.objects.count() == 1


def test_multipart_overhead_counts_towards_the_limit(curator_client, fruit_factory, settings):
    fruit = fruit_factory()
    png = make_object_png()
    settings.FRUITCATALOG_MAX_UPLOAD_BYTES = len(png) + 10  # the file fits, the whole body does not
    assert upload(curator_client, fruit, png).status_code == 413
    assert not FruitImage.objects.exists()


def test_declared_length_over_the_limit_is_413_before_reading(
    curator_client, fruit_factory, settings
):
    settings.FRUITCATALOG_MAX_UPLOAD_BYTES = 1000
    fruit = fruit_factory()
    response = curator_client.generic(
        "POST", images_url(fruit), b"x" * 10, content_type="image/png", CONTENT_LENGTH="5000000"
    )
    assert response.status_code == 413


def test_uploads_need_change_permission_on_the_fruit(anon_client, reader_client, fruit_factory):
    fruit = fruit_factory()
    assert upload(anon_client, fruit, make_object_png()).status_code == 401
    assert upload(reader_client, fruit, make_object_png()).status_code == 403
    assert not FruitImage.objects.exists()


def test_upload_to_unknown_fruit_is_404(curator_client):
    response = curator_client.generic(
        "POST", "/api/v1/fruits/999/images", make_object_png(), content_type="image/png"
    )
    assert response.status_code == 404


def test_get_returns_the_stored_bytes_with_binary_headers(anon_client, fruit_factory, add_image):
    fruit = fruit_factory()
    png = make_object_png()
    image = add_image(fruit, png)
    response = anon_client.get(f"{images_url(fruit)}/{image.pk}")
    assert response.status_code == 200
    assert response.content == png
    assert response["Content-Type"] == "image/png"
    assert response["Content-Length"] == str(len(png))
    assert response["X-Content-Type-Options"] == "nosniff"
    assert response["ETag"] == f'"{hashlib.sha256(png).hexdigest()}"'
    assert response["Cache-Control"] == "no-cache"  # an unversioned URL: revalidated each time
    assert (
        response["Content-Disposition"]
        == f'inline; filename="fruit-{fruit.pk}-image-{image.pk}.png"'
    )


@pytest.mark.parametrize("accept", ["image/*", "*/*", "image/png", "application/json", "text/html"])
def test_bytes_are_served_whatever_the_client_accepts(
    anon_client, fruit_factory, add_image, accept
):
    fruit = fruit_factory()
    image = add_image(fruit)
    response = anon_client.get(f"{images_url(fruit)}/{image.pk}", HTTP_ACCEPT=accept)
    assert response.status_code == 200
    assert response["Content-Type"] == "image/png"


def test_matching_if_none_match_is_304_without_reading_the_bytes(
    anon_client, fruit_factory, add_image, reads_no_bytes
):
    fruit = fruit_factory()
    image = add_image(fruit)
    etag = anon_client.get(f"{images_url(fruit)}/{image.pk}")["ETag"]
    for path in (f"{images_url(fruit)}/{image.pk}", f"{images_url(fruit)}/{image.pk}/thumbnail"):
        current = anon_client.get(path)["ETag"] if path.endswith("thumbnail") else etag
        with reads_no_bytes():
            response = anon_client.get(path, HTTP_IF_NONE_MATCH=f'"other", {current}')
        assert response.status_code == 304
        assert response.content == b""
        assert response["ETag"] == current


def test_stale_if_none_match_gets_the_bytes(anon_client, fruit_factory, add_image):
    fruit = fruit_factory()
    image = add_image(fruit)
    response = anon_client.get(f"{images_url(fruit)}/{image.pk}", HTTP_IF_NONE_MATCH='"stale"')
    assert response.status_code == 200
    assert response.content


def test_head_answers_headers_without_body_or_reading_bytes(
    anon_client, fruit_factory, add_image, reads_no_bytes
):
    fruit = fruit_factory()
    png = make_object_png()
    image = add_image(fruit, png)
    with reads_no_bytes():
        response = anon_client.head(f"{images_url(fruit)}/{image.pk}")
    assert response.status_code == 200
    assert response.content == b""
    assert response["Content-Length"] == str(len(png))
    assert response["ETag"]


def test_thumbnail_is_a_jpeg_cropped_to_the_content(anon_client, fruit_factory, add_image):
    fruit = fruit_factory()
    image = add_image(fruit, make_object_png(size=(1000, 800), box=(200, 100, 399, 299)))
    response = anon_client.get(f"{images_url(fruit)}/{image.pk}/thumbnail")
    assert response.status_code == 200
    assert response["Content-Type"] == "image/jpeg"
    assert response["Content-Disposition"].endswith('-thumbnail.jpg"')
    thumbnail = Image.open(io.BytesIO(response.content))
    assert thumbnail.size == (210, 210)
    assert thumbnail.getpixel((105, 105))[0] > 200 and thumbnail.getpixel((105, 105))[1] < 60
    assert min(thumbnail.getpixel((1, 1))) > 230
    head = anon_client.head(f"{images_url(fruit)}/{image.pk}/thumbnail")
    assert head["Content-Length"] == str(len(response.content))


def test_thumbnail_falls_back_to_the_full_image_when_missing(anon_client, fruit_factory, add_image):
    fruit = fruit_factory()
    png = make_object_png()
    image = add_image(fruit, png)
    FruitImage.objects.filter(pk=image.pk).update(thumbnail_data=None, thumbnail_sha256="")
    response = anon_client.get(f"{images_url(fruit)}/{image.pk}/thumbnail")
    assert response.status_code == 200
    assert response["Content-Type"] == "image/png"
    assert response.content == png
    info = anon_client.get(images_url(fruit)).json()
    assert info[0]["has_thumbnail"] is False
    # The URL's version is that of what it serves, the image; so are the dimensions.
    assert info[0]["thumbnail_url"].endswith(f"/thumbnail?v={version(png)}")
    assert (info[0]["thumbnail_width"], info[0]["thumbnail_height"]) == (120, 100)
    versioned = anon_client.get(info[0]["thumbnail_url"])
    assert versioned.content == png
    assert versioned["Cache-Control"] == "public, max-age=31536000, immutable"


def test_list_is_oldest_first_and_never_reads_bytes(
    anon_client, fruit_factory, add_image, django_assert_max_num_queries, reads_no_bytes
):
    fruit = fruit_factory()
    first, second = add_image(fruit), add_image(fruit)
    with reads_no_bytes(), django_assert_max_num_queries(2):
        body = anon_client.get(images_url(fruit)).json()
    assert [entry["id"] for entry in body] == [first.pk, second.pk]


def test_image_of_another_fruit_is_404(anon_client, curator_client, fruit_factory, add_image):
    fruit, other = fruit_factory(), fruit_factory()
    image = add_image(fruit)
    assert anon_client.get(f"{images_url(other)}/{image.pk}").status_code == 404
    assert anon_client.get(f"{images_url(other)}/{image.pk}/thumbnail").status_code == 404
    assert curator_client.delete(f"{images_url(other)}/{image.pk}").status_code == 404
    assert FruitImage.objects.filter(pk=image.pk).exists()


def test_delete_removes_the_image(curator_client, reader_client, fruit_factory, add_image):
    fruit = fruit_factory()
    image = add_image(fruit)
    assert reader_client.delete(f"{images_url(fruit)}/{image.pk}").status_code == 403
    assert curator_client.delete(f"{images_url(fruit)}/{image.pk}").status_code == 204
    assert curator_client.get(f"{images_url(fruit)}/{image.pk}").status_code == 404


def test_fruit_shows_first_thumbnail_and_image_count(anon_client, fruit_factory, add_image):
    fruit = fruit_factory()
    first = add_image(fruit)
    add_image(fruit)
    body = anon_client.get(f"/api/v1/fruits/{fruit.pk}").json()
    assert body["image_count"] == 2
    assert body["thumbnail_url"] == (
        f"http://testserver/api/v1/fruits/{fruit.pk}/images/{first.pk}/thumbnail"
        f"?v={first.thumbnail_sha256[:16]}"
    )
    assert [entry["id"] for entry in body["images"]] == [first.pk, first.pk + 1]


def chunked(client, path, data, content_type):
    """A request the way gunicorn hands over a chunked body: no Content-Length, input terminated."""
    return client.generic(
        "POST",
        path,
        data,
        content_type=content_type,
        CONTENT_LENGTH="",
        HTTP_TRANSFER_ENCODING="chunked",
        # A plain stream: the test client's own refuses reads past the length it was given.
        **{"wsgi.input_terminated": True, "wsgi.input": io.BytesIO(data)},
    )


def test_chunked_upload_without_content_length_is_read(curator_client, fruit_factory):
    fruit = fruit_factory()
    response = chunked(curator_client, images_url(fruit), make_object_png(), "image/png")
    assert response.status_code == 201
    assert FruitImage.objects.get().size == len(make_object_png())


def test_chunked_upload_over_the_limit_is_413(curator_client, fruit_factory, settings):
    fruit = fruit_factory()
    png = make_object_png()
    settings.FRUITCATALOG_MAX_UPLOAD_BYTES = len(png) - 1
    response = chunked(curator_client, images_url(fruit), png, "image/png")
    assert response.status_code == 413
    assert "detail" in response.json()
    assert not FruitImage.objects.exists()


class BrokenChunkedInput(io.RawIOBase):
    """What a WSGI server's input raises on a malformed chunked body."""

    def read(self, size=-1):
        raise OSError("Invalid chunk size")


def test_malformed_chunked_body_is_400_not_500(anon_client):
    response = anon_client.generic(
        "GET",
        "/api/v1/fruits",
        b"",
        CONTENT_LENGTH="",
        HTTP_TRANSFER_ENCODING="chunked",
        **{"wsgi.input_terminated": True, "wsgi.input": BrokenChunkedInput()},
    )
    assert response.status_code == 400
    assert response.json() == {"detail": "Malformed chunked request body."}


# Every upload's cost is bounded: what would cost more than the budget is a 400 naming
# the limit, decided from the file's structure before anything is decoded.


@pytest.mark.parametrize(
    ("data", "content_type", "message"),
    [
        pytest.param(
            solid_png(1, 1, chunks=png_chunk(b"prVt") * 436_890),
            "image/png",
            "more than 20000 chunks",
            id="png-of-436890-chunks",
        ),
        pytest.param(gif_of_frames(349_524), "image/gif", "limit of 1000 frames", id="gif-frames"),
        pytest.param(
            progressive_jpeg(7071, 7071, 100), "image/jpeg", "100 scans", id="jpeg-100-scans"
        ),
    ],
)
def test_uploads_costing_more_than_the_budget_are_400_naming_the_limit(
    curator_client, fruit_factory, data, content_type, message
):
    fruit = fruit_factory()
    response = curator_client.generic("POST", images_url(fruit), data, content_type=content_type)
    assert response.status_code == 400
    assert message in response.json()["image"][0]
    assert not FruitImage.objects.exists()


def test_a_photo_of_48_megapixels_is_accepted_with_a_thumbnail(curator_client, fruit_factory):
    fruit = fruit_factory()
    photo = Image.new("RGB", (8000, 6000), (235, 235, 230))
    photo.paste((200, 40, 30), (2000, 1000, 6000, 5000))
    buffer = io.BytesIO()
    photo.save(buffer, "JPEG", quality=85)
    del photo
    response = curator_client.generic(
        "POST", images_url(fruit), buffer.getvalue(), content_type="image/jpeg"
    )
    assert response.status_code == 201
    assert (response.json()["width"], response.json()["height"]) == (8000, 6000)
    assert response.json()["has_thumbnail"] is True


def png_with_undecodable_pixels() -> bytes:
    """A PNG whose structure is sound (chunks, CRCs) but whose pixel data does not inflate."""
    data = make_object_png()
    start = data.index(b"IDAT") - 4
    length = int.from_bytes(data[start : start + 4], "big")
    junk = (bytes(range(256)) * (length // 256 + 1))[:length]
    return data[:start] + png_chunk(b"IDAT", junk) + data[start + 12 + length :]


def test_pixels_found_corrupt_while_the_bytes_are_written_roll_the_image_back(
    curator_client, fruit_factory
):
    # The header checks pass; the thumbnail, made while the row is written, finds the pixels
    # corrupt: the row already inserted in that transaction is rolled back.
    fruit = fruit_factory()

    response = upload(curator_client, fruit, png_with_undecodable_pixels(), name="broken.png")

    assert response.status_code == 400
    assert response.json() == {"image": ["The file is truncated or corrupt."]}
    assert not FruitImage.objects.exists()


def test_an_upload_is_decoded_once_and_its_bytes_hashed_once(
    curator_client, fruit_factory, work_on
):
    png = make_object_png(size=(400, 300))
    counts = work_on(png)

    assert upload(curator_client, fruit_factory(), png).status_code == 201

    # The thumbnail made beside the write is the one stored, the hash taken once is kept.
    assert counts == {"decoded": 1, "hashed": 1}
    image = FruitImage.objects.get()
    assert image.has_thumbnail and image.thumbnail_width and image.width == 400
