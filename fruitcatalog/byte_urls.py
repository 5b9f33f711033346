"""The byte paths only: what `ByteReadMiddleware` resolves GET and HEAD requests against.

A URLconf of six patterns resolves in a fraction of the time of the whole one, on the requests
the service answers most (thumbnails of card grids).
"""

from django.urls import include, path

from fruitcatalog.api import byte_urlpatterns

urlpatterns = [path("api/v1/", include(byte_urlpatterns))]
