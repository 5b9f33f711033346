"""HTTP views of publications: the publications, covers, fruit links, PDFs and fruit images."""

import dataclasses

from django.core.exceptions import ValidationError as DjangoValidationError
from django.shortcuts import get_object_or_404
from django.utils.translation import gettext as _
from django_filters.rest_framework import DjangoFilterBackend
from drf_spectacular.utils import OpenApiParameter, extend_schema, extend_schema_view
from rest_framework import status, viewsets
from rest_framework.decorators import action
from rest_framework.exceptions import NotFound
from rest_framework.parsers import MultiPartParser
from rest_framework.response import Response

from blobs.parsers import IMAGE_UPLOAD_PARSERS, PDF_UPLOAD_PARSERS
from blobs.pdf import validate_pdf_bytes
from blobs.reads import ByteRead
from blobs.schema import (
    IMAGE_UPLOAD_NOTE,
    IMAGE_UPLOAD_REQUEST,
    PDF_TYPES,
    PDF_UPLOAD_REQUEST,
    byte_read_schema,
    image_viewset_schema,
)
from blobs.uploads import as_field_error, check_image_bytes, uploaded_bytes
from blobs.views import (
    ThumbnailedImageViewSet,
    UploadsMixin,
)
from catalog.models import Fruit
from core.db.ids import ID_PATTERN
from core.idempotency.mixins import IDEMPOTENCY_PARAMETERS, IdempotentCreateMixin
from core.rest.permissions import ParentChangePermission
from core.rest.viewsets import ReadBackMixin
from publications.filters import PublicationFilter, PublicationFruitImageFilter
from publications.models import Publication, PublicationFruit, PublicationFruitImage
from publications.serializers import (
    CitationSerializer,
    PublicationFruitImageSerializer,
    PublicationFruitImageUploadSerializer,
    PublicationFruitSerializer,
    PublicationSerializer,
)
from publications.services import (
    publication_cite,
    publication_create,
    publication_delete,
    publication_fruit_set_description,
    publication_link_fruit,
    publication_set_cover,
    publication_unlink_fruit,
    publication_update,
)

PUBLICATION_ID = OpenApiParameter("id", int, OpenApiParameter.PATH, description="Publication id.")
FRUIT_ID = OpenApiParameter("fruitId", int, OpenApiParameter.PATH, description="Fruit id.")
IMG_ID = OpenApiParameter("imgId", int, OpenApiParameter.PATH, description="Image id.")


class PublicationChildMixin:
    """A sub-resource of the publication in the path: public reads, `change_publication` writes."""

    permission_classes = [ParentChangePermission]
    parent_model = Publication
    pagination_class = None
    filter_backends = []

    def get_publication(self) -> Publication:
        """The publication in the path (without its cover bytes), or 404."""
        return get_object_or_404(Publication.objects.without_blobs(), pk=self.kwargs["id"])


@extend_schema_view(
    list=extend_schema(summary="List publications"),
    create=extend_schema(
        summary="Create a publication",
        responses={201: PublicationSerializer},
        parameters=IDEMPOTENCY_PARAMETERS,
    ),
    retrieve=extend_schema(summary="Get a publication", parameters=[PUBLICATION_ID]),
    update=extend_schema(summary="Replace a publication", parameters=[PUBLICATION_ID]),
    partial_update=extend_schema(summary="Update a publication", parameters=[PUBLICATION_ID]),
    destroy=extend_schema(
        summary="Delete a publication",
        description="Removes its cover, fruit links, PDFs and fruit images with it.",
        parameters=[PUBLICATION_ID],
    ),
)
class PublicationViewSet(IdempotentCreateMixin, ReadBackMixin, viewsets.ModelViewSet):
    """Publications with the fruits they describe."""

    queryset = Publication.objects.with_list_data().in_default_order()
    serializer_class = PublicationSerializer
    filterset_class = PublicationFilter
    lookup_url_kwarg = "id"
    lookup_value_regex = ID_PATTERN

    def write(self, serializer):
        if serializer.instance is None:
            return publication_create(**serializer.validated_data)
        try:
            return publication_update(publication=serializer.instance, **serializer.validated_data)
        except Publication.DoesNotExist:
            raise NotFound from None  # deleted since this request found it: never stored again

    def perform_destroy(self, instance):
        try:
            publication_delete(publication=instance)
        except Publication.DoesNotExist:
            raise NotFound from None  # deleted since this request found it


