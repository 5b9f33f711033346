"""The byte paths only: what `ByteReadMiddleware` resolves GET and HEAD requests against.

The API's byte patterns, each prefixed with `api/v1/` in one flat list (no `include` level to
descend), so the requests the service answers most (thumbnails of card grids) resolve against a
handful of regular expressions rather than the whole URLconf.
"""

from django.urls import re_path

from fruitcatalog.api import byte_urlpatterns

urlpatterns = [
    re_path(
        r"^api/v1/" + pattern.pattern.regex.pattern.removeprefix("^"),
        pattern.callback,
        name=pattern.name,
    )
    for pattern in byte_urlpatterns
]
