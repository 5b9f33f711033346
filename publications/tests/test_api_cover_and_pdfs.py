"""Cover images and fruit PDFs: uploads, validation, byte responses, caching, limits."""

import hashlib
import io

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command
from PIL import Image
from pypdf import PdfWriter

from core.testing.media import (
    lossless_webp,
    make_image_bytes,
    make_object_png,
    make_pdf_bytes,
    solid_png,
)
from publications.models import Publication, PublicationFruit

pytestmark = pytest.mark.django_db


def cover_path(publication) -> str:
    return f"/api/v1/publications/{publication.pk}/cover"


def pdf_path(publication, fruit) -> str:
    return f"/api/v1/publications/{publication.pk}/fruits/{fruit.pk}/description"


def version(data: bytes) -> str:
    """The version byte URLs carry: the first 16 hex digits of the bytes' SHA-256."""
    return hashlib.sha256(data).hexdigest()[:16]


def put_file(client, path, field, data, name, content_type="application/octet-stream"):
    upload = SimpleUploadedFile(name, data, content_type=content_type)
    return client.put(path, {field: upload}, format="multipart")


def put_raw(client, path, data, content_type):
    return client.generic("PUT", path, data, content_type=content_type)


def assert_binary_headers(response, data, content_type, filename):
    assert response.status_code == 200
    assert response.content == data
    assert response["Content-Type"] == content_type
    assert response["Content-Length"] == str(len(data))
    assert response["ETag"] == f'"{hashlib.sha256(data).hexdigest()}"'
    assert response["Content-Disposition"] == f'inline; filename="{filename}"'
    assert response["Cache-Control"] == "no-cache"  # unversioned: revalidated with the ETag
    assert response["X-Content-Type-Options"] == "nosniff"


@pytest.fixture
def publication(publication_factory):
    return publication_factory(title="Deutschlands Obstsorten")


@pytest.fixture
def linked(publication, fruit_factory, link_fruit):
    """A fruit linked to `publication`, without a PDF."""
    fruit = fruit_factory()
    link_fruit(publication, fruit)
    return fruit


# Covers


def test_cover_upload_as_multipart_answers_the_publication_and_serves_the_same_bytes(
    curator_client, anon_client, publication, png_bytes
):
    response = put_file(curator_client, cover_path(publication), "image", png_bytes, "c.png")
    assert response.status_code == 200
    body = response.json()
    assert body["id"] == publication.pk and body["has_cover"] is True
    assert body["cover_url"] == f"http://testserver{cover_path(publication)}?v={version(png_bytes)}"
    assert (body["cover_width"], body["cover_height"]) == (120, 100)
    assert_binary_headers(
        anon_client.get(cover_path(publication)),
        png_bytes,
        "image/png",
        f"publication-{publication.pk}-cover.png",
    )


def test_a_cover_gets_a_jpeg_thumbnail_cropped_to_its_content(
    curator_client, anon_client, publication
):
    cover = make_object_png(size=(1200, 1600), box=(100, 600, 1099, 999))
    body = put_raw(curator_client, cover_path(publication), cover, "image/png").json()

    publication.refresh_from_db()
    thumbnail_path = f"{cover_path(publication)}/thumbnail"
    expected_version = publication.cover_thumbnail_sha256[:16]
    assert body["cover_thumbnail_url"] == f"http://testserver{thumbnail_path}?v={expected_version}"
    response = anon_client.get(body["cover_thumbnail_url"])
    assert response.status_code == 200 and response["Content-Type"] == "image/jpeg"
    assert response["Cache-Control"] == "public, max-age=31536000, immutable"
    with Image.open(io.BytesIO(response.content)) as image:
        # The content (1000 x 400 plus padding) in 300 px, not the whole page (225 x 300).
        assert image.format == "JPEG" and image.width == 300 and image.height < 130
        size = image.size
    assert (publication.cover_thumbnail_width, publication.cover_thumbnail_height) == size
    # Removing the cover removes its thumbnail.
    assert curator_client.delete(cover_path(publication)).status_code == 204
    assert anon_client.get(thumbnail_path).status_code == 404
    assert (
        anon_client.get(f"/api/v1/publications/{publication.pk}").json()["cover_thumbnail_url"]
        is None
    )


