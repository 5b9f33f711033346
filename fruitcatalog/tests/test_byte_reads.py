"""Every byte path's read: one indexed query of metadata, no client lookup, bytes read once."""

import os

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from catalog.models import FruitImage
from catalog.tests.factories import FruitFactory
from fruitcatalog import directreads
from fruitcatalog.blobs import reads
from fruitcatalog.blobs.reads import match_byte_path
from fruitcatalog.blobs.responses import IMMUTABLE, REVALIDATE, VERSION_LENGTH
from fruitcatalog.blobs.tests.media import make_object_png
from fruitcatalog.directreads import DirectStatement, LibpqSession
from fruitcatalog.tests.queries import reading_no_bytes, selected_blob_columns
from fruitcatalog.tests.stored import stored_thumbnail

pytestmark = pytest.mark.django_db


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
    path = stored_thumbnail()
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

    def fetch(sql, params, *, binary=False, **options):
        if binary:
            monkeypatch.setattr(reads, "_fetch_one", real)
            change()
        return real(sql, params, binary=binary, **options)

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


def test_a_304_carries_every_header_but_a_content_type(byte_paths, anon_client):
    # Django's default (text/html) would be wrong here, and a cache may merge a 304's headers
    # into the stored response.
    for path in byte_paths:
        etag = anon_client.get(path)["ETag"]
        response = anon_client.get(path, HTTP_IF_NONE_MATCH=etag)
        assert response.status_code == 304, path
        assert "Content-Type" not in response, path
        assert response["ETag"] == etag
        assert response["Cache-Control"] == REVALIDATE
        assert response["Access-Control-Allow-Origin"] == "*"
        assert response["X-Frame-Options"] == "DENY"
        assert response["X-Content-Type-Options"] == "nosniff"  # SecurityMiddleware's
        assert not response.content


@pytest.mark.parametrize("spelled", ["{etag}", "W/{etag}", '"other", {etag}', "*"])
def test_if_none_match_as_a_list_a_weak_tag_or_a_star_revalidates(byte_paths, anon_client, spelled):
    path = byte_paths[1]
    etag = anon_client.get(path)["ETag"]
    response = anon_client.get(path, HTTP_IF_NONE_MATCH=spelled.format(etag=etag))
    assert response.status_code == 304


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


def test_the_read_middleware_finds_the_reads_resolve_finds(byte_paths):
    from django.conf import settings
    from django.urls import Resolver404, resolve

    others = ["/api/v1/fruits/1/images", "/api/v1/fruits/1/images/x", "/api/v1/fruitsx/1/images/2"]
    for path in [*byte_paths, *(f"{path}/" for path in byte_paths), *others]:
        try:
            match = resolve(path, urlconf=settings.FRUITCATALOG_BYTE_URLCONF)
        except Resolver404:
            assert match_byte_path(path) is None, path
        else:
            read, kwargs = match_byte_path(path)
            assert read is match.func.byte_read, path
            assert kwargs == match.kwargs, path


def test_a_byte_urlconf_that_is_not_flat_is_resolved_as_usual(byte_paths, anon_client, settings):
    from types import ModuleType

    from django.urls import include, path

    from fruitcatalog import byte_urls

    nested = ModuleType("nested_byte_urls")
    nested.urlpatterns = [path("", include(byte_urls.urlpatterns))]
    settings.FRUITCATALOG_BYTE_URLCONF = nested
    for byte_path in byte_paths:
        response = anon_client.get(byte_path)
        assert response.status_code == 200, byte_path
        assert response["Access-Control-Allow-Origin"] == "*"  # the read middleware answered
    assert anon_client.get("/api/v1/fruits").status_code == 200
    assert "Access-Control-Allow-Origin" not in anon_client.get("/api/v1/fruits")


# Reads outside a transaction, on PostgreSQL, go to libpq itself (directreads.DirectStatement).


def needs_postgresql():
    if connection.vendor != "postgresql":
        pytest.skip("direct reads are PostgreSQL's")


def direct_session():
    """What direct reads keep on the current psycopg connection (None before the first)."""
    return getattr(connection.connection, LibpqSession.ATTRIBUTE, None)


def prepared_reads() -> list[str]:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT name FROM pg_prepared_statements WHERE name LIKE 'fruitcatalog_read_%%'"
        )
        return [name for (name,) in cursor.fetchall()]


@pytest.mark.django_db(transaction=True)
def test_reads_outside_a_transaction_go_to_libpq_and_answer_alike(anon_client):
    needs_postgresql()
    fruit = FruitFactory()
    original, replacement = make_object_png(size=(120, 100)), make_object_png(size=(90, 70))
    image = FruitImage.objects.create(fruit=fruit, data=original)
    path = f"/api/v1/fruits/{fruit.pk}/images/{image.pk}"
    response = anon_client.get(path)
    assert (response.status_code, response.content) == (200, original)
    assert direct_session().prepared, "the metadata read did not go to libpq"
    assert prepared_reads()
    etag = response["ETag"]
    assert anon_client.get(path, HTTP_IF_NONE_MATCH=etag).status_code == 304
    assert anon_client.head(path)["Content-Length"] == str(len(original))
    assert anon_client.get(f"{path}/thumbnail").status_code == 200
    assert anon_client.get(f"{path}9").status_code == 404
    assert anon_client.get(path.replace(f"/{fruit.pk}/", f"/{fruit.pk + 1}/")).status_code == 404
    image.set_data(replacement)
    image.save()
    assert anon_client.get(path, HTTP_IF_NONE_MATCH=etag).content == replacement
    image.delete()
    assert anon_client.get(path, HTTP_IF_NONE_MATCH=etag).status_code == 404


