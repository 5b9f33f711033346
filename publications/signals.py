"""What publications tell the apps above them, without importing them."""

from django.dispatch import Signal

# Fruits stopped being described by a publication (their links were removed), inside the
# unlink's transaction. Sent with `sender=Publication`; arguments: `publication_id`, `fruit_ids`.
fruits_unlinked = Signal()

# A publication was created or changed (its fields, cover, citations, PDFs or fruit images), or
# is about to be deleted, inside the write's transaction: by every service that writes one and
# by the admin's pages. Sent with `sender=Publication`; arguments: `publication_id`, `created`,
# `deleted`, `fruit_ids` (the fruits whose citations of it changed: linked, unlinked, cited
# differently, or all of them when it is deleted).
publication_written = Signal()
