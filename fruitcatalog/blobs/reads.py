"""The read path of byte endpoints: plain Django views, one indexed query per answer.

Byte reads are the requests a card grid makes most (two dozen thumbnails per page view), so they
skip DRF's dispatch: no content negotiation, no authentication (reads are public, and nothing here
touches `request.user`, so neither the session nor a token is looked up), no model instances.
A read is one query of the row's metadata (compiled once per process; on PostgreSQL, outside a
transaction, sent by libpq itself as a statement prepared once per connection:
`_DirectStatement`), and `blob_answer` answers 200, 304 or HEAD as every byte endpoint does,
cached for good when the URL's `?v=` names the bytes served (the fallback's, when a thumbnail
falls back to its image) and `no-cache` otherwise. A body comes from `BYTES_CACHE`, the
recently served bytes of this process keyed by their SHA-256 — the metadata query has just named
the current hash, so a cached copy is never stale — or else from a second query that reads the
byte column in PostgreSQL's binary format. Writes and `OPTIONS` on the same path go to the DRF
view (`byte_path`).

The service's WSGI application answers these reads in front of Django's handler
(`fruitcatalog.blobs.wsgi.ByteReadApplication`); where it is not installed (the test client, a
server given Django's own application), `ByteReadMiddleware` answers them before the rest of the
middleware stack (sessions, CSRF, authentication, messages: none of which a public byte read
uses). The URLconf still decides which paths are byte paths.

What a thumbnail 304 costs, measured on the bench machine (2 cores, gunicorn's 3 sync workers,
wrk with 16 connections, beside WhiteNoise in the same run): about 45 µs of the process's CPU
for the front's own work (matching, host check, headers), and for the query about 140 µs
through Django's cursor against about 70 through libpq — which took thumbnail 304s from 0.50x
to 0.54x of WhiteNoise, and 200s from 0.61x to 0.81x, in one A/B run.
"""

import functools
import itertools
import os
import re
import secrets
import threading
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field

from django.conf import settings
from django.db import DEFAULT_DB_ALIAS, InterfaceError, OperationalError, connection, connections
from django.db.models import QuerySet
from django.db.models.functions import Length
from django.http import HttpResponse
from django.urls import Resolver404, URLPattern, get_resolver

from fruitcatalog.blobs.content_types import extension_for
from fruitcatalog.blobs.models import StoredBytes
from fruitcatalog.blobs.responses import Answer, Blob, as_answer, blob_answer, http_response
from fruitcatalog.exceptions import database_error_response, is_lost_race, json_not_found

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
    direct: "_DirectStatement | None"  # the same SQL for libpq, when its parameters allow

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
            direct=_DirectStatement.of(sql, sources),
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


def run_read(read: Callable, *, using: str = DEFAULT_DB_ALIAS):
    """`read(db)`, without the connection's health check (`SELECT 1`) before its first query.

    A persistent connection is checked before a request's first query; for a read that is a
    second round trip as costly as the read. Instead the read runs at once, and should the
    reused connection turn out dead (the server restarted), it is closed and the read runs once
    more on a new one — the same outcome, paid only when it happens. `read` only reads.
    """
    db = connections[using]
    reused = db.connection is not None and not db.in_atomic_block
    if reused:
        db.health_check_done = True
    try:
        return read(db)
    except (InterfaceError, OperationalError):
        # Only a dead connection is retried: a timeout or a lock is the database's answer.
        if not reused or db.is_usable():
            raise
        db.close()
        return read(db)


def _fetch_one(sql: str, params: list, *, binary: bool = False, direct=None):
    """One row of a read (`run_read`).

    `direct`: the same query for libpq, run that way when the connection allows
    (`_DirectStatement`).
    """
    return run_read(lambda db: _execute(db, sql, params, binary, direct))


def fetch_all(db, sql: str, params: list, direct: "_DirectStatement | None") -> list[tuple]:
    """Every row of a read's query on `db`, through libpq where the connection allows.

    `direct` is the same query in libpq's form (`direct_statement`); without it, or where
    `_runs_direct` does not allow it, the query goes through Django's cursor.
    """
    rows = _on_libpq(db, direct, lambda session: session.fetch_all(direct, params))
    if rows is not _NOT_DIRECT:
        return rows
    with db.cursor() as cursor:
        cursor.execute(sql, params)
        return cursor.fetchall()


def direct_statement(sql: str, params: list, constant: Callable[[int], bool]):
    """`sql` in libpq's form for `fetch_all`, or None when its parameters do not allow it.

    `constant(i)`: whether parameter `i` is always `params[i]`; the others are integers given
    at each run.
    """
    sources = tuple(
        (value,) if constant(index) else "given" for index, value in enumerate(params)
    )
    return _DirectStatement.of(sql, sources)


