"""HTTP views of the catalog: fruits and their images."""

import dataclasses

from django.db.models import ProtectedError
from django.http import QueryDict
from django.shortcuts import get_object_or_404
from django.utils.translation import gettext as _
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import (
    OpenApiParameter,
    OpenApiResponse,
    extend_schema,
    extend_schema_view,
)
from rest_framework import permissions, serializers, status, viewsets
from rest_framework.exceptions import NotFound
from rest_framework.response import Response

from blobs.parsers import SPREADSHEET_UPLOAD_PARSERS
from blobs.reads import ByteRead
from blobs.schema import (
    IMAGE_UPLOAD_NOTE,
    IMAGE_UPLOAD_REQUEST,
    ImageUploadSerializer,
    image_viewset_schema,
)
from blobs.uploads import uploaded_bytes
from blobs.views import ThumbnailedImageViewSet, UploadsMixin
from catalog import exports
from catalog.filters import FruitFilter
from catalog.imports import ImportReport, RowError, import_fruits
from catalog.models import Fruit, FruitImage, FruitType
from catalog.search import explain_page
from catalog.serializers import FruitDetailSerializer, FruitSerializer, ImageInfoSerializer
from catalog.services import fruit_create, fruit_delete, fruit_update
from core.db.ids import ID_PATTERN
from core.idempotency.mixins import IDEMPOTENCY_PARAMETERS, IdempotentCreateMixin
from core.rest.exceptions import Conflict, protection_message
from core.rest.files import NOT_MODIFIED, StreamedFileView
from core.rest.pagination import PageNumberPagination
from core.rest.viewsets import ReadBackMixin

FRUIT_ID = OpenApiParameter("id", int, OpenApiParameter.PATH, description="Fruit id.")
IMAGE_ID = OpenApiParameter("imageId", int, OpenApiParameter.PATH, description="Image id.")


class FruitPagination(PageNumberPagination):
    """The API's pages, with the search's "did you mean" in the envelope (`suggestions`)."""

    def paginate_queryset(self, queryset, request, view=None):
        page = super().paginate_queryset(queryset, request, view)
        self.suggestions = []
        if page is not None:
            text = request.query_params.get("search", "")
            self.suggestions = explain_page(page, text, self.page.paginator.count)
        return page

    def get_paginated_response(self, data):
        response = super().get_paginated_response(data)
        response.data["suggestions"] = self.suggestions
        return response

    def get_paginated_response_schema(self, schema):
        schema = super().get_paginated_response_schema(schema)
        schema["properties"]["suggestions"] = {
            "type": "array",
            "description": (
                '"Did you mean": [] unless a search matched nothing; then up to 5 of the '
                "closest names in the catalog, closest first (none when the term resembles "
                "nothing)."
            ),
            "items": {
                "type": "object",
                "properties": {
                    "name": {"type": "string"},
                    "fruit_id": {"type": "integer"},
                },
                "required": ["name", "fruit_id"],
            },
        }
        schema.setdefault("required", []).append("suggestions")
        return schema


@extend_schema_view(
    list=extend_schema(summary="List fruits"),
    # Requests and responses: `detail_serializer_class`, which a composing app may extend.
    create=extend_schema(summary="Create a fruit", parameters=IDEMPOTENCY_PARAMETERS),
    retrieve=extend_schema(summary="Get a fruit with its images", parameters=[FRUIT_ID]),
    update=extend_schema(summary="Replace a fruit", parameters=[FRUIT_ID]),
    partial_update=extend_schema(summary="Update a fruit", parameters=[FRUIT_ID]),
    destroy=extend_schema(
        summary="Delete a fruit with its synonyms and images",
        description="409 while a publication links the fruit.",
        parameters=[FRUIT_ID],
    ),
)
class FruitViewSet(IdempotentCreateMixin, ReadBackMixin, viewsets.ModelViewSet):
    """Fruits of the catalog."""

    queryset = Fruit.objects.with_list_data().with_card_choice().in_catalog_order()
    serializer_class = FruitSerializer
    filterset_class = FruitFilter
    pagination_class = FruitPagination
    lookup_value_regex = ID_PATTERN
    # The one fruit's representation; the API shows it whole, with what other apps add
    # (citations, characteristics), by subclassing this viewset (`wholefruit.api`).
    detail_serializer_class = FruitDetailSerializer

    def get_queryset(self):
        queryset = super().get_queryset()
        if self.action != "list":
            queryset = queryset.with_images().with_relations()
        return queryset

    def get_serializer_class(self):
        return FruitSerializer if self.action == "list" else self.detail_serializer_class

    def perform_destroy(self, instance):
        try:
            fruit_delete(fruit=instance)
        except Fruit.DoesNotExist:
            raise NotFound from None  # deleted since this request found it
        except ProtectedError as error:  # publications still link it
            raise Conflict(protection_message(error)) from None

    def write(self, serializer):
        data = dict(serializer.validated_data)
        if "chosen_card_image_id" in data:
            data["card_image_id"] = data.pop("chosen_card_image_id")
        if serializer.instance is None:
            return fruit_create(**data)
        try:
            return fruit_update(fruit=serializer.instance, **data)
        except Fruit.DoesNotExist:
            raise NotFound from None  # deleted since this request found it: never stored again


