"""HTTP views of the catalog: fruits, their images, health."""

from django.conf import settings
from django.core.exceptions import ValidationError as DjangoValidationError
from django.db import DatabaseError, connection, transaction
from django.shortcuts import get_object_or_404
from django.urls import reverse
from drf_spectacular.utils import (
    OpenApiParameter,
    OpenApiResponse,
    extend_schema,
    extend_schema_view,
    inline_serializer,
)
from drf_spectacular.views import SpectacularAPIView
from rest_framework import mixins, serializers, status, viewsets
from rest_framework.authtoken.views import ObtainAuthToken
from rest_framework.permissions import AllowAny
from rest_framework.renderers import JSONRenderer
from rest_framework.response import Response
from rest_framework.views import APIView

from catalog.backfill import backfill_thumbnails
from catalog.binary import Blob, blob_response, column_loader, extension_for
from catalog.filters import FruitFilter
from catalog.models import Fruit, FruitImage
from catalog.parsers import IMAGE_UPLOAD_PARSERS
from catalog.permissions import IsStaffOrReadOnly, ParentChangePermission
from catalog.schema import BINARY_RESPONSE, IMAGE_UPLOAD_REQUEST, ImageUploadSerializer
from catalog.serializers import FruitDetailSerializer, FruitSerializer, ImageInfoSerializer
from catalog.services import fruit_create, fruit_update
from catalog.uploads import as_field_error, uploaded_bytes
from catalog.validators import apply_image_upload

# Ids in paths: at most 18 digits, so every id that matches fits a 64-bit column on every
# database (SQLite refuses larger integers with an OverflowError); longer ones are unknown paths.
ID_PATTERN = r"[0-9]{1,18}"

FRUIT_ID = OpenApiParameter("id", int, OpenApiParameter.PATH, description="Fruit id.")
IMAGE_ID = OpenApiParameter("imageId", int, OpenApiParameter.PATH, description="Image id.")


class ReadBackMixin:
    """Answer a create or update with the row read back through `get_queryset()`.

    The saved instance lacks the list annotations and prefetches the representation needs; a
    create also answers with the new row's `Location`.
    """

    def write(self, serializer):
        """Store the validated data; return the saved instance."""
        return serializer.save()

    def perform_create(self, serializer):
        serializer.instance = self.get_queryset().get(pk=self.write(serializer).pk)

    perform_update = perform_create

    def get_success_headers(self, data):
        lookup = self.lookup_url_kwarg or self.lookup_field
        path = reverse(f"{self.basename}-detail", kwargs={lookup: data["id"]})
        return {"Location": self.request.build_absolute_uri(path)}


@extend_schema_view(
    list=extend_schema(summary="List fruits"),
    create=extend_schema(summary="Create a fruit", responses={201: FruitDetailSerializer}),
    retrieve=extend_schema(summary="Get a fruit with its images"),
    update=extend_schema(summary="Replace a fruit", responses=FruitDetailSerializer),
    partial_update=extend_schema(summary="Update a fruit", responses=FruitDetailSerializer),
    destroy=extend_schema(
        summary="Delete a fruit with its synonyms and images",
        description="409 while a publication links the fruit.",
    ),
)
class FruitViewSet(ReadBackMixin, viewsets.ModelViewSet):
    """Fruits of the catalog."""

    queryset = Fruit.objects.with_list_data().in_catalog_order()
    serializer_class = FruitSerializer
    filterset_class = FruitFilter
    lookup_value_regex = ID_PATTERN

    def get_queryset(self):
        queryset = super().get_queryset()
        if self.action != "list":
            queryset = queryset.with_images()
        return queryset

    def get_serializer_class(self):
        return FruitSerializer if self.action == "list" else FruitDetailSerializer

    def write(self, serializer):
        if serializer.instance is None:
            return fruit_create(**serializer.validated_data)
        return fruit_update(fruit=serializer.instance, **serializer.validated_data)


