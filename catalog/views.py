"""HTTP views of the catalog: fruits and their images."""

import dataclasses

from django.shortcuts import get_object_or_404
from drf_spectacular.utils import OpenApiParameter, extend_schema, extend_schema_view
from rest_framework import viewsets

from catalog.filters import FruitFilter
from catalog.models import Fruit, FruitImage
from catalog.search import explain_page
from catalog.serializers import FruitDetailSerializer, FruitSerializer, ImageInfoSerializer
from catalog.services import fruit_create, fruit_delete, fruit_update
from fruitcatalog.blobs.reads import ByteRead
from fruitcatalog.blobs.schema import (
    IMAGE_UPLOAD_NOTE,
    IMAGE_UPLOAD_REQUEST,
    ImageUploadSerializer,
    image_viewset_schema,
)
from fruitcatalog.blobs.uploads import uploaded_bytes
from fruitcatalog.blobs.views import ThumbnailedImageViewSet
from fruitcatalog.db.ids import ID_PATTERN
from fruitcatalog.idempotency.mixins import IDEMPOTENCY_PARAMETERS, IdempotentCreateMixin
from fruitcatalog.rest.pagination import PageNumberPagination
from fruitcatalog.rest.viewsets import ReadBackMixin

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
    # The one fruit's representation; the API composes it with what other apps add
    # (publications: its citations) by subclassing this viewset (`fruitcatalog.api`).
    detail_serializer_class = FruitDetailSerializer

    def get_queryset(self):
        queryset = super().get_queryset()
        if self.action != "list":
            queryset = queryset.with_images()
        return queryset

    def get_serializer_class(self):
        return FruitSerializer if self.action == "list" else self.detail_serializer_class

    def perform_destroy(self, instance):
        fruit_delete(fruit=instance)

    def write(self, serializer):
        data = dict(serializer.validated_data)
        if "chosen_card_image_id" in data:
            data["card_image_id"] = data.pop("chosen_card_image_id")
        if serializer.instance is None:
            return fruit_create(**data)
        return fruit_update(fruit=serializer.instance, **data)


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
