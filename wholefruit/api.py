"""The API's fruit detail shown whole: the catalog's fruit with the publications that describe
it and the characteristics it shows (`fruitcatalog.api` routes the fruits here).
"""

from django.core.exceptions import ValidationError as DjangoValidationError
from django.db import transaction
from django.db.models import Prefetch
from drf_spectacular.utils import OpenApiResponse, extend_schema, extend_schema_serializer
from rest_framework import generics, serializers, status
from rest_framework.decorators import action
from rest_framework.exceptions import NotFound
from rest_framework.response import Response

from catalog.models import Fruit
from catalog.serializers import BoundedListField, FruitDetailSerializer
from catalog.views import FruitViewSet
from core.rest.exceptions import Conflict
from history.api import CuratorsOnly
from history.services import CatalogNumberHeld, VersionNotFound, fruit_restore, fruit_revert
from identification.described import characteristic_record, described_groups, with_described
from identification.serializers import FruitCharacteristicSerializer
from identification.services import fruit_set_characteristics
from identification.validators import clean_fruit_characteristics
from publications.models import PublicationFruit
from publications.serializers import FruitCitationSerializer


class CharacteristicsField(BoundedListField):
    """The characteristics a fruit shows: read from `with_described()`, written as a list."""

    def get_attribute(self, instance):
        return described_groups(instance)

    def to_representation(self, data):
        return [characteristic_record(group) for group in data]


# The schema keeps the catalog's name for it.
@extend_schema_serializer(component_name="FruitDetail")
class WholeFruitDetailSerializer(FruitDetailSerializer):
    """A fruit with its images, relations, the publications that describe it (`citations`,
    oldest publication first: no year last, then by title) and its characteristics."""

    citations = FruitCitationSerializer(many=True, read_only=True)
    characteristics = CharacteristicsField(
        child=FruitCharacteristicSerializer(),
        max_length=200,
        required=False,
        help_text=(
            "The characteristics the fruit shows, in question order; writing the field replaces "
            "the set. Refused (400, naming the entry): an unknown code, one that does not apply "
            "to the fruit's type, a value that is not one of its states, empty `values`, the "
            "same code twice, a `source_publication` that does not link the fruit. Changing "
            "the fruit's type drops the values that do not apply to the new type."
        ),
    )

    class Meta(FruitDetailSerializer.Meta):
        fields = [*FruitDetailSerializer.Meta.fields, "citations", "characteristics"]

    def validate(self, attrs):
        attrs = super().validate(attrs)
        if "characteristics" in attrs:
            fruit_type = attrs.get("type") or getattr(self.instance, "type", None)
            try:
                attrs["characteristics"] = clean_fruit_characteristics(
                    attrs["characteristics"], fruit_type=fruit_type
                )
            except DjangoValidationError as error:
                raise serializers.ValidationError({"characteristics": error.messages}) from None
        return attrs


@extend_schema_serializer(component_name="RestoredFruit")
class RevertedFruitSerializer(WholeFruitDetailSerializer):
    """A fruit's detail after a revert or a restore, with what could not be restored."""

    not_restored = serializers.ListField(
        child=serializers.CharField(), read_only=True, default=list
    )

    class Meta(WholeFruitDetailSerializer.Meta):
        fields = [*WholeFruitDetailSerializer.Meta.fields, "not_restored"]


class WholeFruitViewSet(FruitViewSet):
    """Fruits of the catalog. A fruit's detail holds its images, names and relations, the
    publications that describe it and the characteristics it shows, which a write may set."""

    detail_serializer_class = WholeFruitDetailSerializer
    history_model = Fruit  # who may revert (`CuratorsOnly`)

    def get_view_name(self):
        """Named for the resource ("Fruit List", "Fruit Instance": the browsable API's title,
        OPTIONS' `name`), not for what this class adds to the catalog's viewset."""
        return self.name or " ".join(filter(None, ["Fruit", self.suffix]))

    def get_queryset(self):
        queryset = super().get_queryset()
        if self.action == "list":
            return queryset
        citations = PublicationFruit.objects.as_citations()
        return with_described(queryset).prefetch_related(
            Prefetch("publication_links", queryset=citations, to_attr="citations")
        )

    def write(self, serializer):
        """The fruit, then its characteristics, in one transaction under the fruit's lock."""
        records = serializer.validated_data.pop("characteristics", None)
        with transaction.atomic():
            fruit = super().write(serializer)
            if records is not None:
                fruit_set_characteristics(fruit=fruit, records=records)
        return fruit

    @extend_schema(
        tags=["history"],
        summary="Revert a fruit to one of its versions (curators)",
        request=None,
        responses={
            200: RevertedFruitSerializer,
            404: OpenApiResponse(description="No such fruit or version."),
            409: OpenApiResponse(description="The version's catalog number is another fruit's."),
        },
    )
    @action(
        detail=True,
        methods=["post"],
        url_path=r"history/(?P<version>[0-9a-f-]{36})/revert",
        permission_classes=[CuratorsOnly],
    )
    def revert(self, request, pk=None, version=None):
        """Make the fruit's fields, names, relations and characteristic values what they were
        after the version (its images stay), recorded as a `reverted` version. What can no
        longer be restored as it was is named in `not_restored`."""
        try:
            fruit, missing = fruit_revert(fruit_id=int(pk), version_id=version)
        except (Fruit.DoesNotExist, VersionNotFound):
            raise NotFound() from None
        except CatalogNumberHeld as held:
            raise Conflict(held.message_dict) from None
        body = self.get_serializer(self.get_queryset().get(pk=fruit.pk)).data
        return Response({**body, "not_restored": missing})


@extend_schema(
    tags=["history"],
    summary="Restore a deleted fruit (curators)",
    request=None,
    responses={
        201: RevertedFruitSerializer,
        404: OpenApiResponse(
            description="Not a deleted fruit (or restored already, or purged: "
            "`manage.py purge_deleted`)."
        ),
        409: OpenApiResponse(description="Its catalog number is another fruit's now."),
    },
)
class FruitRestoreView(generics.GenericAPIView):
    """Bring a deleted fruit back under its id and catalog number, with its names, the
    relations that still can be, its characteristic values, and its images (kept for
    `FRUITCATALOG_DELETED_RETENTION_DAYS`, 30 by default) under their ids with its card image."""

    permission_classes = [CuratorsOnly]
    history_model = Fruit
    required_perms = ("catalog.add_fruit",)  # a restore creates the fruit again
    serializer_class = RevertedFruitSerializer
    filter_backends = []

    def post(self, request, id):
        try:
            fruit, missing = fruit_restore(fruit_id=int(id))
        except VersionNotFound:
            raise NotFound() from None
        except CatalogNumberHeld as held:
            raise Conflict(held.message_dict) from None
        queryset = WholeFruitViewSet(request=request, action="retrieve").get_queryset()
        body = WholeFruitDetailSerializer(
            queryset.get(pk=fruit.pk), context={"request": request}
        ).data
        return Response({**body, "not_restored": missing}, status=status.HTTP_201_CREATED)