def test_a_cover_stored_without_a_thumbnail_serves_the_cover_on_its_thumbnail_path(
    anon_client, publication, png_bytes
):
    publication.set_cover(png_bytes)
    publication.save()
    Publication.objects.filter(pk=publication.pk).update(
        cover_thumbnail_data=None, cover_thumbnail_sha256="", cover_thumbnail_width=0
    )
    body = anon_client.get(f"/api/v1/publications/{publication.pk}").json()
    assert body["cover_thumbnail_url"].endswith(f"/cover/thumbnail?v={version(png_bytes)}")
    response = anon_client.get(body["cover_thumbnail_url"])
    assert response.content == png_bytes and response["Content-Type"] == "image/png"


@pytest.mark.parametrize("content_type", ["image/jpeg", "image/png", "application/octet-stream"])
def test_cover_upload_as_raw_bytes_is_typed_by_the_bytes(
    curator_client, anon_client, publication, content_type
):
    jpeg = make_image_bytes("JPEG")
    assert put_raw(curator_client, cover_path(publication), jpeg, content_type).status_code == 200
    assert_binary_headers(
        anon_client.get(f"{cover_path(publication)}/", HTTP_ACCEPT="image/*"),
        jpeg,
        "image/jpeg",
        f"publication-{publication.pk}-cover.jpg",
    )


def test_replacing_the_cover_changes_the_bytes_and_etag(curator_client, publication, png_bytes):
    put_raw(curator_client, cover_path(publication), png_bytes, "image/png")
    first = curator_client.get(cover_path(publication))["ETag"]
    gif = make_image_bytes("GIF")
    put_raw(curator_client, cover_path(publication), gif, "image/gif")
    response = curator_client.get(cover_path(publication))
    assert response.content == gif and response["ETag"] != first


@pytest.mark.parametrize(
    "data",
    [
        b"",
        b"not an image",
        b"<svg xmlns='http://www.w3.org/2000/svg'/>",
        make_pdf_bytes(),
        make_image_bytes("PNG")[:60],
        make_image_bytes("BMP"),
    ],
    ids=["empty", "text", "svg", "pdf", "truncated", "bmp"],
)
def test_a_cover_that_is_not_an_acceptable_image_is_a_400_and_nothing_is_stored(
    curator_client, publication, data
):
    response = put_file(curator_client, cover_path(publication), "image", data, "cover.png")
    assert response.status_code == 400
    assert list(response.json()) == ["image"]
    stored = Publication.objects.get()
    assert (stored.cover_data, stored.cover_sha256) == (None, "")


def test_a_cover_upload_without_the_image_field_is_a_400(curator_client, publication, png_bytes):
    response = put_file(curator_client, cover_path(publication), "file", png_bytes, "c.png")
    assert response.status_code == 400
    assert response.json() == {"image": ["No file was submitted."]}


def test_a_cover_sent_as_text_is_a_415(curator_client, publication, png_bytes):
    response = put_raw(curator_client, cover_path(publication), png_bytes, "text/plain")
    assert response.status_code == 415
    assert not Publication.objects.get().has_cover


def test_a_cover_over_the_upload_limit_is_a_413(curator_client, publication, settings):
    settings.FRUITCATALOG_MAX_UPLOAD_BYTES = 1000
    big = make_image_bytes("PNG", size=(300, 300), color=None) + b"\0" * 1000
    assert len(big) > 1000
    assert put_raw(curator_client, cover_path(publication), big, "image/png").status_code == 413
    response = put_file(curator_client, cover_path(publication), "image", big, "big.png")
    assert response.status_code == 413
    assert not Publication.objects.get().has_cover


def test_the_cover_is_a_404_when_there_is_none(anon_client, curator_client, publication):
    assert anon_client.get(cover_path(publication)).json() == {"detail": "Not found."}
    assert curator_client.delete(cover_path(publication)).status_code == 404
    assert anon_client.get("/api/v1/publications/99999/cover").status_code == 404