class StoredFileViewSet(UploadsMixin, PublicationChildMixin, viewsets.GenericViewSet):
    """A file stored on the path's row: GET its bytes, PUT replaces them, DELETE removes them.

    A subclass names the read of its bytes (`byte_read`), the upload's field and check (the
    API's and the admin's one rule), how the bytes are stored (`store(row, data)`; `None`
    removes them; a row deleted meanwhile raises its `DoesNotExist`, a 404), whether the row has
    them, and what a PUT answers.
    """

    byte_read: ByteRead
    upload_field: str

    def validate_upload(self, data: bytes) -> None:
        raise NotImplementedError

    def store(self, row, data: bytes | None) -> None:
        raise NotImplementedError

    def has_file(self, row) -> bool:
        raise NotImplementedError

    def represent(self, row) -> dict:
        raise NotImplementedError

    def retrieve(self, request, *args, **kwargs):
        return self.byte_read(request, **kwargs)

    def update(self, request, *args, **kwargs):
        row = self.get_object()
        data = uploaded_bytes(request, self.upload_field)
        try:
            self.validate_upload(data)
        except DjangoValidationError as error:
            raise as_field_error(self.upload_field, error) from None
        self.store_or_404(row, data)
        return Response(self.represent(row))

    def destroy(self, request, *args, **kwargs):
        row = self.get_object()
        if not self.has_file(row):
            raise NotFound
        self.store_or_404(row, None)
        return Response(status=status.HTTP_204_NO_CONTENT)

    def store_or_404(self, row, data: bytes | None) -> None:
        """`store`, a 404 when the row was deleted since this request found it."""
        try:
            self.store(row, data)
        except type(row).DoesNotExist:
            raise NotFound from None


@extend_schema_view(
    retrieve=byte_read_schema(
        summary="Get the cover image", description="404 when there is no cover."
    ),
    update=extend_schema(
        summary="Upload or replace the cover image",
        description=IMAGE_UPLOAD_NOTE,
        request=IMAGE_UPLOAD_REQUEST,
        responses=PublicationSerializer,
    ),
    destroy=extend_schema(
        summary="Remove the cover image",
        description="404 when there is no cover.",
        responses={204: None},
    ),
    thumbnail=byte_read_schema(
        summary="Get the cover's JPEG thumbnail (the cover when it has none)",
        description=(
            "`image/jpeg`, cropped to the cover's content and at most 300 px a side; a cover "
            "stored without a thumbnail serves its own bytes and type. 404 when there is no "
            "cover. Its version is that of the bytes served."
        ),
    ),
)
@extend_schema(parameters=[PUBLICATION_ID])
class PublicationCoverViewSet(StoredFileViewSet):
    """The cover image of a publication, as bytes."""

    serializer_class = PublicationSerializer
    parser_classes = IMAGE_UPLOAD_PARSERS
    upload_field = "image"
    byte_read = ByteRead(
        rows=lambda kwargs: Publication.objects.filter(pk=kwargs["id"]),
        spec=Publication.cover,
        stem=lambda kwargs: f"publication-{kwargs['id']}-cover",
    )
    thumbnail_read = dataclasses.replace(
        byte_read, spec=Publication.cover_thumbnail, fallback=Publication.cover
    )

    def get_object(self):
        return self.get_publication()

    # An action, so that `extend_schema_view` documents it (the route is explicit).
    @action(detail=True, methods=["get"])
    def thumbnail(self, request, *args, **kwargs):
        return self.thumbnail_read(request, **kwargs)

    def validate_upload(self, data):
        self.checked = check_image_bytes(data)  # kept: the thumbnail is already made

    def store(self, row, data):
        checked = getattr(self, "checked", None) if data else None
        publication_set_cover(publication=row, data=data, checked=checked)

    def has_file(self, row):
        return row.has_cover

    def represent(self, row):
        """The publication as its representation needs it (links prefetched, no bytes)."""
        return self.get_serializer(
            get_object_or_404(Publication.objects.with_list_data(), pk=row.pk)
        ).data


