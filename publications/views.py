"""HTTP views of publications: the publications, covers, fruit links, PDFs and fruit images."""

from django.core.exceptions import ValidationError as DjangoValidationError
from django.shortcuts import get_object_or_404
from django_filters.rest_framework import DjangoFilterBackend
from drf_spectacular.utils import (
    OpenApiParameter,
    extend_schema,
    extend_schema_view,
)
from rest_framework import mixins, status, viewsets
from rest_framework.response import Response

from catalog.binary import Blob, blob_response, column_loader, extension_for
from catalog.models import Fruit
from catalog.parsers import IMAGE_UPLOAD_PARSERS, PDF_UPLOAD_PARSERS, LimitedMultiPartParser
from catalog.permissions import ParentChangePermission
from catalog.schema import BINARY_RESPONSE, IMAGE_UPLOAD_REQUEST, PDF_UPLOAD_REQUEST
from catalog.uploads import as_field_error, uploaded_bytes
from catalog.validators import validate_image_bytes
from catalog.views import (
    ID_PATTERN,
    BytesNegotiationMixin,
    ReadBackMixin,
    UploadFormMixin,
    image_blob,
    save_uploaded_image,
    thumbnail_blob,
)
from publications.filters import PublicationFilter, PublicationFruitImageFilter
from publications.models import Publication, PublicationFruit, PublicationFruitImage
from publications.serializers import (
    PublicationFruitImageSerializer,
    PublicationFruitImageUploadSerializer,
    PublicationFruitSerializer,
    PublicationSerializer,
)
from publications.services import publication_link_fruit, publication_unlink_fruit
from publications.validators import PDF_CONTENT_TYPE, validate_pdf_bytes

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
    create=extend_schema(summary="Create a publication", responses={201: PublicationSerializer}),
    retrieve=extend_schema(summary="Get a publication", parameters=[PUBLICATION_ID]),
    update=extend_schema(summary="Replace a publication", parameters=[PUBLICATION_ID]),
    partial_update=extend_schema(summary="Update a publication", parameters=[PUBLICATION_ID]),
    destroy=extend_schema(
        summary="Delete a publication",
        description="Removes its cover, fruit links, PDFs and fruit images with it.",
        parameters=[PUBLICATION_ID],
    ),
)
class PublicationViewSet(ReadBackMixin, viewsets.ModelViewSet):
    """Publications with the fruits they describe."""

    queryset = Publication.objects.with_list_data().in_default_order()
    serializer_class = PublicationSerializer
    filterset_class = PublicationFilter
    lookup_url_kwarg = "id"
    lookup_value_regex = ID_PATTERN


@extend_schema(parameters=[PUBLICATION_ID])
class PublicationCoverViewSet(
    PublicationChildMixin, BytesNegotiationMixin, viewsets.GenericViewSet
):
    """The cover image of a publication, as bytes."""

    serializer_class = PublicationSerializer
    parser_classes = IMAGE_UPLOAD_PARSERS
    byte_actions = frozenset({"retrieve"})

    def get_object(self):
        return self.get_publication()

    @extend_schema(summary="Get the cover image", responses=BINARY_RESPONSE)
    def retrieve(self, request, *args, **kwargs):
        publication = self.get_publication()
        if not publication.has_cover:
            return self.no_cover()
        stem = f"publication-{publication.pk}-cover"
        return blob_response(
            request,
            Blob(
                content_type=publication.cover_content_type,
                size=publication.cover_size,
                sha256=publication.cover_sha256,
                filename=f"{stem}.{extension_for(publication.cover_content_type)}",
                load=column_loader(Publication.objects, publication.pk, "cover_data"),
            ),
        )

    @extend_schema(
        summary="Upload or replace the cover image",
        description="Multipart field `image`, or the raw bytes; JPEG, PNG, GIF or WebP.",
        request=IMAGE_UPLOAD_REQUEST,
        responses=PublicationSerializer,
    )
    def update(self, request, *args, **kwargs):
        publication = self.get_publication()
        data = uploaded_bytes(request, "image")
        try:
            validate_image_bytes(data)
        except DjangoValidationError as error:
            raise as_field_error("image", error) from None
        publication.set_cover(data)
        publication.save(update_fields=["cover_data", "updated_at"])
        return Response(self.get_serializer(self.read_back(publication)).data)

    @extend_schema(
        summary="Remove the cover image",
        description="404 when there is no cover.",
        responses={204: None},
    )
    def destroy(self, request, *args, **kwargs):
        publication = self.get_publication()
        if not publication.has_cover:
            return self.no_cover()
        publication.set_cover(None)
        publication.save(update_fields=["cover_data", "updated_at"])
        return Response(status=status.HTTP_204_NO_CONTENT)

    def no_cover(self):
        """The 404 of a publication without a cover."""
        return Response({"detail": "Not found."}, status=status.HTTP_404_NOT_FOUND)

    def read_back(self, publication) -> Publication:
        """The publication as the representation needs it (links prefetched, no bytes)."""
        return Publication.objects.with_list_data().get(pk=publication.pk)