def _execute(db, sql: str, params: list, binary: bool, direct):
    row = _on_libpq(db, direct, lambda session: session.fetch_one(direct, params))
    if row is not _NOT_DIRECT:
        return row
    with db.cursor() as cursor:
        if binary:
            _ask_for_binary_results(cursor)
        cursor.execute(sql, params)
        return cursor.fetchone()


_NOT_DIRECT = object()


def _on_libpq(db, direct, run):
    """`run(session)` on the connection's `_LibpqSession` if allowed, else `_NOT_DIRECT`.

    Allowed where `_runs_direct` says so; psycopg's errors are raised as Django's, as a
    cursor raises them.
    """
    if direct is None or not _runs_direct(db):
        return _NOT_DIRECT
    session = _LibpqSession.of(db.connection)
    if session is None:
        return _NOT_DIRECT
    try:
        return run(session)
    except Exception:
        with db.wrap_database_errors:
            raise


def _runs_direct(db) -> bool:
    """Whether a read may go to libpq itself (`_DirectStatement`) rather than through a cursor.

    Only on an open PostgreSQL connection in autocommit, outside any transaction, that nothing
    watches: no query logging (debug, or a test counting queries), no execute wrappers, not
    shared between threads. Anywhere else the read takes Django's cursor, as any query does.
    """
    return (
        db.vendor == "postgresql"
        and db.connection is not None
        and db.connection.autocommit  # psycopg's own: it would send no BEGIN before the query
        and not db.in_atomic_block
        and not db.queries_logged
        and not db.execute_wrappers
        and not db.allow_thread_sharing
    )


_PLACEHOLDER = re.compile(r"%(.)", re.DOTALL)
_DIRECT_NAMES = itertools.count(1)
# In each statement's name beside this process's id: a name met again on a server session (a
# pooled connection) is this process's, for the same SQL, even behind a pooler that hands one
# session to processes on several hosts.
_DIRECT_NONCE = secrets.token_hex(4)
# SQLSTATEs of a prepared statement that does not exist (any more), and of one that already does.
_NO_SUCH_STATEMENT = b"26000"
_STATEMENT_EXISTS = b"42P05"


@dataclass(frozen=True)
class _DirectStatement:
    """A read's query sent by libpq itself: the same messages on the same socket, less work.

    A 304 is one query and headers, and the query through Django's cursor and psycopg's execute
    path (its generators, its prepared statements' bookkeeping) took about 100 µs of the
    client's CPU per read on the bench machine; libpq's blocking `PQexecPrepared`, the same
    Bind/Execute/Sync on the same connection, about 20. So where `_runs_direct` allows, the
    read is a named statement of its own, prepared once per connection (unnamed when the
    connection prepares nothing: `DATABASE_PREPARE_THRESHOLD=0`, for PgBouncer), and its row is
    loaded by the connection's own psycopg loaders, as a cursor would. Parameters are integers
    (the ids of the path) or constant strings, sent as text.
    """

    command: bytes  # the SQL with $1, $2... for %s
    name: bytes  # of the prepared statement: one SQL per name (`_DIRECT_NONCE`)

    @classmethod
    def of(cls, sql: str, sources: tuple) -> "_DirectStatement | None":
        """The libpq form of `sql`, or None unless each parameter is given or a constant.

        Given parameters are integers; constants are integers or strings.
        """
        if not all(
            isinstance(source, str) or _sent_as_text(source[0]) is not None for source in sources
        ):
            return None
        numbers = itertools.count(1)
        unknown = []

        def placeholder(match):
            if match.group(1) == "%":
                return "%"
            if match.group(1) != "s":
                unknown.append(match.group(0))
            return f"${next(numbers)}"

        command = _PLACEHOLDER.sub(placeholder, sql)
        if unknown or next(numbers) != len(sources) + 1:
            return None
        name = f"fruitcatalog_read_{_DIRECT_NONCE}_{os.getpid()}_{next(_DIRECT_NAMES)}"
        return cls(command.encode(), name.encode())


# Types Django loads from text its own way (django/db/backends/postgresql/psycopg_any.py):
# jsonb, inet and cidr as strings; timestamptz naive without USE_TZ. In binary psycopg's own
# loaders would apply (a dict, an address, an aware datetime).
_TEXT_ONLY_TYPES = frozenset({3802, 869, 650})
_TIMESTAMPTZ = 1184


def _sent_as_text(value) -> bytes | None:
    """A parameter as libpq sends it in text format: an integer's digits, a string's UTF-8."""
    if isinstance(value, int) and not isinstance(value, bool):
        return b"%d" % value
    if isinstance(value, str):
        return value.encode()
    return None


