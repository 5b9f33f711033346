"""What stored bytes tell the apps above them, without importing them."""

from django.dispatch import Signal

# An image is about to be deleted on its own (not with its parent), inside the delete's
# transaction: through the API or an image admin (`blobs.views.image_delete`). Sent with
# `sender=` the image model; argument: `instance`. Saves are Django's own `post_save`; a
# `post_delete` receiver would make every cascade from a parent load the images' bytes.
image_deleted = Signal()