class BytesNegotiationMixin:
    """Byte actions answer whatever the client accepts; their errors still render as JSON."""

    byte_actions: frozenset[str] = frozenset()

    def perform_content_negotiation(self, request, force=False):
        # DRF would answer `Accept: image/*` with 406, as no JSON renderer matches it.
        force = force or getattr(self, "action", None) in self.byte_actions
        return super().perform_content_negotiation(request, force=force)


class UploadFormMixin:
    """The browsable API offers the upload as its POST form; responses keep `serializer_class`."""

    upload_serializer_class: type[serializers.Serializer] | None = None

    def get_serializer_class(self):
        if self.upload_serializer_class and getattr(self.request, "method", None) == "POST":
            return self.upload_serializer_class
        return super().get_serializer_class()

    def created_response(self, image) -> Response:
        """201 with the stored image's info and its `Location`."""
        data = self.serializer_class(image, context=self.get_serializer_context()).data
        location = self.request.build_absolute_uri(image.get_absolute_url())
        return Response(data, status=status.HTTP_201_CREATED, headers={"Location": location})


@extend_schema(parameters=[FRUIT_ID])
class FruitImageViewSet(
    UploadFormMixin,
    BytesNegotiationMixin,
    mixins.ListModelMixin,
    mixins.DestroyModelMixin,
    viewsets.GenericViewSet,
):
    """Images of one fruit: metadata as JSON, bytes as themselves."""

    serializer_class = ImageInfoSerializer
    upload_serializer_class = ImageUploadSerializer
    permission_classes = [ParentChangePermission]
    parent_model = Fruit
    parser_classes = IMAGE_UPLOAD_PARSERS
    pagination_class = None
    filter_backends = []
    byte_actions = frozenset({"retrieve", "thumbnail"})

    def get_queryset(self):
        return FruitImage.objects.without_blobs().filter(fruit_id=self.kwargs["id"]).order_by("pk")

    def get_fruit(self) -> Fruit:
        """The fruit in the path, or 404."""
        return get_object_or_404(Fruit.objects.only("pk"), pk=self.kwargs["id"])

    @extend_schema(summary="List a fruit's images, oldest first")
    def list(self, request, *args, **kwargs):
        self.get_fruit()
        return super().list(request, *args, **kwargs)

    @extend_schema(
        summary="Upload an image of a fruit",
        request=IMAGE_UPLOAD_REQUEST,
        responses={201: ImageInfoSerializer},
    )
    def create(self, request, *args, **kwargs):
        fruit = self.get_fruit()
        image = FruitImage(fruit=fruit)
        save_uploaded_image(image, uploaded_bytes(request, "image"))
        return self.created_response(image)

    @extend_schema(summary="Get the image bytes", parameters=[IMAGE_ID], responses=BINARY_RESPONSE)
    def retrieve(self, request, *args, **kwargs):
        image = self.get_object()
        return blob_response(request, image_blob(image, f"fruit-{image.fruit_id}-image-{image.pk}"))

    @extend_schema(summary="Delete an image", parameters=[IMAGE_ID], responses={204: None})
    def destroy(self, request, *args, **kwargs):
        return super().destroy(request, *args, **kwargs)

    @extend_schema(
        summary="Get the JPEG thumbnail (the full image when it has none)",
        parameters=[IMAGE_ID],
        responses=BINARY_RESPONSE,
    )
    def thumbnail(self, request, *args, **kwargs):
        image = self.get_object()
        return blob_response(
            request, thumbnail_blob(image, f"fruit-{image.fruit_id}-image-{image.pk}")
        )

    def get_object(self):
        queryset = self.get_queryset()
        if self.action == "thumbnail" and self.request.method == "HEAD":
            queryset = queryset.with_thumbnail_size()
        return get_object_or_404(queryset, pk=self.kwargs["imageId"])


def save_uploaded_image(image, data: bytes, field: str = "image") -> None:
    """Validate uploaded bytes, make the thumbnail and store the image; a 400 when unfit."""
    try:
        apply_image_upload(image, data)
    except DjangoValidationError as error:
        raise as_field_error(field, error) from None
    with transaction.atomic():
        image.save()


