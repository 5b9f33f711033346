"""A list's plain pages answered in front of Django's handler, from SQL compiled once.

The fruit list's first page is what API clients and the public grid ask for most, and through
Django and DRF it cost about four times the database work it asks for: the ORM compiles the
page's four queries again on every request (correlated subqueries included), django-filter
builds a form for the filters nobody sent, the handler passes the request through the
middleware stack and DRF's dispatch. `ListReadApplication` answers a GET of a list path whose
query string is nothing but `page` and `page_size` (digits) itself:

- with the same pieces: the viewset's pagination class (its page size rules, its envelope and
  links), its `ScalablePaginator` rules (bounded count, ids first, has-next from one extra id),
  its serializer's representation and DRF's JSON renderer;
- running the paginator's queries from SQL the ORM compiled once per connection
  (`CompiledPaginator`), and without a health check before the first (`run_read`);
- with the headers Django's stack gives such an answer (`PlainListRead.headers`), and the
  front's rules of `ReadFront`: host check, HTTPS redirect, the connection's upkeep.

Anything else goes to Django's handler, as before: filters, ordering, `format`, any other
parameter or a page number that is not plain digits; an `Accept` other than JSON's (the
browsable API); credentials or cookies (authentication, the session's cookie); an `Origin`
(CORS); a body; a page that does not exist (404); a database error. `test_list_front.py`
compares the two answers header for header and byte for byte.
"""

import functools
import re
from weakref import WeakKeyDictionary

from django.conf import settings
from rest_framework.exceptions import NotFound
from rest_framework.renderers import JSONRenderer
from rest_framework.request import Request

from fruitcatalog.blobs.reads import direct_statement, fetch_all, run_read
from fruitcatalog.blobs.responses import Answer
from fruitcatalog.blobs.wsgi import ReadFront
from fruitcatalog.pagination import ScalablePaginator, explained, plan_rows

# The query strings a plain page has: nothing, or `page` and/or `page_size` as digits.
_PAIR = r"(?:page|page_size)=[0-9]{1,9}"
PLAIN_QUERY = re.compile(rf"(?:{_PAIR}(?:&{_PAIR})?)?")
# `Accept` headers for which DRF's negotiation picks the JSON renderer, the first.
JSON_ACCEPTS = frozenset({"*/*", "application/json"})
# Requests with these headers go to Django: credentials and cookies (authentication, the
# session), CORS, and a chunked body.
_HANDED_ON_HEADERS = ("HTTP_AUTHORIZATION", "HTTP_COOKIE", "HTTP_ORIGIN", "HTTP_TRANSFER_ENCODING")
# Stand-ins for a page's ids while its rows' SQL is compiled (far above any real id).
_SENTINEL = 7_350_000_000_000_001


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

    `view` is the viewset class: its `queryset`, `pagination_class`, `serializer_class`.
    `allow` is the list path's `Allow` header (its methods).
    """

    def __init__(self, view, *, allow: str):
        self.view = view
        self.allow = allow
        self._statements = WeakKeyDictionary()  # connection -> ListStatements

    def takes(self, environ) -> bool:
        """Whether the request is a plain page's GET that Django's stack would answer as JSON."""
        return (
            environ["REQUEST_METHOD"] == "GET"
            and not environ.get("SCRIPT_NAME")
            and PLAIN_QUERY.fullmatch(environ.get("QUERY_STRING", "")) is not None
            and environ.get("HTTP_ACCEPT", "*/*") in JSON_ACCEPTS
            and not any(environ.get(name) for name in _HANDED_ON_HEADERS)
            and environ.get("CONTENT_LENGTH", "") in ("", "0")
        )

    def respond(self, request) -> Answer | None:
        """The page as the viewset's `list` answers it; None for a page that does not exist."""
        drf_request = Request(request)
        pagination = self.view.pagination_class()
        try:
            rows = run_read(
                lambda db: self._page(db, pagination, drf_request), using=self.view.queryset.db
            )
        except NotFound:
            return None
        context = {"request": drf_request}
        data = self.view.serializer_class(rows, many=True, context=context).data
        body = JSONRenderer().render(pagination.get_paginated_response(data).data)
        return Answer(200, self.headers(body), body)

    def _page(self, db, pagination, request) -> list:
        statements = self._statements.get(db)
        if statements is None:
            statements = self._statements[db] = ListStatements(self.view.queryset, db)
        pagination.django_paginator_class = functools.partial(
            CompiledPaginator, statements=statements
        )
        return pagination.paginate_queryset(None, request)

    def headers(self, body: bytes) -> list[tuple[str, str]]:
        """What Django's stack sends with such a page: DRF's, the session's, CORS's, XFO's."""
        return [
            ("Content-Type", "application/json"),
            ("Vary", "Accept, Cookie, origin"),
            ("Allow", self.allow),
            ("X-Frame-Options", settings.X_FRAME_OPTIONS),
            ("Content-Length", str(len(body))),
        ]


