"""Checks of the SQL a block of code runs: lists, metadata, HEAD and 304s read no bytes."""

import re
from contextlib import contextmanager

from django.db import connection
from django.test.utils import CaptureQueriesContext

# Every byte column of the project.
BLOB_COLUMNS = ("data", "thumbnail_data", "cover_data", "description_data")


def selected_blob_columns(queries) -> set[str]:
    """The byte columns any SELECT among `queries` reads (`LENGTH(...)` of one is no read)."""
    found = set()
    for query in queries:
        sql = query["sql"]
        if not sql.lstrip().upper().startswith("SELECT"):
            continue
        sql = re.sub(r"LENGTH\([^)]*\)", "", sql, flags=re.IGNORECASE)
        found.update(column for column in BLOB_COLUMNS if f'"{column}"' in sql)
    return found


@contextmanager
def reading_no_bytes():
    """Assert that the block selects no byte column; yields the captured queries."""
    with CaptureQueriesContext(connection) as captured:
        yield captured
    assert selected_blob_columns(captured.captured_queries) == set(), [
        q["sql"] for q in captured.captured_queries
    ]
