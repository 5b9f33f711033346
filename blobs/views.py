"""Byte endpoints: the base viewset of thumbnailed images, upload helpers, the backfill endpoint."""

import functools
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

from django.conf import settings
from django.core.exceptions import ObjectDoesNotExist
from django.core.exceptions import ValidationError as DjangoValidationError
from django.db import transaction
from django.shortcuts import get_object_or_404
from django.utils.translation import gettext
from drf_spectacular.utils import extend_schema
from rest_framework import mixins, serializers, status, viewsets
from rest_framework.decorators import action
from rest_framework.exceptions import ErrorDetail, NotFound
from rest_framework.parsers import JSONParser
from rest_framework.response import Response
from rest_framework.views import APIView

from blobs import imaging
from blobs.backfill import backfill_thumbnails, remaining_count, thumbnailed_models
from blobs.parsers import IMAGE_UPLOAD_PARSERS
from blobs.reads import ByteRead
from blobs.rights import validate_attribution
from blobs.serializers import ImageDetailsSerializer
from blobs.signals import image_deleted
from blobs.uploads import as_field_error, image_refused, validate_upload_size
from core.db.locks import lock_row
from core.rest.exceptions import Conflict
from core.rest.permissions import IsStaffOrReadOnly, ParentChangePermission
from core.rest.throttling import UploadThrottle


def byte_view(read: ByteRead, drf_view: Callable) -> Callable:
    """The view of a byte path: GET and HEAD answered by `read`, other methods by `drf_view`.

    A byte read is a public read that needs nothing of DRF (no content negotiation: any `Accept`
    gets the bytes; no client lookup; no `Vary: Accept`), so it is a plain Django view behind
    the whole middleware stack. Writes, `OPTIONS` and the OpenAPI schema stay the DRF view's
    (`functools.wraps` keeps the attributes drf-spectacular and the CSRF check read).
    """

    @functools.wraps(drf_view)
    def view(request, **kwargs):
        if request.method in ("GET", "HEAD"):
            return read(request, **kwargs)
        return drf_view(request, **kwargs)

    return view


class UploadsMixin:
    """A view that takes uploads: the upload limit as its body cap, the optional upload rate."""

    accepts_uploads = True  # read by core.http.bodies.RequestGuardMiddleware
    throttle_classes = [UploadThrottle]


class UploadFormMixin:
    """The browsable API offers the upload as its POST form; responses keep `serializer_class`."""

    upload_serializer_class: type[serializers.Serializer] | None = None

    def get_serializer_class(self):
        if self.upload_serializer_class and getattr(self.request, "method", None) == "POST":
            return self.upload_serializer_class
        return super().get_serializer_class()


# Thumbnails of uploads are made here while the request's thread writes the bytes. Two at a
# time per process at most: a third upload waits its turn, so decoding memory stays bounded.
THUMBNAILER = ThreadPoolExecutor(max_workers=2, thread_name_prefix="thumbnail")


class DuplicateImage(Conflict):
    """The parent already has an image with these bytes (409, naming it as `image_id`)."""

    def __init__(self, image_id: int):
        super().__init__()
        self.detail = {
            "detail": ErrorDetail(
                gettext("This image is already stored as image %(id)s.") % {"id": image_id},
                code="duplicate_image",
            ),
            "image_id": image_id,
        }


def save_uploaded_image(image, data: bytes, field: str = "image") -> None:
    """Validate uploaded bytes, store the image with its thumbnail; a 400 when unfit, a 409
    (`DuplicateImage`) when its parent already has these bytes.

    The header checks come first. Then the thumbnail is made on a worker thread while this one
    writes the bytes: Pillow's decoding and the database's write both release the GIL, so an
    upload costs about the longer of the two rather than their sum (`make bench`, "An upload").
    The row and its thumbnail commit together, and a thumbnail that cannot be made rolls the row
    back (400). The parent is locked in the transaction, so an image never lands on a parent
    deleted meanwhile (a 404), and two uploads of the same bytes cannot both pass the duplicate
    check.
    """
    max_pixels = settings.FRUITCATALOG_MAX_IMAGE_PIXELS
    try:
        validate_upload_size(data)
        info = imaging.inspect_image(data, max_pixels=max_pixels)
    except imaging.ImageError as error:
        raise as_field_error(field, image_refused(error)) from None
    except DjangoValidationError as error:
        raise as_field_error(field, error) from None
    pending = THUMBNAILER.submit(imaging.inspect_and_thumbnail_sized, data, max_pixels=max_pixels)
    try:
        with transaction.atomic():
            try:
                image.lock_parent()
            except ObjectDoesNotExist:  # the parent's `DoesNotExist`: deleted meanwhile
                raise NotFound from None
            image.store(data, info=info)
            duplicate = image.duplicate_id()
            if duplicate is not None:
                raise DuplicateImage(duplicate)
            image.save()
            _, thumbnail = pending.result()
            image.store_thumbnail(thumbnail)
            image.save(update_fields=["thumbnail_data"])
    except imaging.ImageError as error:
        raise as_field_error(field, image_refused(error)) from None
    finally:
        pending.cancel()  # not started yet (the parent was gone): never started


@transaction.atomic
def image_set_details(image, details: dict) -> None:
    """Change an image's details (`ImageDetailsSerializer`'s fields); the image is locked first,
    so one deleted meanwhile is a 404 rather than being stored again.

    The attribution rule is checked again with the licence and creator read under the lock: a
    concurrent change of the other one cannot leave a `CC-BY-…` image without its creator.
    """
    try:
        license, creator = lock_row(type(image), image.pk, read=("license", "creator"))
    except type(image).DoesNotExist:
        raise NotFound from None
    try:
        validate_attribution(
            license=details.get("license", license),
            creator=details.get("creator", creator),
            changed=details,
        )
    except DjangoValidationError as error:
        raise as_field_error("creator", error) from None
    for name, value in details.items():
        setattr(image, name, value)
    image.save(update_fields=[*details, "updated_at"])