@image_viewset_schema(
    image_id=IMAGE_ID,
    serializer=ImageInfoSerializer,
    list_summary="List a fruit's images, oldest first",
    create=extend_schema(
        summary="Upload an image of a fruit",
        description=IMAGE_UPLOAD_NOTE,
        request=IMAGE_UPLOAD_REQUEST,
        responses={201: ImageInfoSerializer},
        parameters=IDEMPOTENCY_PARAMETERS,
    ),
)
@extend_schema(parameters=[FRUIT_ID])
class FruitImageViewSet(IdempotentCreateMixin, ThumbnailedImageViewSet):
    """Images of one fruit: metadata as JSON, bytes as themselves."""

    serializer_class = ImageInfoSerializer
    upload_serializer_class = ImageUploadSerializer
    parent_model = Fruit
    child_model = FruitImage

    def get_queryset(self):
        return FruitImage.objects.without_blobs().filter(fruit_id=self.kwargs["id"]).order_by("pk")

    def get_parent(self) -> Fruit:
        return get_object_or_404(Fruit.objects.only("pk", "name"), pk=self.kwargs["id"])

    def build_upload(self, request):
        return FruitImage(fruit=self.get_parent()), uploaded_bytes(request, "image")

    image_read = ByteRead(
        rows=lambda kwargs: FruitImage.objects.filter(pk=kwargs["imageId"], fruit_id=kwargs["id"]),
        spec=FruitImage.original,
        stem=lambda kwargs: f"fruit-{kwargs['id']}-image-{kwargs['imageId']}",
    )
    thumbnail_read = dataclasses.replace(
        image_read, spec=FruitImage.thumbnail, fallback=FruitImage.original
    )


class ImportPermission(permissions.BasePermission):
    """An import creates and changes fruits: it needs `add_fruit` and `change_fruit`."""

    def has_permission(self, request, view):
        if request.method not in ("POST",):
            return True  # OPTIONS; other methods are 405s
        return bool(request.user and request.user.is_authenticated) and request.user.has_perms(
            ["catalog.add_fruit", "catalog.change_fruit"]
        )


class ImportReportSerializer(serializers.Serializer):
    """What an import found and did."""

    class ImportErrorSerializer(serializers.Serializer):
        row = serializers.IntegerField(
            help_text="As a spreadsheet numbers it: the header is 1; 0 for the request itself."
        )
        field = serializers.CharField(help_text='The column, "" for the row as a whole.')
        message = serializers.CharField()

    dry_run = serializers.BooleanField()
    created = serializers.IntegerField(help_text="Rows that create a fruit.")
    updated = serializers.IntegerField(help_text="Rows that change a fruit.")
    unchanged = serializers.IntegerField(help_text="Rows equal to their fruit.")
    errors = ImportErrorSerializer(
        many=True, help_text="Every error; any error and nothing is written."
    )
    batch = serializers.IntegerField(
        allow_null=True,
        help_text="The applied import (`/imports`, which can undo it); null when nothing was "
        "written (a dry run, an error, nothing new or changed).",
    )


class ImportUploadSerializer(serializers.Serializer):
    """Multipart body of an import."""

    file = serializers.FileField(help_text="A CSV (UTF-8, comma or semicolon) or XLSX file.")


DRY_RUN = OpenApiParameter(
    "dry_run",
    bool,
    OpenApiParameter.QUERY,
    required=False,
    description="`1`: check and report without writing.",
)


class FruitImportBase(UploadsMixin, viewsets.GenericViewSet):
    """Fruits from a spreadsheet, all or nothing (`catalog.imports`)."""

    permission_classes = [ImportPermission]
    parser_classes = SPREADSHEET_UPLOAD_PARSERS
    serializer_class = ImportReportSerializer
    pagination_class = None
    filter_backends = []

    def create(self, request, *args, **kwargs):
        dry_run = request.query_params.get("dry_run", "0")
        if dry_run not in ("0", "1", "true", "false"):
            return self.refused("dry_run", _("Use 1 or 0."), dry_run=False)
        dry_run = dry_run in ("1", "true")
        try:
            data = uploaded_bytes(request, "file")
        except serializers.ValidationError as error:
            return self.refused("file", error.detail["file"][0], dry_run=dry_run)
        if not data:  # an empty file in the multipart form
            return self.refused("file", _("The submitted file is empty."), dry_run=dry_run)
        name = getattr(request.FILES.get("file"), "name", "")
        report = import_fruits(data, dry_run=dry_run, file_name=name)
        code = status.HTTP_200_OK if report.ok else status.HTTP_400_BAD_REQUEST
        return Response(report.as_dict(), status=code)

    @staticmethod
    def refused(field: str, message: str, *, dry_run: bool) -> Response:
        """A request refused before any file was read: the report's shape, row 0."""
        report = ImportReport(dry_run=dry_run, errors=[RowError(0, field, message)])
        return Response(report.as_dict(), status=status.HTTP_400_BAD_REQUEST)