def image_blob(image, stem: str) -> Blob:
    """The stored bytes of a thumbnailed image, loaded without them (`stem`: the file name)."""
    return Blob(
        content_type=image.content_type,
        size=image.size,
        sha256=image.sha256,
        filename=f"{stem}.{extension_for(image.content_type)}",
        load=column_loader(type(image).objects, image.pk, "data"),
    )


def thumbnail_blob(image, stem: str) -> Blob:
    """The thumbnail of a thumbnailed image, or the image itself when it has none.

    `image` was loaded without its bytes; for HEAD it is annotated with `thumbnail_size`.
    """
    if image.has_thumbnail:
        return Blob(
            content_type="image/jpeg",
            size=getattr(image, "thumbnail_size", 0) or 0,
            sha256=image.thumbnail_sha256,
            filename=f"{stem}-thumbnail.jpg",
            load=column_loader(type(image).objects, image.pk, "thumbnail_data"),
        )
    return image_blob(image, stem)


HEALTH_BODY = inline_serializer(
    "Health",
    fields={
        "status": serializers.ChoiceField(choices=["ok", "error"]),
        "database": serializers.ChoiceField(choices=["ok", "unavailable"]),
        "version": serializers.CharField(),
    },
)

HEALTH_RESPONSES = {
    200: HEALTH_BODY,
    503: OpenApiResponse(HEALTH_BODY, description="The database is unreachable."),
}


class HealthView(APIView):
    """Liveness and database reachability, for load balancers and container health checks."""

    permission_classes = [AllowAny]
    authentication_classes = []
    renderer_classes = [JSONRenderer]

    def perform_content_negotiation(self, request, force=False):
        # JSON whatever the prober accepts: a health check answering 406 would read as "down".
        return super().perform_content_negotiation(request, force=True)

    @extend_schema(
        operation_id="api_health",
        summary="Health check",
        responses=HEALTH_RESPONSES,
        auth=[],
    )
    def get(self, request):
        try:
            with connection.cursor() as cursor:
                cursor.execute("SELECT 1")
                cursor.fetchone()
        except DatabaseError:
            return Response(
                {"status": "error", "database": "unavailable", "version": settings.VERSION},
                status=status.HTTP_503_SERVICE_UNAVAILABLE,
            )
        return Response({"status": "ok", "database": "ok", "version": settings.VERSION})


class RootHealthView(HealthView):
    """The same health check at /health, outside the API prefix."""

    @extend_schema(
        operation_id="health", summary="Health check", responses=HEALTH_RESPONSES, auth=[]
    )
    def get(self, request):
        return super().get(request)


class SchemaView(SpectacularAPIView):
    """The OpenAPI document (YAML, or JSON on request); its errors are JSON like the API's."""

    def perform_content_negotiation(self, request, force=False):
        if request.method not in ("GET", "HEAD"):
            return JSONRenderer(), JSONRenderer.media_type
        return super().perform_content_negotiation(request, force)


class TokenView(ObtainAuthToken):
    """Exchange a username and password for the user's API token (public)."""

    @extend_schema(
        summary="Get an API token",
        description="Wrong credentials answer 400 with `non_field_errors`.",
        auth=[],
    )
    def post(self, request, *args, **kwargs):
        return super().post(request, *args, **kwargs)


class BackfillResultSerializer(serializers.Serializer):
    """What the backfill did for one kind of image."""

    generated = serializers.IntegerField()
    failed = serializers.IntegerField()
    failed_ids = serializers.ListField(child=serializers.IntegerField())


class BackfillReportSerializer(serializers.Serializer):
    """The backfill's result per kind of image."""

    # One instance per key: a shared field instance would be bound to the last name only.
    fruit_images = BackfillResultSerializer()
    publication_fruit_images = BackfillResultSerializer()


class BackfillThumbnailsView(APIView):
    """Generate missing thumbnails (staff only): the work of `manage.py backfill_thumbnails`."""

    permission_classes = [IsStaffOrReadOnly]

    @extend_schema(
        summary="Generate missing thumbnails",
        request=None,
        responses={200: BackfillReportSerializer},
    )
    def post(self, request):
        results = backfill_thumbnails()
        return Response({key: result.as_dict() for key, result in results.items()})