def test_deleting_the_cover_answers_204_and_then_404(
    curator_client, publication_factory, png_bytes
):
    publication = publication_factory(cover_data=png_bytes)
    assert curator_client.delete(cover_path(publication)).status_code == 204
    assert curator_client.get(cover_path(publication)).status_code == 404
    body = curator_client.get(f"/api/v1/publications/{publication.pk}").json()
    assert (body["has_cover"], body["cover_url"]) == (False, None)
    assert Publication.objects.get().cover_data is None


def test_a_matching_if_none_match_is_a_304_without_reading_the_cover(
    anon_client, publication_factory, png_bytes, reads_no_bytes
):
    publication = publication_factory(cover_data=png_bytes)
    etag = anon_client.get(cover_path(publication))["ETag"]
    with reads_no_bytes():
        response = anon_client.get(cover_path(publication), HTTP_IF_NONE_MATCH=etag)
    assert response.status_code == 304
    assert response.content == b""
    assert response["ETag"] == etag


def test_head_of_the_cover_answers_the_headers_without_reading_the_bytes(
    anon_client, publication_factory, png_bytes, reads_no_bytes
):
    publication = publication_factory(cover_data=png_bytes)
    with reads_no_bytes():
        response = anon_client.head(cover_path(publication))
    assert response.status_code == 200
    assert response.content == b""
    assert response["Content-Length"] == str(len(png_bytes))
    assert response["Content-Type"] == "image/png"


def test_cover_writes_need_change_publication(
    anon_client, reader_client, publication_factory, png_bytes
):
    publication = publication_factory(cover_data=png_bytes)
    for client, status in [(anon_client, 401), (reader_client, 403)]:
        assert (
            put_raw(client, cover_path(publication), png_bytes, "image/png").status_code == status
        )
        assert client.delete(cover_path(publication)).status_code == status
    assert Publication.objects.get().has_cover


# PDFs


def test_pdf_upload_as_multipart_answers_the_link_and_serves_the_same_bytes(
    curator_client, anon_client, publication, linked
):
    pdf = make_pdf_bytes(pages=2)
    response = put_file(curator_client, pdf_path(publication, linked), "file", pdf, "desc.pdf")
    assert response.status_code == 200
    body = response.json()
    assert body["fruit"]["id"] == linked.pk
    assert body["has_description"] is True
    assert body["description_url"] == (
        f"http://testserver{pdf_path(publication, linked)}?v={version(pdf)}"
    )
    assert_binary_headers(
        anon_client.get(pdf_path(publication, linked), HTTP_ACCEPT="application/pdf"),
        pdf,
        "application/pdf",
        f"publication-{publication.pk}-fruit-{linked.pk}-description.pdf",
    )


@pytest.mark.parametrize("content_type", ["application/pdf", "application/octet-stream"])
def test_pdf_upload_as_raw_bytes(curator_client, publication, linked, pdf_bytes, content_type):
    response = put_raw(curator_client, pdf_path(publication, linked), pdf_bytes, content_type)
    assert response.status_code == 200
    assert curator_client.get(f"{pdf_path(publication, linked)}/").content == pdf_bytes


def test_a_pdf_named_like_a_jpeg_is_still_a_pdf(curator_client, publication, linked, pdf_bytes):
    response = put_file(
        curator_client, pdf_path(publication, linked), "file", pdf_bytes, "photo.jpg", "image/jpeg"
    )
    assert response.status_code == 200
    assert curator_client.get(pdf_path(publication, linked))["Content-Type"] == "application/pdf"


def test_replacing_the_pdf_changes_the_bytes_and_etag(
    curator_client, publication, linked, pdf_bytes
):
    put_raw(curator_client, pdf_path(publication, linked), pdf_bytes, "application/pdf")
    first = curator_client.get(pdf_path(publication, linked))["ETag"]
    longer = make_pdf_bytes(pages=3)
    put_raw(curator_client, pdf_path(publication, linked), longer, "application/pdf")
    response = curator_client.get(pdf_path(publication, linked))
    assert response.content == longer and response["ETag"] != first