@extend_schema_view(
    create=extend_schema(
        summary="Import fruits from a spreadsheet",
        description=(
            "A CSV body (`text/csv`, or `application/octet-stream`: UTF-8 with or without a BOM, "
            "comma or semicolon separated, a header row) or an XLSX file (multipart field `file`, "
            "or the raw bytes). Columns: "
            "`catalog_number`, `name`, `type` (required), `synonyms` (names separated by `;`); "
            "the export's `image_count`, `url` and `updated_at` are ignored; `char:<code>` "
            "columns set a characteristic's states (values joined by `|`; an empty cell removes "
            "the fruit's value; only the columns present change); any other column "
            "is a 400 naming it. A row whose catalog number exists updates that fruit, others "
            "create one. A file with any error changes nothing: 400 with every error, by "
            "spreadsheet row (the header is row 1) and column. A clean file is applied in one "
            "transaction: 200. Needs the rights to add and to change fruits."
        ),
        parameters=[DRY_RUN, *IDEMPOTENCY_PARAMETERS],
        # Declared as the two forms generated clients send; `text/csv` is taken as well.
        request={
            "application/octet-stream": OpenApiTypes.BINARY,
            "multipart/form-data": ImportUploadSerializer,
        },
        responses={
            200: ImportReportSerializer,
            400: OpenApiResponse(
                description=(
                    "The file has errors (the report, every error listed; nothing written), or "
                    "the request itself is malformed (a bad `Idempotency-Key`)."
                ),
                response={
                    "oneOf": [
                        {"$ref": "#/components/schemas/ImportReport"},
                        {"$ref": "#/components/schemas/ValidationError"},
                    ]
                },
            ),
        },
    ),
)
class FruitImportViewSet(IdempotentCreateMixin, FruitImportBase):
    """Fruits from a spreadsheet, all or nothing; a retry with its `Idempotency-Key` imports
    once."""


EXPORT_FILTERS = [
    OpenApiParameter(
        "search", str, OpenApiParameter.QUERY, required=False, description="As on the fruit list."
    ),
    OpenApiParameter(
        "type",
        str,
        OpenApiParameter.QUERY,
        required=False,
        many=True,
        enum=FruitType.values,
        description="As on the fruit list; repeat it for several types.",
    ),
]


@extend_schema(
    summary="Export the fruits as CSV",
    description=(
        "UTF-8 CSV with the columns `catalog_number,name,type,synonyms,image_count,url,"
        "updated_at` and a `char:<code>` column per characteristic (its states' values joined "
        "by `|`) (`synonyms` joined with `; `, `url` the fruit's public page), in catalog "
        "order; the list's `search` and `type` apply. Streamed; imports back unchanged "
        "(`POST /api/v1/imports/fruits`). `ETag` and `Last-Modified` date the newest change, so "
        "a conditional request is a 304. Full builds are limited per client address "
        "(`FRUITCATALOG_EXPORT_RATE_PER_ADDRESS`, 60 an hour by default; 429 past it)."
    ),
    parameters=EXPORT_FILTERS,
    responses={
        (200, "text/csv"): OpenApiTypes.BINARY,
        (200, "application/octet-stream"): OpenApiTypes.BINARY,
        304: NOT_MODIFIED,
    },
)
class FruitCSVExportView(StreamedFileView):
    """Every fruit (the list's filters apply) as CSV."""

    media_type = exports.CSV_MEDIA_TYPE
    filename = "fruits.csv"

    def filtered(self, request):
        """The fruits the filters name; a 400 for a bad filter."""
        data = QueryDict(mutable=True)
        data["ordering"] = "catalog_number"  # every match, not a search's ranked window
        if "search" in request.query_params:
            data["search"] = request.query_params["search"]
        data.setlist("type", request.query_params.getlist("type"))
        filterset = FruitFilter(data, queryset=Fruit.objects.all())
        if not filterset.is_valid():
            raise serializers.ValidationError(filterset.errors)
        return filterset.qs

    def version_key(self, request):
        self.fruits = self.filtered(request)
        types = ",".join(sorted(request.query_params.getlist("type")))
        return f"search={request.query_params.get('search', '')}\ntype={types}"

    def last_modified(self, request):
        return exports.last_modified()

    def stream(self, request):
        return exports.csv_bytes(self.fruits, request)