@transaction.atomic
def image_delete(image) -> None:
    """Delete an image on its own (its parent stays), telling the apps above first
    (`signals.image_deleted`), in the delete's transaction."""
    image_deleted.send(sender=type(image), instance=image)
    image.delete()


class ThumbnailedImageViewSet(
    UploadsMixin,
    UploadFormMixin,
    mixins.ListModelMixin,
    mixins.DestroyModelMixin,
    viewsets.GenericViewSet,
):
    """Images of one parent resource: metadata as JSON, bytes and thumbnails as themselves.

    Reads are public; writes need `change_` on `parent_model`. A subclass names its queryset,
    serializers, `parent_model`, the image id's URL keyword and the byte reads of the image and
    its thumbnail (`blobs.reads.ByteRead`), and says how to find the parent
    (`get_parent`) and how an upload becomes an unsaved image (`build_upload`).
    """

    permission_classes = [ParentChangePermission]
    parser_classes = IMAGE_UPLOAD_PARSERS
    pagination_class = None
    filter_backends = []
    image_url_kwarg = "imageId"
    image_read: ByteRead
    thumbnail_read: ByteRead

    def get_parent(self):
        """The parent in the path, or 404."""
        raise NotImplementedError

    def build_upload(self, request) -> tuple:
        """The unsaved image an upload creates, and the uploaded bytes."""
        raise NotImplementedError

    def get_object(self):
        return get_object_or_404(self.get_queryset(), pk=self.kwargs[self.image_url_kwarg])

    def list(self, request, *args, **kwargs):
        self.get_parent()
        return super().list(request, *args, **kwargs)

    def get_parsers(self):
        # Called before DRF sets `action`; `request` is Django's here.
        if getattr(self.request, "method", None) == "PATCH":  # an image's details, as JSON
            return [JSONParser()]
        return super().get_parsers()

    def create(self, request, *args, **kwargs):
        image, data = self.build_upload(request)
        if not isinstance(request.data, bytes):  # multipart: the details may come along
            details = ImageDetailsSerializer(data=request.data)
            details.is_valid(raise_exception=True)
            for name, value in details.validated_data.items():
                setattr(image, name, value)
        save_uploaded_image(image, data)
        body = self.serializer_class(image, context=self.get_serializer_context()).data
        location = request.build_absolute_uri(image.get_absolute_url())
        return Response(body, status=status.HTTP_201_CREATED, headers={"Location": location})

    def retrieve(self, request, *args, **kwargs):
        return self.image_read(request, **kwargs)

    def perform_destroy(self, instance):
        image_delete(instance)

    def partial_update(self, request, *args, **kwargs):
        image = self.get_object()
        details = ImageDetailsSerializer(image, data=request.data, partial=True)
        details.is_valid(raise_exception=True)
        image_set_details(image, details.validated_data)
        body = self.serializer_class(self.get_object(), context=self.get_serializer_context())
        return Response(body.data)

    # An action, so that subclasses can document it with `extend_schema_view` (routes are explicit).
    @action(detail=True, methods=["get"])
    def thumbnail(self, request, *args, **kwargs):
        return self.thumbnail_read(request, **kwargs)


class BackfillResultSerializer(serializers.Serializer):
    """What the backfill did for one kind of image."""

    generated = serializers.IntegerField()
    failed = serializers.IntegerField()
    failed_ids = serializers.ListField(child=serializers.IntegerField())


class BackfillReportSerializer(serializers.Serializer):
    """The backfill's result per kind of image (publications' covers among them)."""

    # The keys are the models' `backfill_key`s. One instance per key: a shared field instance
    # would be bound to the last name only.
    fruit_images = BackfillResultSerializer()
    publication_fruit_images = BackfillResultSerializer()
    publication_covers = BackfillResultSerializer()
    remaining = serializers.IntegerField(
        help_text=(
            "Images still without a thumbnail, not counting those this call found undecodable: "
            "call again until it is 0."
        )
    )


class BackfillThumbnailsView(APIView):
    """Generate missing thumbnails (staff holding `change_` on the image models), as the command."""

    permission_classes = [IsStaffOrReadOnly]

    def required_permissions(self) -> list[str]:
        """What the admin's action asks: `change_` on every model it backfills."""
        return [
            f"{model._meta.app_label}.change_{model._meta.model_name}"
            for model in thumbnailed_models()
        ]

    @extend_schema(
        summary="Generate missing thumbnails",
        description=(
            "Works for at most `FRUITCATALOG_BACKFILL_SECONDS` (10 s by default, well under the "
            "server's request timeout), then answers with what it did and how many images still "
            "lack a thumbnail (`remaining`): call again until `remaining` is 0. "
            "`manage.py backfill_thumbnails` runs to the end in one go. Needs a staff user "
            "allowed to change fruit images, publication fruit images and publications (for "
            "their covers)."
        ),
        request=None,
        responses={200: BackfillReportSerializer},
    )
    def post(self, request):
        models = thumbnailed_models()
        results = backfill_thumbnails(models=models, seconds=settings.FRUITCATALOG_BACKFILL_SECONDS)
        body = {model.backfill_key: results[model.backfill_key].as_dict() for model in models}
        body["remaining"] = sum(
            remaining_count(model, results[model.backfill_key]) for model in models
        )
        return Response(body)