@pytest.mark.parametrize(
    ("data", "name"),
    [
        (b"", "empty.pdf"),
        (b"plain text, not a PDF", "text.pdf"),
        (make_image_bytes("PNG"), "image.pdf"),
        (make_image_bytes("JPEG"), "image.pdf"),
        (make_pdf_bytes()[: len(make_pdf_bytes()) // 2], "half.pdf"),
        (make_pdf_bytes()[:-8], "no-eof.pdf"),
        (b"%PDF-1.4\n" + b"x" * 200 + b"\n%%EOF\n", "header-only.pdf"),
        (b"<html><body>%PDF-1.4</body></html>", "page.pdf"),
    ],
    ids=["empty", "text", "png", "jpeg", "half", "no-eof", "garbage", "html"],
)
def test_bytes_that_are_not_a_complete_pdf_are_a_400_and_nothing_is_stored(
    curator_client, publication, linked, data, name
):
    response = put_file(curator_client, pdf_path(publication, linked), "file", data, name)
    assert response.status_code == 400
    assert list(response.json()) == ["file"]
    assert not PublicationFruit.objects.get().has_description
    assert PublicationFruit.objects.get().description_data is None


def test_an_image_sent_as_raw_pdf_is_a_400(curator_client, publication, linked, png_bytes):
    response = put_raw(curator_client, pdf_path(publication, linked), png_bytes, "application/pdf")
    assert response.status_code == 400
    assert response.json() == {"file": ["The file is not a PDF."]}


def test_a_pdf_for_a_fruit_that_is_not_linked_is_a_404(
    curator_client, publication, fruit_factory, pdf_bytes
):
    unlinked = fruit_factory()
    response = put_raw(
        curator_client, pdf_path(publication, unlinked), pdf_bytes, "application/pdf"
    )
    assert response.status_code == 404
    path = f"/api/v1/publications/{publication.pk}/fruits/99999/description"
    assert put_raw(curator_client, path, pdf_bytes, "application/pdf").status_code == 404
    assert curator_client.get(pdf_path(publication, unlinked)).status_code == 404
    assert not PublicationFruit.objects.exists()


def test_a_pdf_sent_as_text_is_a_415(curator_client, publication, linked, pdf_bytes):
    response = put_raw(curator_client, pdf_path(publication, linked), pdf_bytes, "text/plain")
    assert response.status_code == 415
    assert not PublicationFruit.objects.get().has_description


def test_a_pdf_over_the_upload_limit_is_a_413(
    curator_client, publication, linked, pdf_bytes, settings
):
    settings.FRUITCATALOG_MAX_UPLOAD_BYTES = len(pdf_bytes) - 1
    path = pdf_path(publication, linked)
    assert put_raw(curator_client, path, pdf_bytes, "application/pdf").status_code == 413
    assert put_file(curator_client, path, "file", pdf_bytes, "d.pdf").status_code == 413
    assert not PublicationFruit.objects.get().has_description


def test_the_pdf_is_a_404_when_there_is_none_and_deleting_it_keeps_the_link(
    curator_client, publication, linked, pdf_bytes
):
    path = pdf_path(publication, linked)
    assert curator_client.get(path).status_code == 404
    assert curator_client.delete(path).status_code == 404
    put_raw(curator_client, path, pdf_bytes, "application/pdf")
    assert curator_client.delete(path).status_code == 204
    assert curator_client.get(path).status_code == 404
    link = PublicationFruit.objects.get()
    assert (link.description_data, link.description_size, link.has_description) == (None, 0, False)


def test_pdf_304_and_head_do_not_read_the_bytes(
    anon_client, publication, fruit_factory, link_fruit, pdf_bytes, reads_no_bytes
):
    fruit = fruit_factory()
    link_fruit(publication, fruit, pdf_bytes)
    etag = anon_client.get(pdf_path(publication, fruit))["ETag"]
    with reads_no_bytes():
        not_modified = anon_client.get(pdf_path(publication, fruit), HTTP_IF_NONE_MATCH=etag)
        head = anon_client.head(pdf_path(publication, fruit))
    assert (not_modified.status_code, not_modified.content) == (304, b"")
    assert (head.status_code, head.content) == (200, b"")
    assert head["Content-Length"] == str(len(pdf_bytes))
    assert head["Content-Type"] == "application/pdf"


def test_pdf_writes_need_change_publication(
    anon_client, reader_client, publication, linked, pdf_bytes
):
    path = pdf_path(publication, linked)
    for client, status in [(anon_client, 401), (reader_client, 403)]:
        assert put_raw(client, path, pdf_bytes, "application/pdf").status_code == status
        assert client.delete(path).status_code == status
    assert not PublicationFruit.objects.get().has_description


# Every upload's cost is bounded: a cover is decoded like a fruit image, so what would
# cost more than the budget is a 400 naming the limit, before anything is decoded.


@pytest.mark.parametrize(
    ("data", "content_type"),
    [
        # 2.7 KB in the report, 50 M pixels: libwebp and Pillow would hold 16 bytes a pixel.
        pytest.param(lossless_webp(16383, 3051), "image/webp", id="lossless-webp-16383x3051"),
        # 16-bit RGBA inflates to 400 MB of rows.
        pytest.param(
            solid_png(7071, 7071, b"\x10\x00\x20\x00\x30\x00\xff\xff", bit_depth=16, colour_type=6),
            "image/png",
            id="16-bit-rgba-png-7071x7071",
        ),
    ],
)
def test_a_cover_costing_more_than_the_budget_is_a_400_naming_the_limit(
    curator_client, publication, data, content_type
):
    response = put_raw(curator_client, cover_path(publication), data, content_type)
    assert response.status_code == 400
    assert "(limit " in response.json()["image"][0]
    assert not Publication.objects.get().has_cover


def test_a_pdf_with_a_broken_table_that_viewers_repair_is_accepted(
    curator_client, publication, linked
):
    pdf = make_pdf_bytes(pages=2)
    repaired = pdf[: pdf.rindex(b"startxref")] + b"startxref\n0\n%%EOF\n"
    response = put_raw(curator_client, pdf_path(publication, linked), repaired, "application/pdf")
    assert response.status_code == 200
    assert curator_client.get(pdf_path(publication, linked)).content == repaired


def test_a_pdf_that_needs_a_password_is_a_400_saying_so(curator_client, publication, linked):
    writer = PdfWriter()
    writer.add_blank_page(200, 200)
    writer.encrypt(user_password="secret", owner_password="owner", algorithm="AES-256")
    buffer = io.BytesIO()
    writer.write(buffer)
    response = put_raw(
        curator_client, pdf_path(publication, linked), buffer.getvalue(), "application/pdf"
    )
    assert response.status_code == 400
    assert response.json() == {"file": ["The PDF is password-protected."]}
    assert not PublicationFruit.objects.get().has_description


def test_covers_stored_before_cover_thumbnails_get_theirs(publication_factory):
    publication = publication_factory(cover_data=make_object_png())
    Publication.objects.filter(pk=publication.pk).update(
        cover_thumbnail_data=None, cover_thumbnail_sha256="", cover_thumbnail_width=0
    )
    publication_factory(title="No cover")

    out = run_backfill()

    assert "publication_covers: 1 generated, 0 failed" in out
    publication.refresh_from_db()
    assert publication.cover_thumbnail.exists and bytes(publication.cover_thumbnail_data)
    assert (publication.cover_thumbnail_width, publication.cover_thumbnail_height) == (40, 40)
    assert "nothing to do" in run_backfill()


def run_backfill() -> str:
    out = io.StringIO()
    call_command("backfill_thumbnails", stdout=out, stderr=io.StringIO())
    return out.getvalue()


def test_a_cover_upload_is_decoded_once(curator_client, publication, monkeypatch):
    from blobs import imaging

    calls = []
    real = imaging.inspect_and_thumbnail_sized

    def counted(*args, **kwargs):
        calls.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(imaging, "inspect_and_thumbnail_sized", counted)
    cover = make_object_png(size=(400, 300))
    assert put_raw(curator_client, cover_path(publication), cover, "image/png").status_code == 200
    assert len(calls) == 1  # the check's thumbnail is the one stored
    publication.refresh_from_db()
    assert publication.cover_thumbnail.exists and publication.cover_width == 400