@extend_schema(parameters=[PUBLICATION_ID])
class PublicationFruitViewSet(PublicationChildMixin, viewsets.GenericViewSet):
    """The fruits a publication describes: link and unlink."""

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
        summary="Link a fruit to a publication",
        description="Idempotent: 201 when the link is new, 200 when the fruit was already linked.",
        parameters=[FRUIT_ID],
        request=None,
        responses={200: PublicationFruitSerializer, 201: PublicationFruitSerializer},
    )
    def update(self, request, *args, **kwargs):
        publication = self.get_publication()
        fruit = get_object_or_404(Fruit.objects.only("pk"), pk=self.kwargs["fruitId"])
        link, created = publication_link_fruit(publication=publication, fruit=fruit)
        body = self.get_serializer(self.get_queryset().get(pk=link.pk)).data
        if not created:
            return Response(body)
        location = request.build_absolute_uri(link.get_absolute_url())
        return Response(body, status=status.HTTP_201_CREATED, headers={"Location": location})

    @extend_schema(
        summary="Unlink a fruit from a publication",
        description="Removes the fruit's PDF and images in this publication; 404 when not linked.",
        parameters=[FRUIT_ID],
        responses={204: None},
    )
    def destroy(self, request, *args, **kwargs):
        publication = self.get_publication()
        if not publication_unlink_fruit(publication=publication, fruit_id=self.kwargs["fruitId"]):
            return Response({"detail": "Not found."}, status=status.HTTP_404_NOT_FOUND)
        return Response(status=status.HTTP_204_NO_CONTENT)


@extend_schema(parameters=[PUBLICATION_ID, FRUIT_ID])
class PublicationFruitDescriptionViewSet(
    PublicationChildMixin, BytesNegotiationMixin, viewsets.GenericViewSet
):
    """A publication's description of one linked fruit, as a PDF."""

    serializer_class = PublicationFruitSerializer
    parser_classes = PDF_UPLOAD_PARSERS
    byte_actions = frozenset({"retrieve"})

    def get_link(self) -> PublicationFruit:
        """The link of the fruit in the path (without its PDF), or 404 when not linked."""
        return get_object_or_404(
            PublicationFruit.objects.without_blobs(),
            publication_id=self.kwargs["id"],
            fruit_id=self.kwargs["fruitId"],
        )

    def get_object(self):
        return self.get_link()

    @extend_schema(
        summary="Get the PDF describing a fruit",
        description="404 when the fruit is not linked or has no PDF.",
        responses=BINARY_RESPONSE,
    )
    def retrieve(self, request, *args, **kwargs):
        link = self.get_link()
        if not link.has_description:
            return self.no_description()
        filename = f"publication-{link.publication_id}-fruit-{link.fruit_id}-description.pdf"
        return blob_response(
            request,
            Blob(
                content_type=PDF_CONTENT_TYPE,
                size=link.description_size,
                sha256=link.description_sha256,
                filename=filename,
                load=column_loader(PublicationFruit.objects, link.pk, "description_data"),
            ),
        )

    @extend_schema(
        summary="Upload or replace the PDF describing a fruit",
        description=(
            "Multipart field `file`, or the raw bytes. 404 when the fruit is not linked; 400 when "
            "the bytes are not a complete PDF with at least one page (the name does not matter)."
        ),
        request=PDF_UPLOAD_REQUEST,
        responses=PublicationFruitSerializer,
    )
    def update(self, request, *args, **kwargs):
        link = self.get_link()
        data = uploaded_bytes(request, "file")
        try:
            validate_pdf_bytes(data)
        except DjangoValidationError as error:
            raise as_field_error("file", error) from None
        link.set_description(data)
        link.save(update_fields=["description_data"])
        return Response(self.read_back(link))

    @extend_schema(
        summary="Remove the PDF describing a fruit",
        description="The fruit stays linked. 404 when there is no PDF.",
        responses={204: None},
    )
    def destroy(self, request, *args, **kwargs):
        link = self.get_link()
        if not link.has_description:
            return self.no_description()
        link.set_description(None)
        link.save(update_fields=["description_data"])
        return Response(status=status.HTTP_204_NO_CONTENT)

    def no_description(self):
        """The 404 of a linked fruit without a PDF."""
        return Response({"detail": "Not found."}, status=status.HTTP_404_NOT_FOUND)

    def read_back(self, link) -> dict:
        """The link's representation (fruit and image count read again, no bytes)."""
        return self.get_serializer(PublicationFruit.objects.with_list_data().get(pk=link.pk)).data


