"""ORM expressions the apps share."""

import json

from django.db import NotSupportedError, models
from django.db.models import Subquery


class ListSubquery(Subquery):
    """The rows of a one-column queryset as one Python list, in the queryset's order.

    A correlated subquery per row instead of a prefetch: no second query, no model instance per
    value. PostgreSQL builds an array (`ARRAY(...)`); SQLite a JSON array over the ordered rows
    (a subquery with ORDER BY under an aggregate is not flattened, so the order holds).
    """

    output_field = models.JSONField()

    def __init__(self, queryset, **extra):
        (column,) = queryset.query.values_select or queryset.query.annotation_select
        self.column = column
        # A JSON column (say `JSONArray(...)`): SQLite hands its rows over as JSON text.
        annotation = queryset.query.annotation_select.get(column)
        self.rows_are_json = isinstance(getattr(annotation, "output_field", None), models.JSONField)
        super().__init__(queryset, **extra)

    def as_sql(self, compiler, connection, template=None, **extra):
        if template is None:  # neither PostgreSQL nor SQLite: a scalar subquery would be wrong
            raise NotSupportedError(f"ListSubquery has no SQL for {connection.vendor}.")
        return super().as_sql(compiler, connection, template=template, **extra)

    def as_postgresql(self, compiler, connection, **extra):
        return self.as_sql(compiler, connection, template="ARRAY(%(subquery)s)", **extra)

    def as_sqlite(self, compiler, connection, **extra):
        return self.as_sql(
            compiler,
            connection,
            template="(SELECT json_group_array(%(column)s) FROM (%(subquery)s))",
            column=connection.ops.quote_name(self.column),
            **extra,
        )

    def get_db_converters(self, connection):
        return [self._as_list]

    def _as_list(self, value, expression, connection):
        if value is None:
            return []
        rows = json.loads(value) if isinstance(value, str) else list(value)
        if self.rows_are_json:
            rows = [json.loads(row) if isinstance(row, str) else row for row in rows]
        return rows
