"""The API router: both apps' resources under /api/v1, each path with an optional trailing slash."""

from django.urls import re_path
from rest_framework.authtoken.views import ObtainAuthToken
from rest_framework.routers import SimpleRouter

from catalog.views import BackfillThumbnailsView, FruitImageViewSet, FruitViewSet, HealthView


class OptionalSlashRouter(SimpleRouter):
    """Canonical paths have no trailing slash; the same path with one works too (no redirect)."""

    def __init__(self):
        super().__init__()
        self.trailing_slash = "/?"  # the constructor only takes True/False


router = OptionalSlashRouter()
router.register("fruits", FruitViewSet, basename="fruit")


def route(pattern: str, view, name: str):
    """A path under /api/v1 with an optional trailing slash."""
    return re_path(rf"^{pattern}/?$", view, name=name)


ID = r"[0-9]+"

fruit_images = FruitImageViewSet.as_view({"get": "list", "post": "create"})
fruit_image = FruitImageViewSet.as_view({"get": "retrieve", "delete": "destroy"})
fruit_image_thumbnail = FruitImageViewSet.as_view({"get": "thumbnail"})

urlpatterns = [
    route("health", HealthView.as_view(), "api-health"),
    route("auth/token", ObtainAuthToken.as_view(), "auth-token"),
    route(rf"fruits/(?P<id>{ID})/images", fruit_images, "fruit-image-list"),
    route(rf"fruits/(?P<id>{ID})/images/(?P<imageId>{ID})", fruit_image, "fruit-image-detail"),
    route(
        rf"fruits/(?P<id>{ID})/images/(?P<imageId>{ID})/thumbnail",
        fruit_image_thumbnail,
        "fruit-image-thumbnail",
    ),
    route("admin/backfill-thumbnails", BackfillThumbnailsView.as_view(), "backfill-thumbnails"),
    # --- publications routes ---
    # --- end of publications routes ---
    *router.urls,
]