@extend_schema(parameters=[PUBLICATION_ID])
class PublicationFruitViewSet(PublicationChildMixin, viewsets.GenericViewSet):
    """The fruits a publication describes: link and unlink."""

    child_model = PublicationFruit
    child_actions = {"PUT": "add"}  # linking creates the link (or keeps it); PATCH: change
    serializer_class = PublicationFruitSerializer

    def get_queryset(self):
        return PublicationFruit.objects.with_list_data().filter(publication_id=self.kwargs["id"])

    def get_object(self):
        return get_object_or_404(self.get_queryset(), fruit_id=self.kwargs["fruitId"])

    @extend_schema(summary="List the fruits a publication describes")
    def list(self, request, *args, **kwargs):
        self.get_publication()
        return Response(self.get_serializer(self.get_queryset(), many=True).data)

    @extend_schema(
        summary="Link a fruit to a publication, or change where it cites the fruit",
        description=(
            "Idempotent: 201 when the link is new, 200 when the fruit was already linked. The "
            "optional JSON body sets the citation's fields; fields not sent keep their value "
            "(their default on a new link). Linking needs the right to link fruits; sending fields "
            "needs the right to change citations as well."
        ),
        parameters=[FRUIT_ID],
        request=CitationSerializer,
        responses={200: PublicationFruitSerializer, 201: PublicationFruitSerializer},
    )
    def update(self, request, *args, **kwargs):
        publication = self.get_publication()
        fruit = get_object_or_404(Fruit.objects.only("pk"), pk=self.kwargs["fruitId"])
        citation = self.citation(request)
        if citation and not request.user.has_perm("publications.change_publicationfruit"):
            self.permission_denied(request, _("Changing a citation needs change_publicationfruit."))
        try:
            link, created = publication_link_fruit(
                publication=publication, fruit=fruit, citation=citation
            )
        except (Publication.DoesNotExist, Fruit.DoesNotExist):
            raise NotFound from None  # one of them deleted since this request found it
        body = self.get_serializer(get_object_or_404(self.get_queryset(), pk=link.pk)).data
        if not created:
            return Response(body)
        location = request.build_absolute_uri(link.get_absolute_url())
        return Response(body, status=status.HTTP_201_CREATED, headers={"Location": location})

    @extend_schema(
        summary="Change where a publication cites a fruit",
        description="The fields sent change; 404 when the fruit is not linked.",
        parameters=[FRUIT_ID],
        request=CitationSerializer,
        responses=PublicationFruitSerializer,
    )
    def partial_update(self, request, *args, **kwargs):
        self.get_publication()
        link = self.get_object()
        citation = self.citation(request)
        try:
            publication_cite(link=link, citation=citation)
        except PublicationFruit.DoesNotExist:
            raise NotFound from None  # unlinked since this request found it
        body = self.get_serializer(get_object_or_404(self.get_queryset(), pk=link.pk)).data
        return Response(body)

    @staticmethod
    def citation(request) -> dict:
        """The citation fields of the body (none when it is empty); a 400 when invalid."""
        serializer = CitationSerializer(data=request.data, partial=True)
        serializer.is_valid(raise_exception=True)
        return dict(serializer.validated_data)

    @extend_schema(
        summary="Unlink a fruit from a publication",
        description="Removes the fruit's PDF and images in this publication; 404 when not linked.",
        parameters=[FRUIT_ID],
        responses={204: None},
    )
    def destroy(self, request, *args, **kwargs):
        publication = self.get_publication()
        if not publication_unlink_fruit(publication=publication, fruit_id=self.kwargs["fruitId"]):
            raise NotFound
        return Response(status=status.HTTP_204_NO_CONTENT)


