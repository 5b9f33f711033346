"""The read path of byte endpoints: plain Django views, one indexed query per answer.

Byte reads are the requests a card grid makes most (two dozen thumbnails per page view), so they
skip DRF's dispatch: no content negotiation, no authentication (reads are public, and nothing here
touches `request.user`, so neither the session nor a token is looked up), no model instances.
A read is one query of the row's metadata (compiled once per process; on PostgreSQL, outside a
transaction, sent by libpq itself as a statement prepared once per connection:
`DirectStatement`), and `blob_answer` answers 200, 304 or HEAD as every byte endpoint does,
cached for good when the URL's `?v=` names the bytes served (the fallback's, when a thumbnail
falls back to its image) and `no-cache` otherwise. A body comes from `BYTES_CACHE`, the
recently served bytes of this process keyed by their SHA-256 — the metadata query has just named
the current hash, so a cached copy is never stale — or else from a second query that reads the
byte column in PostgreSQL's binary format. Writes and `OPTIONS` on the same path go to the DRF
view (`byte_path`).

The service's WSGI application answers these reads in front of Django's handler
(`fruitcatalog.blobs.wsgi.ByteReadApplication`, a `fruitcatalog.fronts.ReadFront`); where it is
not installed (the test client, a server given Django's own application), `ByteReadMiddleware`
answers them before the rest of the middleware stack (sessions, CSRF, authentication,
messages: none of which a public byte read uses). The URLconf still decides which paths are
byte paths.

What a thumbnail 304 costs, measured on the bench machine (2 cores, gunicorn's 3 sync workers,
wrk with 16 connections, beside WhiteNoise in the same run): about 45 µs of the process's CPU
for the front's own work (matching, host check, headers), and for the query about 140 µs
through Django's cursor against about 70 through libpq — which took thumbnail 304s from 0.50x
to 0.54x of WhiteNoise, and 200s from 0.61x to 0.81x, in one A/B run.
"""

import functools
import threading
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field

from django.conf import settings
from django.db import InterfaceError, OperationalError, connection
from django.db.models import QuerySet
from django.db.models.functions import Length
from django.http import HttpResponse
from django.urls import Resolver404, URLPattern, get_resolver

from fruitcatalog.blobs.content_types import extension_for
from fruitcatalog.blobs.models import StoredBytes
from fruitcatalog.blobs.responses import Blob, blob_answer
from fruitcatalog.directreads import DirectStatement, fetch_all, run_read
from fruitcatalog.exceptions import database_error_response, is_lost_race, json_not_found
from fruitcatalog.fronts import Answer, as_answer, frame_options_header, http_response

READ_METHODS = frozenset({"GET", "HEAD"})


# Stand-ins for the path's ids while a read's SQL is compiled (far above any real id).
_SENTINEL = 7_340_000_000_000_001


class BytesCache:
    """Recently served bytes by SHA-256, least recently used first out, within a byte budget.

    Content-addressed, so an entry is never stale: a replaced image has another hash, and a
    deleted one is never asked for (its metadata query finds no row). The budget is
    `FRUITCATALOG_BYTES_CACHE_BYTES` per process; a value over a quarter of it is not kept.
    """

    def __init__(self):
        self._entries: OrderedDict[str, bytes] = OrderedDict()
        self._size = 0
        self._lock = threading.Lock()

    def get(self, sha256: str) -> bytes | None:
        with self._lock:
            data = self._entries.get(sha256)
            if data is not None:
                self._entries.move_to_end(sha256)
            return data

    def put(self, sha256: str, data: bytes) -> None:
        budget = settings.FRUITCATALOG_BYTES_CACHE_BYTES
        if len(data) > budget // 4:
            return
        with self._lock:
            if sha256 in self._entries:
                return
            self._entries[sha256] = data
            self._size += len(data)
            while self._size > budget:
                _, evicted = self._entries.popitem(last=False)
                self._size -= len(evicted)

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()
            self._size = 0


BYTES_CACHE = BytesCache()


@dataclass(frozen=True)
class _Statement:
    """A read compiled once: its SQL, where each parameter comes from, what each column is."""

    sql: str
    params: tuple  # a path keyword (str) per parameter, or a constant wrapped in a 1-tuple
    columns: tuple[str, ...]
    model: type  # the model of the row
    direct: "DirectStatement | None"  # the same SQL for libpq, when its parameters allow

    def fetch(self, kwargs: dict) -> dict | None:
        params = [int(kwargs[p]) if isinstance(p, str) else p[0] for p in self.params]
        row = _fetch_one(self.sql, params, direct=self.direct)
        return None if row is None else dict(zip(self.columns, row, strict=True))


