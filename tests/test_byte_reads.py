"""Every byte path's read: one query of metadata, no client lookup, bytes only for a body."""

import pytest
from django.db import close_old_connections, connection
from django.test.utils import CaptureQueriesContext

from blobs import reads
from blobs.responses import IMMUTABLE, REVALIDATE, VERSION_LENGTH
from catalog.models import FruitImage
from catalog.tests.factories import FruitFactory
from core.testing.media import make_object_png
from core.testing.queries import reading_no_bytes, selected_blob_columns
from tests.stored import stored_thumbnail

pytestmark = pytest.mark.django_db


def test_a_body_is_metadata_then_bytes_and_never_looks_up_the_client(byte_paths, curator_client):
    # A curator's token on a public read is not looked up: no session, no token, no user query.
    for path in byte_paths:
        with CaptureQueriesContext(connection) as captured:
            response = curator_client.get(path)
        assert response.status_code == 200
        assert response.content
        assert response["Content-Length"] == str(len(response.content))
        assert len(captured.captured_queries) == 2, [q["sql"] for q in captured]
        assert not selected_blob_columns(captured.captured_queries[:1]), path
        assert selected_blob_columns(captured.captured_queries[1:]), path


def test_replaced_bytes_are_served_at_once_and_deleted_ones_are_gone(byte_paths, anon_client):
    path = byte_paths[0]  # a fruit image
    before = anon_client.get(path).content
    image = FruitImage.objects.get(pk=int(path.rsplit("/", 1)[1]))
    replacement = make_object_png(size=(90, 70))
    image.store(replacement)
    image.save()
    assert before != replacement
    assert anon_client.get(path).content == replacement
    image.delete()
    assert anon_client.get(path).status_code == 404


def test_a_304_and_a_head_are_one_query_of_metadata(byte_paths, anon_client):
    for path in byte_paths:
        full = anon_client.get(path)
        etag = full["ETag"]
        for method, headers in (("get", {"HTTP_IF_NONE_MATCH": etag}), ("head", {})):
            with reading_no_bytes() as captured:
                response = getattr(anon_client, method)(path, **headers)
            assert response.status_code == (304 if headers else 200), (method, path)
            assert len(captured.captured_queries) == 1, (method, path)
            assert not response.content
        head = anon_client.head(path)
        for name in ("Content-Type", "Content-Length", "ETag", "Content-Disposition"):
            assert head[name] == full[name], (name, path)


def test_a_stale_etag_gets_the_bytes(byte_paths, anon_client):
    for path in byte_paths:
        response = anon_client.get(path, HTTP_IF_NONE_MATCH='"stale"')
        assert response.status_code == 200, path
        assert response.content


def test_reads_of_missing_rows_are_json_404s(byte_paths, anon_client):
    for path in byte_paths:
        # The path under a parent that does not exist, and an image that does not exist.
        no_parent = path.replace("/fruits/", "/fruits/9")
        no_parent = no_parent.replace("/publications/", "/publications/9")
        no_image = path.replace("images/", "images/9")
        for missing in {no_parent, no_image} - {path}:
            for method in ("get", "head"):
                response = getattr(anon_client, method)(missing)
                assert response.status_code == 404, (method, missing)
                if method == "get":
                    assert response.json() == {"detail": "Not found."}


def test_writes_and_options_on_a_byte_path_still_reach_the_api(byte_paths, anon_client):
    response = anon_client.options(byte_paths[0])
    assert response.status_code == 200
    assert "DELETE" in response["Allow"]
    assert anon_client.delete(byte_paths[0]).status_code in (401, 403)


@pytest.mark.django_db(transaction=True)
def test_a_dead_persistent_connection_is_replaced_without_a_failed_read(anon_client):
    """Django's connection health check (`conn_health_checks`) at a request's first query."""
    if connection.vendor != "postgresql":
        pytest.skip("a server-side disconnect needs PostgreSQL")
    path = stored_thumbnail()
    assert anon_client.get(path).status_code == 200
    # The server ends this session, as a restart would; the client does not know yet.
    pid = connection.connection.info.backend_pid
    with connections_other() as other, other.cursor() as cursor:
        cursor.execute("SELECT pg_terminate_backend(%s)", [pid])
    # What Django's request_started signal does between requests (the test client holds it back).
    close_old_connections()
    assert anon_client.get(path).status_code == 200
    assert connection.connection.info.backend_pid != pid


def connections_other():
    """A second connection to the test database, closed after use."""
    from contextlib import closing

    from django.db import connections

    return closing(connections.create_connection("default"))


def test_byte_reads_answer_any_origin_without_credentials(byte_paths, anon_client):
    origin = "https://cards.example"
    for path in byte_paths:
        response = anon_client.get(path, HTTP_ORIGIN=origin)
        assert response["Access-Control-Allow-Origin"] == origin, path
        # A cache keeps one answer per origin; bytes do not depend on what a client accepts.
        assert response["Vary"].lower() == "origin", path
        assert "ETag" in response["Access-Control-Expose-Headers"]
        assert "Access-Control-Allow-Credentials" not in response
    missing = anon_client.get(byte_paths[0] + "9", HTTP_ORIGIN=origin)
    assert missing.status_code == 404
    assert missing["Access-Control-Allow-Origin"] == origin


def change_before_the_bytes_are_read(monkeypatch, change):
    """Run `change` between a read's metadata query and its bytes query (a racing write)."""
    real = reads.read_bytes

    def read_bytes(*args):
        change()
        return real(*args)

    monkeypatch.setattr(reads, "read_bytes", read_bytes)


