"""Reads that skip the ORM's per-request work: no health check, no cursor where libpq will do.

The fronts (`fruitcatalog.blobs.wsgi`, `fruitcatalog.listreads`) answer the service's most
frequent reads with SQL the ORM compiled once; what is left of a request is running it. Through
Django's cursor and psycopg's execute path that is about 140 µs of the client's CPU a query on
the bench machine; through libpq's own `PQexecPrepared`, the same messages on the same socket,
about 70 (`DirectStatement`, `LibpqSession`). `run_read` runs a read without the health check
(`SELECT 1`) Django sends before a request's first query, retrying once on a dead connection
instead; `fetch_all` runs a query through libpq where `runs_direct` allows, else through
Django's cursor, as any query.
"""

import itertools
import os
import re
import secrets
from collections.abc import Callable
from dataclasses import dataclass

from django.conf import settings
from django.db import DEFAULT_DB_ALIAS, InterfaceError, OperationalError, connections


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


def fetch_all(db, sql: str, params: list, direct: "DirectStatement | None") -> list[tuple]:
    """Every row of a read's query on `db`, through libpq where the connection allows.

    `direct` is the same query in libpq's form (`direct_statement`); without it, or where
    `runs_direct` does not allow it, the query goes through Django's cursor.
    """
    session = LibpqSession.of(db.connection) if direct is not None and runs_direct(db) else None
    if session is not None:
        try:
            return session.fetch_all(direct, params)
        except Exception:
            with db.wrap_database_errors:  # psycopg's errors become Django's, as a cursor's
                raise
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
    return DirectStatement.of(sql, sources)


def runs_direct(db) -> bool:
    """Whether a read may go to libpq itself (`DirectStatement`) rather than through a cursor.

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
class DirectStatement:
    """A read's query sent by libpq itself: the same messages on the same socket, less work.

    A 304 is one query and headers, and the query through Django's cursor and psycopg's execute
    path (its generators, its prepared statements' bookkeeping) is most of its client's CPU
    (the module docstring); libpq's blocking `PQexecPrepared` sends the same
    Bind/Execute/Sync on the same connection for half of it. So where `runs_direct` allows, the
    read is a named statement of its own, prepared once per connection (unnamed when the
    connection prepares nothing: `DATABASE_PREPARE_THRESHOLD=0`, for PgBouncer), and its rows
    are loaded by the connection's own psycopg loaders to what a cursor gives
    (`LibpqSession.fetch_all`). Parameters are integers (ids) or constant strings, sent as text.
    """

    command: bytes  # the SQL with $1, $2... for %s
    name: bytes  # of the prepared statement: one SQL per name (`_DIRECT_NONCE`)

    @classmethod
    def of(cls, sql: str, sources: tuple) -> "DirectStatement | None":
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


# Types whose binary values psycopg loads as Django's cursor loads their text: booleans, integers,
# text, bytea, json (parsed either way), date, uuid, numeric and arrays of integers and text.
# Any other type comes as text: Django loads some its own way (jsonb, inet and cidr as strings,
# django/db/backends/postgresql/psycopg_any.py), and binary floats or unknown types differ.
_BINARY_ALIKE = frozenset({16, 17, 20, 21, 23, 25, 114, 1042, 1043, 1082, 1700, 2950})
_BINARY_ALIKE |= {1000, 1005, 1007, 1009, 1014, 1015, 1016}  # their arrays
# timestamptz: Django's loader gives aware datetimes in UTC with USE_TZ, as psycopg's binary
# loader does on the UTC session Django sets up; naive ones without.
_TIMESTAMPTZ = 1184


def _sent_as_text(value) -> bytes | None:
    """A parameter as libpq sends it in text format: an integer's digits, a string's UTF-8."""
    if isinstance(value, int) and not isinstance(value, bool):
        return b"%d" % value
    if isinstance(value, str):
        return value.encode()
    return None


class LibpqSession:
    """What direct reads keep on one psycopg connection: its prepared statements, a loader.

    The connection is a session on the server; the loader has the connection's adapters.

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
        # The result format of each statement (with USE_TZ) run so far (`fetch_all`).
        self.formats: dict[tuple[bytes, bool], int] = {}
        self.loader = Transformer.from_context(raw)
        self.tuples = pq.ExecStatus.TUPLES_OK
        self.succeeded = (pq.ExecStatus.TUPLES_OK, pq.ExecStatus.COMMAND_OK)

    @classmethod
    def of(cls, raw) -> "LibpqSession | None":
        """The session of psycopg connection `raw`; None for a connection of psycopg 2."""
        session = getattr(raw, cls.ATTRIBUTE, None)
        if session is None:
            if not hasattr(raw, "pgconn"):
                return None
            session = cls(raw)
            setattr(raw, cls.ATTRIBUTE, session)
        return session

    def _execute(self, statement: DirectStatement, params: list, result_format: int):
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

    def fetch_all(self, statement: DirectStatement, params: list) -> list[tuple]:
        """Every row of `statement`; errors are psycopg's.

        The rows come in binary format, loaded by psycopg's C loaders: Django's own loader of
        `timestamptz` text is Python, about 6 µs a value, most of a list page's loading. A
        statement with a column of a type outside `_BINARY_ALIKE` is run again in text and, from
        then on, always in text; its first run decides.
        """
        key = (statement.name, settings.USE_TZ)
        known = self.formats.get(key)
        result = self._execute(statement, params, result_format=1 if known is None else known)
        if known is None:  # the first run decides, from its columns' types
            text = any(map(self._text_only, map(result.ftype, range(result.nfields))))
            self.formats[key] = 0 if text else 1
            if text:
                result = self._execute(statement, params, result_format=0)
        self.loader.set_pgresult(result)
        return self.loader.load_rows(0, result.ntuples, tuple)

    @staticmethod
    def _text_only(oid: int) -> bool:
        """Whether rows with this type must be loaded from text, as Django's cursor does."""
        if oid == _TIMESTAMPTZ:
            return not settings.USE_TZ
        return oid not in _BINARY_ALIKE

    def _prepare_and_execute(self, statement: DirectStatement, values: list, result_format):
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