class CompiledPaginator(ScalablePaginator):
    """`ScalablePaginator`'s rules, its queries run from `ListStatements`."""

    def __init__(self, object_list, per_page, *, statements):
        super().__init__((), per_page)
        self.statements = statements

    def count_up_to(self, limit):
        return self.statements.count_up_to(limit)

    def planned_count(self):
        return self.statements.planned_count()

    def page_ids(self, offset, limit):
        return self.statements.page_ids(offset, limit)

    def rows_of(self, ids):
        return self.statements.rows_of(ids)


class ListStatements:
    """A queryset's page queries, compiled by the ORM once for one connection.

    The same SQL as `ScalablePaginator` has the ORM compile on every page: the count up to a
    limit, the planner's estimate, a page of ids in order, the rows of those ids with their
    annotations (one statement per number of ids, as `pk IN (...)` has a placeholder per id).
    Rows become model instances as the ORM's own iterable makes them: the model's fields, then
    the annotations as attributes, the database's converters applied.
    """

    def __init__(self, queryset, db):
        self.queryset = queryset
        self.db = db
        sql, params = queryset.values("pk").order_by().query.sql_with_params()
        self._estimate = _Statement(explained(sql), params, range(len(params)))
        self._counts = {}
        sql, params = queryset.values_list("pk", flat=True).query.sql_with_params()
        self._page = _Statement(f"{sql} LIMIT %s OFFSET %s", [*params, 0, 0], range(len(params)))
        self._rows = {}

    def count_up_to(self, limit: int | None) -> int:
        statement = self._counts.get(limit)
        if statement is None:
            ids = self.queryset.values("pk").order_by()
            sql, params = (ids if limit is None else ids[:limit]).query.sql_with_params()
            # The ORM's own count of a sliced queryset; `sql` is the ORM's.
            count = f"SELECT COUNT(*) FROM ({sql}) subquery"  # noqa: S608
            statement = self._counts[limit] = _Statement(count, params, range(len(params)))
        return statement.fetch(self.db, {})[0][0]

    def planned_count(self) -> int | None:
        if self.db.vendor != "postgresql":
            return None
        return plan_rows(self._estimate.fetch(self.db, {})[0][0])

    def page_ids(self, offset: int, limit: int) -> list[int]:
        last = len(self._page.params)
        return [row[0] for row in self._page.fetch(self.db, {last - 2: limit, last - 1: offset})]

    def rows_of(self, ids: list[int]) -> list:
        if not ids:
            return []
        statement = self._rows.get(len(ids))
        if statement is None:
            statement = self._rows[len(ids)] = _RowsStatement(self.queryset, self.db, len(ids))
        return statement.run(self.db, ids)


class _Statement:
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
        stand_ins = [_SENTINEL + index for index in range(count)]
        compiler = queryset.filter(pk__in=stand_ins).order_by().query.get_compiler(connection=db)
        sql, params = compiler.as_sql()
        params = list(params)
        self.positions = [params.index(stand_in) for stand_in in stand_ins]
        self.statement = _Statement(sql, params, set(range(len(params))) - set(self.positions))
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
        rows = self.statement.fetch(db, dict(zip(self.positions, ids, strict=True)))
        if self.converters:
            rows = self.compiler.apply_converters(rows, self.converters)
        instances = []
        for row in rows:
            instance = self.model.from_db(db.alias, self.attnames, row[self.model_columns])
            for name, position in self.annotations:
                setattr(instance, name, row[position])
            instances.append(instance)
        return instances
