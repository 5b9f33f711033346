"""What publications tell the apps above them, without importing them."""

from django.dispatch import Signal

# Fruits stopped being described by a publication (their links were removed), inside the
# unlink's transaction. Sent with `sender=Publication`; arguments: `publication_id`, `fruit_ids`.
fruits_unlinked = Signal()
