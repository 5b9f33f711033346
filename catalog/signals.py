"""What the catalog tells the apps above it, and asks of them, without importing them.

Each signal is sent with `sender=Fruit`; receivers are connected in the higher app's
`AppConfig.ready()`, as `django.contrib.auth` sends `user_logged_in`.
"""

from django.dispatch import Signal

# A fruit was saved or is about to be deleted, inside the write's transaction with the fruit
# locked. Arguments: `fruit`, `previous_type` (None for a new fruit), `renumbered`, `deleted`.
fruit_written = Signal()

# Asked when the catalog builds its search text: each receiver returns the other names these
# fruits are found by, as `{fruit_id: [name, ...]}`. Argument: `fruit_ids`.
searched_names = Signal()

# Asked by the fruits' CSV export and spreadsheet import: each receiver returns one column
# provider (`catalog.columns.ColumnProvider`) whose columns follow the catalog's own.
spreadsheet_columns = Signal()
