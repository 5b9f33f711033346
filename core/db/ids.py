"""The one rule for ids in paths and query parameters."""

import re

# At most 18 digits in a path, so every id that matches fits a 64-bit column on every database
# (SQLite refuses larger integers with an OverflowError); longer ones are unknown paths.
ID_PATTERN = r"[0-9]{1,18}"
ID_MAX = 9_223_372_036_854_775_807  # the largest id a 64-bit primary key holds


def parse_id(text) -> int | None:
    """An id given as text (a query parameter, a posted field), or None when it is not one."""
    text = str(text)
    return int(text) if re.fullmatch(ID_PATTERN, text) else None