@dataclass(frozen=True)
class ByteRead:
    """How to find one kind of stored bytes from a URL: the row, its byte group, its file name.

    `rows(kwargs)` filters to the one row the path names (parent included, so a path with the
    wrong parent is a 404); `stem(kwargs)` names the file without extension; `fallback` is served
    when the row has no bytes in `spec` (a thumbnail that was never made: the image itself).
    The ORM builds each shape of the query once per process; requests only execute it.
    """

    rows: Callable[[dict], QuerySet]
    spec: StoredBytes
    stem: Callable[[dict], str]
    fallback: StoredBytes | None = None
    _statements: dict = field(default_factory=dict, init=False, repr=False, compare=False)

    def __call__(self, request, **kwargs) -> HttpResponse:
        return http_response(self.respond(request, kwargs))

    def respond(self, request, kwargs: dict) -> Answer:
        """The answer to a GET or HEAD of the path with these keywords, whatever it is.

        The bytes (200, 304, HEAD), a JSON 404, or the JSON 503 of a database that cannot be
        reached; a lost race (deadlock, serialization failure) is raised for the caller's usual
        handling. `ByteReadMiddleware`, the WSGI front and the DRF view all answer with this.
        """
        try:
            answer = self._answer(request, kwargs)
        except (OperationalError, InterfaceError) as error:
            if is_lost_race(error):
                raise
            return as_answer(database_error_response(error, request.path))
        return as_answer(json_not_found(request)) if answer is None else answer

    def _answer(self, request, kwargs: dict) -> Answer | None:
        """The bytes' answer; None for a 404."""
        for spec in (self.spec, self.fallback):
            if spec is None:
                break
            statement = self._statement(spec, kwargs, request.method == "HEAD")
            row = statement.fetch(kwargs)
            if row is None:
                return None
            if row["sha256"]:
                try:
                    return blob_answer(request, self._blob(statement.model, spec, row, kwargs))
                except Replaced:  # deleted or replaced since its metadata was read
                    return None
        return None

    def _statement(self, spec, kwargs, with_size: bool) -> _Statement:
        key = (spec.name, with_size, tuple(sorted(kwargs)))
        statement = self._statements.get(key)
        if statement is None:
            statement = self._statements[key] = self._compile(spec, key[2], with_size)
        return statement

    def _compile(self, spec, names, with_size: bool) -> _Statement:
        stand_ins = {name: _SENTINEL + index for index, name in enumerate(names)}
        rows = self.rows({name: str(value) for name, value in stand_ins.items()})
        values, columns = _values(rows, spec, with_size=with_size)
        query = values.order_by()[:1].query
        sql, params = query.sql_with_params()
        by_value = {value: name for name, value in stand_ins.items()}
        order = [*query.extra_select, *query.values_select, *query.annotation_select]
        plain = {column: name for name, column in columns.items()}
        sources = tuple(by_value.get(value, (value,)) for value in params)
        return _Statement(
            sql=sql,
            params=sources,
            columns=tuple(plain[column] for column in order),
            model=rows.model,
            direct=DirectStatement.of(sql, sources),
        )

    def _blob(self, model, spec: StoredBytes, row: dict, kwargs: dict) -> Blob:
        content_type = row.get("content_type") or spec.fixed_content_type
        stem = self.stem(kwargs)
        if spec.derived:
            stem = f"{stem}-{spec.prefix}"
        return Blob(
            content_type=content_type,
            size=row.get("size") or 0,
            sha256=row["sha256"],
            filename=f"{stem}.{extension_for(content_type)}",
            load=functools.partial(_load, model, spec, row["pk"], row["sha256"]),
        )


def _values(rows: QuerySet, spec: StoredBytes, *, with_size: bool):
    """The query of one byte group's metadata, and its plain name -> column names."""
    columns = {"pk": "pk", "sha256": spec.column("sha256")}
    if spec.fixed_content_type is None:
        columns["content_type"] = spec.column("content_type")
    if spec.sized:
        columns["size"] = spec.column("size")
    if with_size and not spec.sized:
        # LENGTH() reads the stored size of the value, not its bytes.
        columns["size"] = "_size"
        rows = rows.annotate(_size=Length(spec.data_field))
    return rows.values(*columns.values()), columns


class Replaced(Exception):
    """The bytes whose metadata was just read are gone: the row was deleted or given new bytes."""


def _load(model, spec: StoredBytes, pk: int, sha256: str) -> bytes:
    """The bytes with this hash: from this process's cache, or read (and kept there).

    The read asks for the row *with this hash*, so bytes replaced or deleted since the metadata
    query are never served, nor cached under the old hash: `Replaced`, which the view answers
    as the row it now is (404).
    """
    data = BYTES_CACHE.get(sha256)
    if data is None:
        sql, order = _bytes_query(model, spec)
        values = {_SENTINEL: pk, _SHA_SENTINEL: sha256}
        row = _fetch_one(sql, [values[stand_in] for stand_in in order], binary=True)
        if row is None or not row[0]:
            raise Replaced
        data = bytes(row[0])
        BYTES_CACHE.put(sha256, data)
    return data


_SHA_SENTINEL = "stand-in for the hash"


