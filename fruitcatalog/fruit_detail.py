"""The fruit detail, composed: the catalog's fruit with the publications that describe it.

The catalog knows no publications, and publications take only the fruit model and its services
from the catalog, so the two meet here, in the configuration layer (`fruitcatalog.api` routes
the fruits to `CitedFruitViewSet`).
"""

from django.db.models import Prefetch
from drf_spectacular.utils import extend_schema_serializer

from catalog.serializers import FruitDetailSerializer
from catalog.views import FruitViewSet
from publications.models import PublicationFruit
from publications.serializers import FruitCitationSerializer


# The schema keeps the catalog's name for it.
@extend_schema_serializer(component_name="FruitDetail")
class CitedFruitDetailSerializer(FruitDetailSerializer):
    """A fruit with its images and the publications that describe it (`citations`, oldest
    publication first: no year last, then by title)."""

    citations = FruitCitationSerializer(many=True, read_only=True)

    class Meta(FruitDetailSerializer.Meta):
        fields = [*FruitDetailSerializer.Meta.fields, "citations"]

    def to_representation(self, instance):
        representation = super().to_representation(instance)
        citations = self.fields["citations"]
        representation["citations"] = citations.to_representation(instance.citations)
        return representation


class CitedFruitViewSet(FruitViewSet):
    """The catalog's fruits, each fruit's detail with the publications that describe it."""

    detail_serializer_class = CitedFruitDetailSerializer

    def get_queryset(self):
        queryset = super().get_queryset()
        if self.action == "list":
            return queryset
        citations = PublicationFruit.objects.as_citations()
        return queryset.prefetch_related(
            Prefetch("publication_links", queryset=citations, to_attr="citations")
        )