@pytest.mark.django_db(transaction=True)
def test_a_read_whose_statement_was_deallocated_prepares_it_again(anon_client):
    needs_postgresql()
    path = stored_thumbnail()
    etag = anon_client.get(path)["ETag"]
    with connection.cursor() as cursor:
        cursor.execute("DEALLOCATE ALL")  # as DISCARD ALL, or a pooler's reset, would
    assert direct_session().prepared
    assert anon_client.get(path, HTTP_IF_NONE_MATCH=etag).status_code == 304
    assert prepared_reads()


@pytest.mark.django_db(transaction=True)
def test_a_session_that_has_the_statement_already_uses_it(anon_client):
    """A pooled connection may come back with statements this process prepared on it."""
    needs_postgresql()
    path = stored_thumbnail()
    etag = anon_client.get(path)["ETag"]
    before = prepared_reads()
    delattr(connection.connection, LibpqSession.ATTRIBUTE)  # what was prepared is forgotten
    assert anon_client.get(path, HTTP_IF_NONE_MATCH=etag).status_code == 304
    assert direct_session().prepared
    assert prepared_reads() == before


@pytest.mark.django_db(transaction=True)
def test_a_connection_that_prepares_nothing_gets_unnamed_reads(anon_client):
    """DATABASE_PREPARE_THRESHOLD=0 (for PgBouncer before 1.21): no statement is prepared."""
    needs_postgresql()
    path = stored_thumbnail()
    connection.ensure_connection()
    connection.connection.prepare_threshold = None
    try:
        etag = anon_client.get(path)["ETag"]
        assert anon_client.get(path, HTTP_IF_NONE_MATCH=etag).status_code == 304
        assert direct_session() is not None
        assert prepared_reads() == []
    finally:
        connection.close()  # the next test gets a connection as configured


@pytest.mark.django_db(transaction=True)
def test_a_direct_read_raises_djangos_errors_and_keeps_its_connection():
    needs_postgresql()
    from django.db import DataError

    statement = DirectStatement.of("SELECT 1 / %s", ("divisor",))
    connection.ensure_connection()
    with pytest.raises(DataError):
        reads._fetch_one("SELECT 1 / %s", [0], direct=statement)
    assert reads._fetch_one("SELECT 1 / %s", [1], direct=statement) == (1,)
    assert direct_session().prepared


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("use_tz", [True, False])
def test_rows_through_libpq_are_the_rows_djangos_cursor_gives(settings, use_tz):
    """Binary where psycopg loads a type as Django does, text for the rest (`fetch_all`)."""
    needs_postgresql()
    settings.USE_TZ = use_tz
    connection.close()  # a session set up for this USE_TZ
    connection.ensure_connection()
    try:
        for sql in [
            "SELECT 1::int8, 'x'::varchar, ARRAY['a', 'b']::varchar[], true, 2.5::numeric,"
            " '2026-11-23 08:00:00.5+01'::timestamptz, NULL::int4",  # loaded alike: binary
            # Loaded otherwise from binary (Django's own loaders, float4's precision): text.
            "SELECT 1.1::float4",
            "SELECT '{\"a\": 1}'::jsonb",
            "SELECT '10.0.0.1'::inet",
        ]:
            statement = DirectStatement.of(sql, ())
            direct = directreads.fetch_all(connection, sql, [], statement)
            assert direct_session() is not None  # it went through libpq
            with connection.cursor() as cursor:
                cursor.execute(sql)
                assert direct == cursor.fetchall(), sql
            again = directreads.fetch_all(connection, sql, [], statement)  # the format kept
            assert again == direct, sql
    finally:
        connection.close()


@pytest.mark.django_db(transaction=True)
def test_a_read_someone_counts_is_counted(anon_client):
    """Query logging (DEBUG, CaptureQueriesContext) takes Django's cursor, which logs it."""
    path = stored_thumbnail()
    etag = anon_client.get(path)["ETag"]
    with CaptureQueriesContext(connection) as captured:
        assert anon_client.get(path, HTTP_IF_NONE_MATCH=etag).status_code == 304
    assert len(captured.captured_queries) == 1


def test_reads_in_a_transaction_take_djangos_cursor(byte_paths, anon_client):
    # The test's own rows are uncommitted: only its transaction sees them.
    assert anon_client.get(byte_paths[0]).status_code == 200
    assert connection.in_atomic_block
    assert not directreads.runs_direct(connection)


def test_the_libpq_form_of_a_read_numbers_its_parameters():
    statement = DirectStatement.of(
        """SELECT "a" FROM "t" WHERE "b" = %s AND "c" LIKE 'x%%' AND "d" = %s""", ("id", (3,))
    )
    assert (
        statement.command
        == b"""SELECT "a" FROM "t" WHERE "b" = $1 AND "c" LIKE 'x%' AND "d" = $2"""
    )
    other = DirectStatement.of("SELECT %s", ("id",))
    assert other.name != statement.name
    assert f"_{os.getpid()}_".encode() in other.name  # no other process has the same name
    # Constant strings go as text too; anything else stays with Django's cursor.
    assert DirectStatement.of("SELECT %s", (("text",),)) is not None
    assert DirectStatement.of("SELECT %s", ((True,),)) is None
    assert DirectStatement.of("SELECT %s", ((b"bytes",),)) is None
    assert DirectStatement.of("SELECT %s", ((1.5,),)) is None
    assert DirectStatement.of("SELECT %(id)s", ("id",)) is None
    assert DirectStatement.of("SELECT %s, %s", ("id",)) is None