@pytest.mark.parametrize("race", ["delete", "replace"])
def test_a_read_racing_a_write_is_a_404_never_other_bytes(anon_client, monkeypatch, race):
    fruit, other = FruitFactory(), FruitFactory()
    original, replacement = make_object_png(size=(120, 100)), make_object_png(size=(90, 70))
    image = FruitImage.objects.create(fruit=fruit, data=original)

    def change():
        if race == "delete":
            FruitImage.objects.filter(pk=image.pk).delete()
        else:
            current = FruitImage.objects.get(pk=image.pk)
            current.store(replacement)
            current.save()

    change_before_the_bytes_are_read(monkeypatch, change)
    response = anon_client.get(f"/api/v1/fruits/{fruit.pk}/images/{image.pk}")
    assert response.status_code == 404
    assert response.json() == {"detail": "Not found."}
    monkeypatch.undo()
    again = FruitImage.objects.create(fruit=other, data=original)
    response = anon_client.get(f"/api/v1/fruits/{other.pk}/images/{again.pk}")
    assert response.status_code == 200
    assert response.content == original


def test_a_hash_without_bytes_is_a_404_not_an_empty_body(anon_client):
    fruit = FruitFactory()
    image = FruitImage.objects.create(fruit=fruit, data=make_object_png())
    FruitImage.objects.filter(pk=image.pk).update(thumbnail_data=None)  # hash kept, bytes gone
    response = anon_client.get(f"/api/v1/fruits/{fruit.pk}/images/{image.pk}/thumbnail")
    assert response.status_code == 404


def test_byte_reads_check_the_host_and_forbid_framing(byte_paths, anon_client):
    assert anon_client.get(byte_paths[0], HTTP_HOST="evil.example").status_code == 400
    response = anon_client.get(byte_paths[0])
    assert response["X-Frame-Options"] == "DENY"


def test_stored_bytes_run_no_script_but_the_browsers_own_viewers_keep_their_styles(
    byte_paths, anon_client
):
    for path in byte_paths:
        policy = anon_client.get(path)["Content-Security-Policy"]
        assert "default-src 'none'" in policy and "sandbox" in policy
        assert "style-src 'unsafe-inline'" in policy  # Chromium's image viewer styles inline
        assert "script-src" not in policy


def test_a_304_carries_every_header_but_a_content_type(byte_paths, anon_client):
    # Django's default (text/html) would be wrong here, and a cache may merge a 304's headers
    # into the stored response.
    for path in byte_paths:
        etag = anon_client.get(path)["ETag"]
        origin = "https://cards.example"
        response = anon_client.get(path, HTTP_IF_NONE_MATCH=etag, HTTP_ORIGIN=origin)
        assert response.status_code == 304, path
        assert "Content-Type" not in response, path
        assert response["ETag"] == etag
        assert response["Cache-Control"] == REVALIDATE
        assert response["Access-Control-Allow-Origin"] == origin
        assert response["X-Frame-Options"] == "DENY"
        assert response["X-Content-Type-Options"] == "nosniff"  # SecurityMiddleware's
        assert not response.content


@pytest.mark.parametrize("spelled", ["{etag}", "W/{etag}", '"other", {etag}', "*"])
def test_if_none_match_as_a_list_a_weak_tag_or_a_star_revalidates(byte_paths, anon_client, spelled):
    path = byte_paths[1]
    etag = anon_client.get(path)["ETag"]
    response = anon_client.get(path, HTTP_IF_NONE_MATCH=spelled.format(etag=etag))
    assert response.status_code == 304


def test_if_match_is_honoured_and_if_unmodified_since_ignored(byte_paths, anon_client):
    path = byte_paths[1]
    etag = anon_client.get(path)["ETag"]
    assert anon_client.get(path, HTTP_IF_MATCH=etag).status_code == 200
    failed = anon_client.get(path, HTTP_IF_MATCH='"other"')
    assert failed.status_code == 412
    assert failed.json()["detail"].startswith("Precondition failed")
    assert failed["ETag"] == etag
    # Stored bytes have no modification date: the header is ignored (RFC 9110 13.1.4).
    since = anon_client.get(path, HTTP_IF_UNMODIFIED_SINCE="Sat, 01 Jan 2000 00:00:00 GMT")
    assert since.status_code == 200


def test_the_version_counts_however_the_query_string_spells_it(byte_paths, anon_client):
    path = byte_paths[1]
    version = anon_client.get(path)["ETag"].strip('"')[:VERSION_LENGTH]
    expected = {
        f"{path}?v={version}": IMMUTABLE,
        f"{path}?%76={version}": IMMUTABLE,  # a percent-encoded key is still "v"
        f"{path}?size=1&v={version}": IMMUTABLE,
        f"{path}?v=0000000000000000": REVALIDATE,
        f"{path}?nav={version}": REVALIDATE,
        f"{path}?v": REVALIDATE,
        f"{path}?size=1": REVALIDATE,
        path: REVALIDATE,
    }
    for url, cache_control in expected.items():
        assert anon_client.get(url)["Cache-Control"] == cache_control, url


def test_a_revalidation_someone_counts_is_one_counted_query(anon_client, db):
    path = stored_thumbnail()
    etag = anon_client.get(path)["ETag"]
    with CaptureQueriesContext(connection) as captured:
        assert anon_client.get(path, HTTP_IF_NONE_MATCH=etag).status_code == 304
    assert len(captured.captured_queries) == 1