class _LibpqSession:
    """What direct reads keep on one psycopg connection (a session on the server): the
    statements prepared on it, and a loader with its adapters.

    Kept on the psycopg connection itself, so a new connection (closed for its age, after an
    error, by a restart) starts with none, and a pooled one keeps what its session has.
    """

    ATTRIBUTE = "_fruitcatalog_direct_reads"

    def __init__(self, raw):
        from psycopg import pq
        from psycopg.adapt import Transformer

        self.raw = raw
        self.pgconn = raw.pgconn
        self.prepared: set[bytes] = set()
        self.text_results: set[bytes] = set()  # statements whose rows are loaded from text
        self.loader = Transformer.from_context(raw)
        self.tuples = pq.ExecStatus.TUPLES_OK
        self.succeeded = (pq.ExecStatus.TUPLES_OK, pq.ExecStatus.COMMAND_OK)

    @classmethod
    def of(cls, raw) -> "_LibpqSession | None":
        """The session of psycopg connection `raw`; None for a connection of psycopg 2."""
        session = getattr(raw, cls.ATTRIBUTE, None)
        if session is None:
            if not hasattr(raw, "pgconn"):
                return None
            session = cls(raw)
            setattr(raw, cls.ATTRIBUTE, session)
        return session

    def fetch_one(self, statement: _DirectStatement, params: list):
        """The first row of `statement` (a tuple) or None; errors are psycopg's."""
        result = self._execute(statement, params)
        if not result.ntuples:
            return None
        self.loader.set_pgresult(result)
        return self.loader.load_row(0, tuple)

    def _execute(self, statement: _DirectStatement, params: list, result_format: int = 0):
        """The successful result of `statement` with these parameters (rows in this format)."""
        values = [_sent_as_text(value) for value in params]
        if None in values:
            raise TypeError(f"A direct read takes integers and strings, not {params!r}.")
        if self.raw.prepare_threshold is None:  # the connection prepares nothing
            result = self.pgconn.exec_params(
                statement.command, values, result_format=result_format
            )
        elif statement.name in self.prepared:
            result = self.pgconn.exec_prepared(statement.name, values, result_format=result_format)
            if result.status != self.tuples and self._sqlstate(result) == _NO_SUCH_STATEMENT:
                # `DISCARD ALL` or `DEALLOCATE ALL` ran on this session since.
                self.prepared.clear()
                result = self._prepare_and_execute(statement, values, result_format)
        else:
            result = self._prepare_and_execute(statement, values, result_format)
        if result.status != self.tuples:
            self.check(result)
        return result

    def fetch_all(self, statement: _DirectStatement, params: list) -> list[tuple]:
        """Every row of `statement`; errors are psycopg's.

        The rows come in binary format, loaded by psycopg's C loaders: Django's own loader of
        `timestamptz` text is Python, about 6 µs a value, most of a list page's loading. A
        statement with a column whose binary value psycopg loads otherwise than Django's text
        loader (`_TEXT_ONLY_TYPES`) is run again in text and, from then on, always in text.
        """
        text = statement.name in self.text_results
        result = self._execute(statement, params, result_format=0 if text else 1)
        if not text and any(map(self._text_only, map(result.ftype, range(result.nfields)))):
            self.text_results.add(statement.name)
            result = self._execute(statement, params, result_format=0)
        self.loader.set_pgresult(result)
        return self.loader.load_rows(0, result.ntuples, tuple)

    def _text_only(self, oid: int) -> bool:
        """Whether rows with this type must be loaded from text, as Django's cursor does."""
        if oid in _TEXT_ONLY_TYPES or (oid == _TIMESTAMPTZ and not settings.USE_TZ):
            return True
        from psycopg.pq import Format

        # A type without a binary loader would be loaded as bytes (as text: a string).
        return self.loader.adapters.get_loader(oid, Format.BINARY) is None

    def _prepare_and_execute(self, statement: _DirectStatement, values: list, result_format):
        prepared = self.pgconn.prepare(statement.name, statement.command)
        if self._sqlstate(prepared) != _STATEMENT_EXISTS:  # the same name is the same SQL
            self.check(prepared)
        self.prepared.add(statement.name)
        return self.pgconn.exec_prepared(statement.name, values, result_format=result_format)

    def check(self, result) -> None:
        """Raise what psycopg would for a result that is not a success."""
        if result.status in self.succeeded:
            return
        from psycopg import OperationalError as LostConnection
        from psycopg import pq
        from psycopg.errors import error_from_result

        if self.pgconn.status == pq.ConnStatus.BAD:
            message = self.pgconn.error_message.decode("utf-8", "replace").strip()
            raise LostConnection(f"the connection is lost: {message}")
        raise error_from_result(result, encoding=self.raw.info.encoding)

    def _sqlstate(self, result) -> bytes | None:
        if result.status in self.succeeded:
            return None
        from psycopg import pq

        return result.error_field(pq.DiagnosticField.SQLSTATE)


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
        ("X-Frame-Options", settings.X_FRAME_OPTIONS),
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
