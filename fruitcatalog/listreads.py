"""A list's plain pages answered in front of Django's handler, from SQL compiled once.

The fruit list's first page is what API clients ask for most, and through Django and DRF it
cost about four times the database work it asks for: the ORM compiles the page's four queries
again on every request (correlated subqueries included), django-filter builds a form for the
filters nobody sent, the handler passes the request through the middleware stack and DRF's
dispatch. `ListReadApplication` answers a GET of a list path whose query string is nothing but
`page` and `page_size` (digits, at most two of them) itself:

- with the same pieces: the viewset's pagination class (its page size rules, its envelope and
  links), its `ScalablePaginator` rules (bounded count, ids first, has-next from one extra id),
  its serializer's representation and first renderer (JSON);
- running the paginator's queries (`pagination.matching_ids`, `ordered_ids`, `rows_with_ids`)
  from SQL the ORM compiled once per database connection object (`ListStatements`, kept across
  reconnections), without a health check before the first (`run_read`), sent by libpq with
  rows in binary format where the connection allows (`fetch_all`);
- with the headers Django's stack gives such an answer (`PlainListRead.headers`), the API's
  JSON 404 for a page that does not exist, the same JSON 503 when the database cannot be
  reached, and the front's rules of `ReadFront`: host check, HTTPS redirect, script prefix, the
  connection's upkeep, logging.

Anything else goes to Django's handler, as before: filters, ordering, `format`, any other
parameter, a page number that is not 1 to 9 plain digits, more than two parameters; an `Accept`
other than exactly JSON's or `*/*` (the browsable API, indented JSON); credentials or cookies
(authentication, the session's cookie); an `Origin` (CORS); a body; a lost race.
`test_list_front.py` compares the two answers header for header and byte for byte.
"""

import functools
import re

from django.db import InterfaceError, OperationalError
from rest_framework.exceptions import NotFound
from rest_framework.renderers import JSONRenderer
from rest_framework.request import Request
from rest_framework.settings import api_settings

from fruitcatalog.directreads import direct_statement, fetch_all, run_read
from fruitcatalog.exceptions import database_error_response, is_lost_race
from fruitcatalog.fronts import Answer, ReadFront, frame_options_header
from fruitcatalog.pagination import (
    ScalablePaginator,
    explained,
    matching_ids,
    ordered_ids,
    plan_rows,
    rows_with_ids,
)

# The query strings of a plain page: nothing, or `page`/`page_size` as digits, twice at most.
_PAIR = r"(?:page|page_size)=[0-9]{1,9}"
PLAIN_QUERY = re.compile(rf"(?:{_PAIR}(?:&{_PAIR})?)?")
# `Accept` headers for which DRF's negotiation picks its first renderer, JSON.
JSON_ACCEPTS = frozenset({"*/*", "application/json"})
# Requests with these headers go to Django: credentials and cookies (authentication, the
# session), CORS, and a chunked body.
_HANDED_ON_HEADERS = ("HTTP_AUTHORIZATION", "HTTP_COOKIE", "HTTP_ORIGIN", "HTTP_TRANSFER_ENCODING")
# Stand-ins for a page's ids while its rows' SQL is compiled (far above any real id).
_ID_STAND_IN = 7_350_000_000_000_001


class ListReadApplication(ReadFront):
    """WSGI: a GET of a plain list page answered here (`PlainListRead`); the rest by Django."""

    def __init__(self, application, reads: dict):
        super().__init__(application)
        self.reads = reads  # path -> PlainListRead

    def __call__(self, environ, start_response):
        read = self.reads.get(environ.get("PATH_INFO"))
        if read is None or not read.takes(environ):
            return self.application(environ, start_response)
        return self.serve(environ, start_response, read.respond)