@extend_schema_view(
    retrieve=byte_read_schema(
        summary="Get the PDF describing a fruit",
        description="404 when the fruit is not linked or has no PDF.",
        media_types=PDF_TYPES,
    ),
    update=extend_schema(
        summary="Upload or replace the PDF describing a fruit",
        description=(
            "Multipart field `file`, or the raw bytes as `application/octet-stream` (or "
            "`application/pdf`). 404 when the fruit is not linked; 400 when "
            "the bytes are not a complete PDF with at least one page (the name does not matter)."
        ),
        request=PDF_UPLOAD_REQUEST,
        responses=PublicationFruitSerializer,
    ),
    destroy=extend_schema(
        summary="Remove the PDF describing a fruit",
        description="The fruit stays linked. 404 when there is no PDF.",
        responses={204: None},
    ),
)
@extend_schema(parameters=[PUBLICATION_ID, FRUIT_ID])
class PublicationFruitDescriptionViewSet(StoredFileViewSet):
    """A publication's description of one linked fruit, as a PDF."""

    child_model = PublicationFruit  # the PDF is a field of the link: `change_publicationfruit`
    child_actions = {"DELETE": "change"}  # removing the PDF keeps the link
    serializer_class = PublicationFruitSerializer
    parser_classes = PDF_UPLOAD_PARSERS
    upload_field = "file"
    byte_read = ByteRead(
        rows=lambda kwargs: PublicationFruit.objects.filter(
            publication_id=kwargs["id"], fruit_id=kwargs["fruitId"]
        ),
        spec=PublicationFruit.description,
        stem=lambda kwargs: f"publication-{kwargs['id']}-fruit-{kwargs['fruitId']}-description",
    )

    def get_object(self):
        """The link of the fruit in the path (without its PDF), or 404 when not linked."""
        return get_object_or_404(
            PublicationFruit.objects.without_blobs(),
            publication_id=self.kwargs["id"],
            fruit_id=self.kwargs["fruitId"],
        )

    def validate_upload(self, data):
        validate_pdf_bytes(data)

    def store(self, row, data):
        publication_fruit_set_description(link=row, data=data)

    def has_file(self, row):
        return row.has_description

    def represent(self, row):
        """The link's representation (fruit and image count read again, no bytes)."""
        return self.get_serializer(
            get_object_or_404(PublicationFruit.objects.with_list_data(), pk=row.pk)
        ).data


@image_viewset_schema(
    image_id=IMG_ID,
    serializer=PublicationFruitImageSerializer,
    list_summary="List a publication's fruit images, oldest first",
    create=extend_schema(
        summary="Upload an image of a linked fruit",
        description=(
            "400 when `fruit` is not linked to the publication. The image's details may come as "
            "further fields. Bytes this fruit already has in this publication are a 409 whose "
            "`image_id` names that image; nothing is stored."
        ),
        request={"multipart/form-data": PublicationFruitImageUploadSerializer},
        responses={201: PublicationFruitImageSerializer},
        parameters=IDEMPOTENCY_PARAMETERS,
    ),
)
@extend_schema(parameters=[PUBLICATION_ID])
class PublicationFruitImageViewSet(
    IdempotentCreateMixin, PublicationChildMixin, ThumbnailedImageViewSet
):
    """A publication's images of its fruits: metadata as JSON, bytes as themselves."""

    child_model = PublicationFruitImage
    queryset = PublicationFruitImage.objects.with_link()
    serializer_class = PublicationFruitImageSerializer
    upload_serializer_class = PublicationFruitImageUploadSerializer
    filterset_class = PublicationFruitImageFilter
    filter_backends = [DjangoFilterBackend]
    # Multipart only: the upload needs the `fruit` field next to the file.
    parser_classes = [MultiPartParser]
    image_url_kwarg = "imgId"

    def get_queryset(self):
        return super().get_queryset().of_publication(self.kwargs["id"])

    def get_parent(self) -> Publication:
        return self.get_publication()

    def build_upload(self, request):
        upload = PublicationFruitImageUploadSerializer(
            data=request.data, context={"publication": self.get_publication()}
        )
        upload.is_valid(raise_exception=True)
        image = PublicationFruitImage(link=upload.validated_data["fruit"])
        return image, upload.validated_data["image"].read()

    image_read = ByteRead(
        rows=lambda kwargs: PublicationFruitImage.objects.filter(
            pk=kwargs["imgId"], link__publication_id=kwargs["id"]
        ),
        spec=PublicationFruitImage.original,
        stem=lambda kwargs: f"publication-{kwargs['id']}-fruit-image-{kwargs['imgId']}",
    )
    thumbnail_read = dataclasses.replace(
        image_read, spec=PublicationFruitImage.thumbnail, fallback=PublicationFruitImage.original
    )
