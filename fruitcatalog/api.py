"""The API router: the apps' resources under /api/v1, each path with an optional trailing slash,
and the root (`api_root`) listing them."""

from django.urls import re_path
from rest_framework.routers import DefaultRouter

from blobs.views import BackfillThumbnailsView, byte_view
from catalog.views import FruitCSVExportView, FruitImageViewSet, FruitImportViewSet
from changes.views import ChangeFeedView
from core.db.ids import ID_PATTERN
from core.rest.auth import TokenView
from core.rest.health import HealthView
from core.rest.root import APIRootView
from history.api import (
    DeletedFruitListView,
    FruitHistoryView,
    ImportBatchListView,
    ImportUndoView,
    PublicationHistoryView,
)
from identification.views import CharacteristicViewSet, IdentifyView
from publications.views import (
    PublicationCoverViewSet,
    PublicationFruitDescriptionViewSet,
    PublicationFruitImageViewSet,
    PublicationFruitViewSet,
    PublicationViewSet,
)
from wholefruit.api import FruitRestoreView, WholeFruitViewSet
from wholefruit.dwca import DarwinCoreExportView


class OptionalSlashRouter(DefaultRouter):
    """Canonical paths have no trailing slash; the same path with one works too (no redirect).

    Its root view lists the resources registered here; `fruitcatalog.urls` routes it at
    /api/v1 (with or without the slash, which a pattern inside this prefix cannot match).
    """

    APIRootView = APIRootView
    include_root_view = False
    include_format_suffixes = False  # no `.json` paths: the API negotiates by `Accept`

    def __init__(self):
        super().__init__()
        self.trailing_slash = "/?"  # the constructor only takes True/False


router = OptionalSlashRouter()
# The catalog's fruits, each detail shown whole: citations and characteristics too.
router.register("fruits", WholeFruitViewSet, basename="fruit")
router.register("publications", PublicationViewSet, basename="publication")
router.register("characteristics", CharacteristicViewSet, basename="characteristic")
api_root = router.get_api_root_view()


def route(pattern: str, view, name: str):
    """A path under /api/v1 with an optional trailing slash."""
    return re_path(rf"^{pattern}/?$", view, name=name)


# `suffix` titles a browsable page by its resource ("Fruit Image List"), as the router does.
fruit_images = FruitImageViewSet.as_view({"get": "list", "post": "create"}, suffix="List")
# Byte paths: GET and HEAD by their read, other methods (and the schema) by the DRF view.
fruit_image = byte_view(
    FruitImageViewSet.image_read,
    FruitImageViewSet.as_view({"get": "retrieve", "patch": "partial_update", "delete": "destroy"}),
)
fruit_image_thumbnail = byte_view(
    FruitImageViewSet.thumbnail_read, FruitImageViewSet.as_view({"get": "thumbnail"})
)

urlpatterns = [
    route("health", HealthView.as_view(), "api-health"),
    route("auth/token", TokenView.as_view(), "auth-token"),
    route(rf"fruits/(?P<id>{ID_PATTERN})/images", fruit_images, "fruit-image-list"),
    route(
        rf"fruits/(?P<id>{ID_PATTERN})/images/(?P<imageId>{ID_PATTERN})",
        fruit_image,
        "fruit-image-detail",
    ),
    route(
        rf"fruits/(?P<id>{ID_PATTERN})/images/(?P<imageId>{ID_PATTERN})/thumbnail",
        fruit_image_thumbnail,
        "fruit-image-thumbnail",
    ),
    route("identify", IdentifyView.as_view(), "identify"),
    route("exports/fruits.csv", FruitCSVExportView.as_view(), "export-fruits-csv"),
    route("exports/dwca.zip", DarwinCoreExportView.as_view(), "export-dwca"),
    route("changes", ChangeFeedView.as_view(), "change-feed"),
    route("imports/fruits", FruitImportViewSet.as_view({"post": "create"}), "fruit-import"),
    route("admin/backfill-thumbnails", BackfillThumbnailsView.as_view(), "backfill-thumbnails"),
    route(
        rf"publications/(?P<id>{ID_PATTERN})/cover",
        byte_view(
            PublicationCoverViewSet.byte_read,
            PublicationCoverViewSet.as_view(
                {"get": "retrieve", "put": "update", "delete": "destroy"}
            ),
        ),
        "publication-cover",
    ),
    route(
        rf"publications/(?P<id>{ID_PATTERN})/cover/thumbnail",
        byte_view(
            PublicationCoverViewSet.thumbnail_read,
            PublicationCoverViewSet.as_view({"get": "thumbnail"}),
        ),
        "publication-cover-thumbnail",
    ),
    route(
        rf"publications/(?P<id>{ID_PATTERN})/fruits",
        PublicationFruitViewSet.as_view({"get": "list"}, suffix="List"),
        "publication-fruit-list",
    ),
    route(
        rf"publications/(?P<id>{ID_PATTERN})/fruits/(?P<fruitId>{ID_PATTERN})",
        PublicationFruitViewSet.as_view(
            {"put": "update", "patch": "partial_update", "delete": "destroy"}, suffix="Instance"
        ),
        "publication-fruit-detail",
    ),
    route(
        rf"publications/(?P<id>{ID_PATTERN})/fruits/(?P<fruitId>{ID_PATTERN})/description",
        byte_view(
            PublicationFruitDescriptionViewSet.byte_read,
            PublicationFruitDescriptionViewSet.as_view(
                {"get": "retrieve", "put": "update", "delete": "destroy"}
            ),
        ),
        "publication-fruit-description",
    ),
    route(
        rf"publications/(?P<id>{ID_PATTERN})/fruit-images",
        PublicationFruitImageViewSet.as_view({"get": "list", "post": "create"}, suffix="List"),
        "publication-fruit-image-list",
    ),
    route(
        rf"publications/(?P<id>{ID_PATTERN})/fruit-images/(?P<imgId>{ID_PATTERN})",
        byte_view(
            PublicationFruitImageViewSet.image_read,
            PublicationFruitImageViewSet.as_view(
                {"get": "retrieve", "patch": "partial_update", "delete": "destroy"}
            ),
        ),
        "publication-fruit-image-detail",
    ),
    route(
        rf"publications/(?P<id>{ID_PATTERN})/fruit-images/(?P<imgId>{ID_PATTERN})/thumbnail",
        byte_view(
            PublicationFruitImageViewSet.thumbnail_read,
            PublicationFruitImageViewSet.as_view({"get": "thumbnail"}),
        ),
        "publication-fruit-image-thumbnail",
    ),
    route(rf"fruits/(?P<id>{ID_PATTERN})/history", FruitHistoryView.as_view(), "fruit-history"),
    route(
        rf"publications/(?P<id>{ID_PATTERN})/history",
        PublicationHistoryView.as_view(),
        "publication-history",
    ),
    route("deleted-fruits", DeletedFruitListView.as_view(), "deleted-fruit-list"),
    route(
        rf"deleted-fruits/(?P<id>{ID_PATTERN})/restore",
        FruitRestoreView.as_view(),
        "deleted-fruit-restore",
    ),
    route("imports", ImportBatchListView.as_view(), "import-batch-list"),
    route(rf"imports/(?P<id>{ID_PATTERN})/undo", ImportUndoView.as_view(), "import-batch-undo"),
    *router.urls,
]