class PlainListRead:
    """A list viewset's unfiltered pages: its pagination, serializer and renderer, SQL compiled.

    `view` is the viewset class: its `queryset` (what its `list` pages, unfiltered),
    `pagination_class` (with a `ScalablePaginator`), `serializer_class` and first renderer
    (JSON); its `get_queryset()` and `get_serializer_class()` must give those for `list`.
    `allow` is the list path's `Allow` header (its methods).
    """

    def __init__(self, view, *, allow: str):
        pagination = view.pagination_class
        if not issubclass(pagination.django_paginator_class, ScalablePaginator):
            raise ValueError(f"{view.__name__} does not page with a ScalablePaginator.")
        if view.queryset._prefetch_related_lookups:
            raise ValueError(f"{view.__name__}'s queryset prefetches: not a one-query page.")
        renderer = view.renderer_classes[0]
        if not issubclass(renderer, JSONRenderer) or renderer.charset is not None:
            raise ValueError(f"{view.__name__} does not answer plain JSON first.")
        if view.throttle_classes:
            raise ValueError(f"{view.__name__} is throttled: the front throttles nothing.")
        self.view = view
        self.renderer = renderer()
        self.allow = allow

    def takes(self, environ) -> bool:
        """Whether the request is a plain page's GET that Django's stack would answer as JSON."""
        return (
            environ["REQUEST_METHOD"] == "GET"
            and PLAIN_QUERY.fullmatch(environ.get("QUERY_STRING", "")) is not None
            and environ.get("HTTP_ACCEPT", "*/*") in JSON_ACCEPTS
            and not any(environ.get(name) for name in _HANDED_ON_HEADERS)
            and environ.get("CONTENT_LENGTH", "") in ("", "0")
        )

    def respond(self, request) -> Answer | None:
        """The page as the viewset's `list` answers it: the page, or the API's JSON 404.

        An unreachable database is the JSON 503 Django's stack answers; a lost race is raised
        (Django's handler answers it).
        """
        drf_request = Request(request)
        pagination = self.view.pagination_class()
        try:
            rows = run_read(
                lambda db: self._page(db, pagination, drf_request), using=self.view.queryset.db
            )
        except NotFound as error:  # a page that does not exist: the API's own 404
            response = api_settings.EXCEPTION_HANDLER(error, {"request": drf_request})
            body = self.renderer.render(response.data)
            return Answer(response.status_code, self.headers(body), body)
        except (OperationalError, InterfaceError) as error:
            if is_lost_race(error):
                raise
            response = database_error_response(error, request.path)
            extra = [("Retry-After", response["Retry-After"])]
            return Answer(503, self.headers(response.content, extra), response.content)
        context = {"request": drf_request}
        data = self.view.serializer_class(rows, many=True, context=context).data
        body = self.renderer.render(pagination.get_paginated_response(data).data)
        return Answer(200, self.headers(body), body)

    def _page(self, db, pagination, request) -> list:
        """The page's rows, `pagination` holding the page (for its envelope and links)."""
        # Kept on the connection: a new one (another thread's) compiles its own, and they go
        # together.
        compiled = db.__dict__.setdefault("_fruitcatalog_list_statements", {})
        statements = compiled.get(self)
        if statements is None:
            statements = compiled[self] = ListStatements(self.view.queryset, db)
        pagination.django_paginator_class = functools.partial(
            CompiledPaginator, statements=statements, db=db
        )
        return pagination.paginate_queryset(None, request)

    def headers(self, body: bytes, extra=()) -> list[tuple[str, str]]:
        """What Django's stack sends with such an answer: DRF's, the session's, CORS's, XFO's."""
        return [
            ("Content-Type", self.renderer.media_type),
            *extra,
            ("Vary", "Accept, Cookie, origin"),
            ("Allow", self.allow),
            frame_options_header(),
            ("Content-Length", str(len(body))),
        ]


class CompiledPaginator(ScalablePaginator):
    """`ScalablePaginator`'s rules, its queries run from `ListStatements` on connection `db`."""

    def __init__(self, object_list, per_page, *, statements, db):
        super().__init__((), per_page)
        self.statements = statements
        self.db = db

    def count_up_to(self, limit):
        """As `ScalablePaginator.count_up_to`, compiled."""
        return self.statements.count_up_to(self.db, limit)

    def planned_count(self):
        """As `ScalablePaginator.planned_count`, compiled."""
        return self.statements.planned_count(self.db)

    def page_ids(self, offset, limit):
        """As `ScalablePaginator.page_ids`, compiled."""
        return self.statements.page_ids(self.db, offset, limit)

    def rows_of(self, ids):
        """As `ScalablePaginator.rows_of`, compiled."""
        return self.statements.rows_of(self.db, ids)


