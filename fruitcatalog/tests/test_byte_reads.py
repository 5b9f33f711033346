"""Every byte path's read: one indexed query of metadata, no client lookup, bytes read once."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from catalog.models import FruitImage
from catalog.tests.factories import FruitFactory
from fruitcatalog.blobs.tests.media import make_object_png, make_pdf_bytes
from fruitcatalog.tests.queries import reading_no_bytes, selected_blob_columns
from publications.models import PublicationFruitImage
from publications.services import publication_fruit_set_description, publication_link_fruit
from publications.tests.factories import PublicationFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def byte_paths():
    """One path of each kind of stored bytes, each with bytes of its own."""
    fruit = FruitFactory()
    image = FruitImage.objects.create(fruit=fruit, data=make_object_png(size=(120, 100)))
    publication = PublicationFactory(cover_data=make_object_png(size=(130, 100)))
    link, _ = publication_link_fruit(publication=publication, fruit=fruit)
    publication_fruit_set_description(link=link, data=make_pdf_bytes())
    fruit_image = PublicationFruitImage.objects.create(
        link=link, data=make_object_png(size=(140, 100), box=(10, 10, 99, 69))
    )
    pub = f"/api/v1/publications/{publication.pk}"
    return [
        f"/api/v1/fruits/{fruit.pk}/images/{image.pk}",
        f"/api/v1/fruits/{fruit.pk}/images/{image.pk}/thumbnail",
        f"{pub}/cover",
        f"{pub}/fruits/{fruit.pk}/description",
        f"{pub}/fruit-images/{fruit_image.pk}",
        f"{pub}/fruit-images/{fruit_image.pk}/thumbnail",
    ]


def test_a_body_reads_its_bytes_once_and_never_looks_up_the_client(byte_paths, curator_client):
    # A curator's token on a public read is not looked up: no session, no token, no user query.
    for path in byte_paths:
        with CaptureQueriesContext(connection) as first:
            body = curator_client.get(path).content
        assert body
        assert len(first.captured_queries) == 2, [q["sql"] for q in first]  # metadata, bytes
        assert selected_blob_columns(first.captured_queries[1:]), path
        # The same bytes again come from the process's cache, by their hash: metadata only.
        with reading_no_bytes() as again:
            response = curator_client.get(path)
        assert response.status_code == 200
        assert response.content == body
        assert len(again.captured_queries) == 1, path


def test_replaced_bytes_are_never_served_from_the_cache(byte_paths, anon_client):
    path = byte_paths[0]  # a fruit image
    before = anon_client.get(path).content
    image = FruitImage.objects.get(pk=int(path.rsplit("/", 1)[1]))
    replacement = make_object_png(size=(90, 70))
    image.set_data(replacement)
    image.save()
    assert before != replacement
    assert anon_client.get(path).content == replacement
    image.delete()
    assert anon_client.get(path).status_code == 404


def test_a_304_and_a_head_are_one_query_of_metadata(byte_paths, anon_client):
    for path in byte_paths:
        etag = anon_client.get(path)["ETag"]
        for method, headers in (("get", {"HTTP_IF_NONE_MATCH": etag}), ("head", {})):
            with reading_no_bytes() as captured:
                response = getattr(anon_client, method)(path, **headers)
            assert response.status_code == (304 if headers else 200), (method, path)
            assert len(captured.captured_queries) == 1, (method, path)


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
    """Byte reads skip the connection's health check; a dead connection is retried instead."""
    if connection.vendor != "postgresql":
        pytest.skip("a server-side disconnect needs PostgreSQL")
    fruit = FruitFactory()
    image = FruitImage.objects.create(fruit=fruit, data=make_object_png())
    path = f"/api/v1/fruits/{fruit.pk}/images/{image.pk}/thumbnail"
    assert anon_client.get(path).status_code == 200
    # The server ends this session, as a restart would; the client does not know yet.
    pid = connection.connection.info.backend_pid
    with connections_other() as other, other.cursor() as cursor:
        cursor.execute("SELECT pg_terminate_backend(%s)", [pid])
    assert anon_client.get(path).status_code == 200
    assert connection.connection.info.backend_pid != pid


def connections_other():
    """A second connection to the test database, closed after use."""
    from contextlib import closing

    from django.db import connections

    return closing(connections.create_connection("default"))


def test_byte_reads_answer_any_origin_without_credentials(byte_paths, anon_client):
    for path in byte_paths:
        for headers in ({"HTTP_ORIGIN": "https://cards.example"}, {}):
            response = anon_client.get(path, **headers)
            assert response["Access-Control-Allow-Origin"] == "*", path
            assert "ETag" in response["Access-Control-Expose-Headers"]
            assert "Access-Control-Allow-Credentials" not in response
    missing = anon_client.get(byte_paths[0] + "9", HTTP_ORIGIN="https://cards.example")
    assert missing.status_code == 404
    assert missing["Access-Control-Allow-Origin"] == "*"


def change_before_the_bytes_are_read(monkeypatch, change):
    """Run `change` between a read's metadata query and its bytes query (a racing write)."""
    from fruitcatalog.blobs import reads

    real = reads._fetch_one

    def fetch(sql, params, *, binary=False):
        if binary:
            monkeypatch.setattr(reads, "_fetch_one", real)
            change()
        return real(sql, params, binary=binary)

    monkeypatch.setattr(reads, "_fetch_one", fetch)


@pytest.mark.parametrize("race", ["delete", "replace"])
def test_a_read_racing_a_write_is_a_404_and_caches_nothing_wrong(anon_client, monkeypatch, race):
    fruit, other = FruitFactory(), FruitFactory()
    original, replacement = make_object_png(size=(120, 100)), make_object_png(size=(90, 70))
    image = FruitImage.objects.create(fruit=fruit, data=original)

    def change():
        if race == "delete":
            FruitImage.objects.filter(pk=image.pk).delete()
        else:
            current = FruitImage.objects.get(pk=image.pk)
            current.set_data(replacement)
            current.save()

    change_before_the_bytes_are_read(monkeypatch, change)
    assert anon_client.get(f"/api/v1/fruits/{fruit.pk}/images/{image.pk}").status_code == 404
    # The same bytes stored again are served as themselves, not what the race saw.
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
