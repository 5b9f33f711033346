"""Rows copied from table to table inside the database (`INSERT INTO ... SELECT`).

Django has no such statement: a copy through `bulk_create` would read every value into Python
first, bytes included. Here the ORM writes the `SELECT` (its filters, quoting and parameters)
and the database moves the rows.
"""

from django.db import connections
from django.db.models import F, QuerySet


def insert_select(model, rows: QuerySet, columns: dict) -> int:
    """Insert into `model`'s table a row for each of `rows`, in one statement; returns how many.

    `columns` maps each field of `model` to fill (its name or attname) to what fills it: a field
    of the rows' model (its name) or an expression (`Now()`, `Value(...)`). Every other column
    needs a default in the database (`db_default`) or takes NULL.
    """
    # Annotations only, under names no field can have: the SELECT lists them in this order.
    selected = {
        f"copied_{index}": F(source) if isinstance(source, str) else source
        for index, source in enumerate(columns.values())
    }
    select = rows.order_by().values(**selected)
    sql, params = select.query.sql_with_params()
    connection = connections[select.db]
    quote = connection.ops.quote_name
    targets = ", ".join(quote(model._meta.get_field(name).column) for name in columns)
    with connection.cursor() as cursor:
        cursor.execute(f"INSERT INTO {quote(model._meta.db_table)} ({targets}) {sql}", params)
        return cursor.rowcount