class ListStatements:
    """A queryset's page queries, compiled by the ORM once for one connection.

    The SQL of the query shapes `ScalablePaginator` has the ORM compile on every page: the
    count up to a limit (as `QuerySet.count()` of a slice counts), the planner's estimate, a
    page of ids in order, the rows of those ids with their annotations (one statement per
    number of ids, as `pk IN (...)` has a placeholder per id). Rows become model instances as
    the ORM's own iterable makes them: the model's fields, then the annotations as attributes,
    the database's converters applied.
    """

    def __init__(self, queryset, db):
        self.queryset = queryset
        sql, params = matching_ids(queryset).query.sql_with_params()
        self._estimate = _CompiledSQL(explained(sql), params, range(len(params)))
        sql, params = ordered_ids(queryset).query.sql_with_params()
        self._page = _CompiledSQL(f"{sql} LIMIT %s OFFSET %s", [*params, 0, 0], range(len(params)))
        self._counts = {}
        self._rows = {}

    def count_up_to(self, db, limit: int | None) -> int:
        """How many rows match, counting no further than `limit` (None: all)."""
        statement = self._counts.get(limit)
        if statement is None:
            ids = matching_ids(self.queryset)
            if limit is not None:
                ids = ids[:limit]
            sql, params = ids.query.sql_with_params()
            count = f"SELECT COUNT(*) FROM ({sql}) subquery"  # noqa: S608  (the ORM's SQL)
            statement = self._counts[limit] = _CompiledSQL(count, params, range(len(params)))
        return statement.fetch(db, {})[0][0]

    def planned_count(self, db) -> int | None:
        """The planner's estimate of the matching rows (PostgreSQL), else None."""
        if db.vendor != "postgresql":
            return None
        return plan_rows(self._estimate.fetch(db, {})[0][0])

    def page_ids(self, db, offset: int, limit: int) -> list[int]:
        """The ids of `limit` rows in order from `offset`."""
        last = len(self._page.params)
        return [row[0] for row in self._page.fetch(db, {last - 2: limit, last - 1: offset})]

    def rows_of(self, db, ids: list[int]) -> list:
        """The rows with these ids, as model instances with the queryset's annotations."""
        if not ids:
            return []
        statement = self._rows.get(len(ids))
        if statement is None:
            statement = self._rows[len(ids)] = _RowsStatement(self.queryset, db, len(ids))
        return statement.run(db, ids)


class _CompiledSQL:
    """SQL compiled once, its parameters (`constants` of them fixed), its libpq form if any."""

    def __init__(self, sql: str, params, constants):
        self.sql = sql
        self.params = list(params)
        constants = set(constants)
        self.direct = direct_statement(sql, self.params, constants.__contains__)

    def fetch(self, db, given: dict[int, int]) -> list[tuple]:
        """Every row, with the parameters at the positions of `given` given there."""
        params = self.params
        if given:
            params = list(params)
            for position, value in given.items():
                params[position] = value
        return fetch_all(db, self.sql, params, self.direct)


class _RowsStatement:
    """The rows of `count` ids: SQL, where each id goes, and how a row becomes an instance."""

    def __init__(self, queryset, db, count: int):
        stand_ins = [_ID_STAND_IN + index for index in range(count)]
        compiler = rows_with_ids(queryset, stand_ins).query.get_compiler(connection=db)
        sql, params = compiler.as_sql()
        params = list(params)
        if any(params.count(stand_in) != 1 for stand_in in stand_ins):
            raise ValueError("An id's stand-in is not one parameter of its own.")
        self.positions = [params.index(stand_in) for stand_in in stand_ins]
        self.sql = _CompiledSQL(sql, params, set(range(len(params))) - set(self.positions))
        info = compiler.klass_info
        if info.get("related_klass_infos"):
            raise ValueError("A list read takes no select_related().")
        fields = info["select_fields"]
        self.model = info["model"]
        self.model_columns = slice(fields[0], fields[-1] + 1)
        self.attnames = [column[0].target.attname for column in compiler.select[self.model_columns]]
        self.annotations = list(compiler.annotation_col_map.items())
        self.compiler = compiler
        self.converters = compiler.get_converters(
            [column[0] for column in compiler.select[: compiler.col_count]]
        )

    def run(self, db, ids: list[int]) -> list:
        """The instances of the rows with these ids, in any order."""
        rows = self.sql.fetch(db, dict(zip(self.positions, ids, strict=True)))
        if self.converters:
            rows = self.compiler.apply_converters(rows, self.converters)
        instances = []
        for row in rows:
            instance = self.model.from_db(db.alias, self.attnames, row[self.model_columns])
            for name, position in self.annotations:
                setattr(instance, name, row[position])
            instances.append(instance)
        return instances