@functools.cache
def _bytes_query(model, spec: StoredBytes) -> tuple[str, tuple]:
    """The SQL reading one byte column by primary key and hash, and its parameters' order."""
    rows = model._base_manager.filter(pk=_SENTINEL, **{spec.column("sha256"): _SHA_SENTINEL})
    query = rows.values_list(spec.data_field).order_by().query
    sql, params = query.sql_with_params()
    assert sorted(map(str, params)) == sorted(map(str, (_SENTINEL, _SHA_SENTINEL))), params
    return sql, params


def _fetch_one(sql: str, params: list, *, binary: bool = False, direct=None):
    """One row of a read (`run_read`), or None.

    `direct`: the same query for libpq, run that way when the connection allows (`fetch_all`).
    `binary`: a byte column's read, through a cursor asked for binary results.
    """
    if binary:
        return run_read(lambda db: _fetch_binary(db, sql, params))
    rows = run_read(lambda db: fetch_all(db, sql, params, direct))
    return rows[0] if rows else None


def _fetch_binary(db, sql: str, params: list):
    with db.cursor() as cursor:
        _ask_for_binary_results(cursor)
        cursor.execute(sql, params)
        return cursor.fetchone()


def _ask_for_binary_results(cursor) -> None:
    """Have PostgreSQL send bytea as bytes, not as hex text to decode (3x faster for 2.5 MB).

    psycopg's cursors take a result format; its client-side-binding cursor has none to give.
    """
    raw = getattr(cursor, "cursor", None)
    if connection.vendor == "postgresql" and hasattr(raw, "format"):
        from psycopg import ClientCursor, pq

        if not isinstance(raw, ClientCursor):
            raw.format = pq.Format.BINARY


def byte_path(read: "ByteRead", view: Callable) -> Callable:
    """Mark the DRF view of a byte path with its read, which `ByteReadMiddleware` answers.

    The view keeps serving the path's other methods and the OpenAPI schema; its own `get`
    calls the same read, for a stack without the middleware.
    """
    view.byte_read = read
    return view


class ByteReadMiddleware:
    """GET and HEAD of a byte path (a view marked by `byte_path`), answered here and now.

    Place it after the security headers and WhiteNoise, before CORS, sessions and
    authentication; it checks the host and adds `X-Frame-Options` as the skipped middleware
    would. Paths are resolved against `FRUITCATALOG_BYTE_URLCONF`, the byte paths alone. These
    are public reads for any origin without credentials, so every answer carries
    `Access-Control-Allow-Origin: *` (one cacheable variant for every origin) itself. A database
    that cannot be reached is the same JSON 503 as anywhere else.
    """

    def __init__(self, get_response):
        self.get_response = get_response
        self.headers = dict(read_headers())

    def __call__(self, request):
        path = request.path_info
        if request.method not in READ_METHODS or not path.startswith("/api/"):
            return self.get_response(request)
        found = match_byte_path(path)
        if found is None:
            return self.get_response(request)
        read, kwargs = found
        request.get_host()  # ALLOWED_HOSTS, as CommonMiddleware checks (DisallowedHost: a 400)
        response = read(request, **kwargs)
        headers = response.headers
        for name, value in self.headers.items():
            headers[name] = value
        return response


def read_headers() -> list[tuple[str, str]]:
    """What every answer to a byte read carries besides its own headers and the security ones.

    What the middleware a read skips would add (`X-Frame-Options`), and CORS for any origin.
    """
    return [
        ("Access-Control-Allow-Origin", "*"),
        ("Access-Control-Expose-Headers", ", ".join(settings.CORS_EXPOSE_HEADERS)),
        frame_options_header(),
    ]


# The byte URLconf's resolver and its byte paths (`_byte_routes`), as last found.
_routes: tuple = (None, None)


def match_byte_path(path: str) -> tuple[ByteRead, dict] | None:
    """The read of a byte path and the path's keywords, or None for any other path.

    What `resolve()` would find in `FRUITCATALOG_BYTE_URLCONF`, without building a
    `ResolverMatch`: the URLconf is a flat list of patterns (fruitcatalog/byte_urls.py), tried in
    order here as the resolver would; any other shape of URLconf is resolved as usual.
    """
    global _routes
    resolver = get_resolver(settings.FRUITCATALOG_BYTE_URLCONF)
    cached, routes = _routes
    if cached is not resolver:  # first use, or the URLconf changed (tests)
        routes = _byte_routes(resolver)
        _routes = (resolver, routes)
    if routes is None:
        try:
            match = resolver.resolve(path)
        except Resolver404:
            return None
        return match.func.byte_read, match.kwargs
    root = resolver.pattern.match(path)
    if root is not None:
        rest = root[0]
        for pattern, read, defaults in routes:
            found = pattern.match(rest)
            if found is not None:
                return read, ({**found[2], **defaults} if defaults else found[2])
    return None


def _byte_routes(resolver) -> list | None:
    """(pattern, read, default keywords) of each byte path; None unless the list is flat."""
    routes = []
    for entry in resolver.url_patterns:
        read = getattr(getattr(entry, "callback", None), "byte_read", None)
        if not isinstance(entry, URLPattern) or read is None:
            return None
        routes.append((entry.pattern, read, entry.default_args))
    return routes