@extend_schema(parameters=[PUBLICATION_ID])
class PublicationFruitImageViewSet(
    PublicationChildMixin,
    UploadFormMixin,
    BytesNegotiationMixin,
    mixins.ListModelMixin,
    mixins.DestroyModelMixin,
    viewsets.GenericViewSet,
):
    """A publication's images of its fruits: metadata as JSON, bytes as themselves."""

    queryset = PublicationFruitImage.objects.with_link()
    serializer_class = PublicationFruitImageSerializer
    upload_serializer_class = PublicationFruitImageUploadSerializer
    filterset_class = PublicationFruitImageFilter
    filter_backends = [DjangoFilterBackend]
    # Multipart only: the upload needs the `fruit` field next to the file.
    parser_classes = [LimitedMultiPartParser]
    byte_actions = frozenset({"retrieve", "thumbnail"})

    def get_queryset(self):
        return super().get_queryset().of_publication(self.kwargs["id"])

    def get_object(self):
        queryset = self.get_queryset()
        if self.action == "thumbnail" and self.request.method == "HEAD":
            queryset = queryset.with_thumbnail_size()
        return get_object_or_404(queryset, pk=self.kwargs["imgId"])

    @extend_schema(summary="List a publication's fruit images, oldest first")
    def list(self, request, *args, **kwargs):
        self.get_publication()
        return super().list(request, *args, **kwargs)

    @extend_schema(
        summary="Upload an image of a linked fruit",
        description="400 when `fruit` is not linked to the publication.",
        request={"multipart/form-data": PublicationFruitImageUploadSerializer},
        responses={201: PublicationFruitImageSerializer},
    )
    def create(self, request, *args, **kwargs):
        publication = self.get_publication()
        upload = PublicationFruitImageUploadSerializer(
            data=request.data, context={"publication": publication}
        )
        upload.is_valid(raise_exception=True)
        image = PublicationFruitImage(link=upload.validated_data["fruit"])
        save_uploaded_image(image, upload.validated_data["image"].read())
        return self.created_response(image)

    @extend_schema(summary="Get the image bytes", parameters=[IMG_ID], responses=BINARY_RESPONSE)
    def retrieve(self, request, *args, **kwargs):
        image = self.get_object()
        stem = f"publication-{image.link.publication_id}-fruit-image-{image.pk}"
        return blob_response(request, image_blob(image, stem))

    @extend_schema(summary="Delete an image", parameters=[IMG_ID], responses={204: None})
    def destroy(self, request, *args, **kwargs):
        return super().destroy(request, *args, **kwargs)

    @extend_schema(
        summary="Get the JPEG thumbnail (the full image when it has none)",
        parameters=[IMG_ID],
        responses=BINARY_RESPONSE,
    )
    def thumbnail(self, request, *args, **kwargs):
        image = self.get_object()
        stem = f"publication-{image.link.publication_id}-fruit-image-{image.pk}"
        return blob_response(request, thumbnail_blob(image, stem))
