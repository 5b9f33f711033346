"""Page-number pagination whose cost does not grow with the table or the page number.

Two things make a naive page slow on a large table: `COUNT(*)` over every matching row, and
OFFSET over a query whose select list holds per-row subqueries (image count, first image), which
the database then computes for every skipped row too. `ScalablePaginator` counts exactly only up
to `EXACT_COUNT_LIMIT` rows and takes the planner's estimate above it, and reads a page as ids
first (an index walk), then the page's rows with their annotations.
"""

import json

from django.core.paginator import EmptyPage, Page, PageNotAnInteger, Paginator
from django.db import connections
from django.utils.functional import cached_property
from rest_framework import pagination

# Above this many matching rows `count` is PostgreSQL's estimate (SQLite counts exactly).
EXACT_COUNT_LIMIT = 10_000


class ScalablePaginator(Paginator):
    """A Django paginator with a bounded count and id-first pages (see the module docstring)."""

    count_is_estimate = False

    @cached_property
    def count(self) -> int:
        """Exact up to `EXACT_COUNT_LIMIT`, PostgreSQL's estimate (at least that) above it."""
        exact = self.count_up_to(EXACT_COUNT_LIMIT + 1)
        if exact <= EXACT_COUNT_LIMIT:
            return exact
        estimate = self.planned_count()
        if estimate is None:
            return self.count_up_to(None)
        self.count_is_estimate = True
        return max(estimate, exact)

    def validate_number(self, number):
        if not (self.count and self.count_is_estimate):
            return super().validate_number(number)
        # The count is an estimate: whether the page exists is found out by reading it.
        try:
            number = int(number)
        except (TypeError, ValueError):
            raise PageNotAnInteger("That page number is not an integer") from None
        if number < 1:
            raise EmptyPage("That page number is less than 1")
        return number

    def page(self, number):
        """The page's rows, read as ids first; `has_next` known from one extra id."""
        number = self.validate_number(number)
        ids = self.page_ids((number - 1) * self.per_page, self.per_page + 1)
        if not ids and number > 1:
            raise EmptyPage("That page contains no results")
        has_next = len(ids) > self.per_page
        ids = ids[: self.per_page]
        rows = {row.pk: row for row in self.rows_of(ids)}
        page = ScalablePage([rows[pk] for pk in ids if pk in rows], number, self)
        page.next_exists = has_next
        return page

    # The queries, one method each, of the shapes below.

    def count_up_to(self, limit: int | None) -> int:
        """How many rows match, counting no further than `limit` (None: all)."""
        ids = matching_ids(self.object_list)
        return (ids if limit is None else ids[:limit]).count()

    def planned_count(self) -> int | None:
        """The planner's estimate of the matching rows (PostgreSQL), else None."""
        return planner_estimate(matching_ids(self.object_list))

    def page_ids(self, offset: int, limit: int) -> list[int]:
        """The ids of `limit` rows in order from `offset`."""
        return list(ordered_ids(self.object_list)[offset : offset + limit])

    def rows_of(self, ids: list[int]):
        """The rows with these ids, with the queryset's annotations, in any order."""
        return rows_with_ids(self.object_list, ids)


def matching_ids(queryset):
    """The ids of the rows `queryset` matches, unordered: what is counted and estimated."""
    return queryset.values("pk").order_by()


def ordered_ids(queryset):
    """The ids of the rows `queryset` matches, in its order: what a page is sliced from."""
    return queryset.values_list("pk", flat=True)


def rows_with_ids(queryset, ids):
    """The rows of `queryset` (annotations and all) with these ids, unordered."""
    return queryset.filter(pk__in=ids).order_by()


class ScalablePage(Page):
    """A page that knows whether another follows without trusting an estimated count."""

    next_exists = False

    def has_next(self) -> bool:
        return self.next_exists


def planner_estimate(queryset) -> int | None:
    """The rows PostgreSQL's planner expects `queryset` to return; None elsewhere."""
    connection = connections[queryset.db]
    if connection.vendor != "postgresql":
        return None
    sql, params = queryset.query.sql_with_params()
    with connection.cursor() as cursor:
        cursor.execute(explained(sql), params)
        return plan_rows(cursor.fetchone()[0])


def explained(sql: str) -> str:
    """The statement asking PostgreSQL for its plan of `sql` (read by `plan_rows`)."""
    return f"EXPLAIN (FORMAT JSON) {sql}"


def plan_rows(plan) -> int:
    """The rows a plan from `explained()` expects (the plan as JSON text or loaded)."""
    if isinstance(plan, str):
        plan = json.loads(plan)
    return int(plan[0]["Plan"]["Plan Rows"])


class PageNumberPagination(pagination.PageNumberPagination):
    """`page` from 1, `page_size` default 24 capped at 100; a bad size falls back to the default."""

    page_size = 24
    page_size_query_param = "page_size"
    max_page_size = 100
    django_paginator_class = ScalablePaginator

    def get_schema_operation_parameters(self, view):
        parameters = super().get_schema_operation_parameters(view)
        for parameter in parameters:
            if parameter["name"] == self.page_query_param:
                parameter["schema"]["minimum"] = 1
                parameter["description"] = "The page, from 1; past the last one: 404."
            elif parameter["name"] == self.page_size_query_param:
                # No bounds in the schema: any value is answered (capped, or the default).
                parameter["description"] = (
                    f"Items a page, {self.page_size} by default; above {self.max_page_size} "
                    f"gives {self.max_page_size}, and a value that is not a whole number from 1 "
                    f"gives the default."
                )
        return parameters

    def get_paginated_response_schema(self, schema):
        schema = super().get_paginated_response_schema(schema)
        schema["properties"]["count"]["description"] = (
            f"Matching items: exact up to {EXACT_COUNT_LIMIT:,}; above that, on PostgreSQL, the "
            "database's estimate (paging by `next` is exact whatever the count says)."
        )
        return schema
