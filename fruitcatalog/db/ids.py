"""The one rule for ids in paths and query parameters."""

# At most 18 digits in a path, so every id that matches fits a 64-bit column on every database
# (SQLite refuses larger integers with an OverflowError); longer ones are unknown paths.
ID_PATTERN = r"[0-9]{1,18}"
ID_MAX = 9_223_372_036_854_775_807  # the largest id a 64-bit primary key holds
