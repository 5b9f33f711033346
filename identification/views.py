"""HTTP views of identification: the characteristics, and identify."""

import django_filters
from django.db import IntegrityError
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import (
    OpenApiParameter,
    extend_schema,
    extend_schema_view,
    inline_serializer,
)
from rest_framework import permissions, serializers, viewsets
from rest_framework.exceptions import NotFound
from rest_framework.generics import GenericAPIView
from rest_framework.response import Response

from catalog.exports import fruit_page_url
from catalog.models import FruitImage, FruitType
from core.db.ids import ID_PATTERN
from core.rest.exceptions import ConcurrentChange, Conflict
from core.rest.schema import error_response
from core.rest.viewsets import ReadBackMixin
from identification.identify import LIMIT_DEFAULT, LIMIT_MAX, identify
from identification.models import Characteristic
from identification.serializers import CharacteristicSerializer
from identification.services import StateInUse, characteristic_delete, characteristic_save

CHARACTERISTIC_ID = OpenApiParameter(
    "id", int, OpenApiParameter.PATH, description="Characteristic id."
)
WRITTEN_CHARACTERISTIC = {
    200: CharacteristicSerializer,
    409: error_response(
        "A state the write removes is in use by fruits' values (`detail` names it), or the "
        "write lost a race with another change; nothing changed."
    ),
}


class CharacteristicFilter(django_filters.FilterSet):
    type = django_filters.ChoiceFilter(
        choices=FruitType.choices,
        method="filter_type",
        help_text="Only the characteristics that apply to this fruit type.",
    )

    class Meta:
        model = Characteristic
        fields = []

    def filter_type(self, queryset, name, value):
        return queryset.of_type(value)


@extend_schema_view(
    list=extend_schema(summary="List characteristics, in question order"),
    create=extend_schema(summary="Create a characteristic with its states"),
    retrieve=extend_schema(summary="Get a characteristic", parameters=[CHARACTERISTIC_ID]),
    update=extend_schema(
        summary="Replace a characteristic",
        description="Writing `states` replaces them: 409 when a removed state is in use.",
        parameters=[CHARACTERISTIC_ID],
        responses=WRITTEN_CHARACTERISTIC,
    ),
    partial_update=extend_schema(
        summary="Update a characteristic",
        description="Writing `states` replaces them: 409 when a removed state is in use.",
        parameters=[CHARACTERISTIC_ID],
        responses=WRITTEN_CHARACTERISTIC,
    ),
    destroy=extend_schema(
        summary="Delete a characteristic with its states and the values stored for it",
        parameters=[CHARACTERISTIC_ID],
    ),
)
class CharacteristicViewSet(ReadBackMixin, viewsets.ModelViewSet):
    """Characteristics of fruits (UPOV, ECPGR) with their states."""

    queryset = Characteristic.objects.with_states().in_question_order()
    serializer_class = CharacteristicSerializer
    filterset_class = CharacteristicFilter
    lookup_value_regex = ID_PATTERN

    def write(self, serializer):
        data = dict(serializer.validated_data)
        fruit_types = data.pop("type_list", None)
        states = data.pop("states", None)
        characteristic = serializer.instance or Characteristic()
        for name, value in data.items():
            setattr(characteristic, name, value)
        if fruit_types is None:
            fruit_types = characteristic.type_list
        try:
            return characteristic_save(
                characteristic=characteristic, fruit_types=fruit_types, states=states
            )
        except StateInUse as error:
            raise Conflict(str(error)) from None
        except Characteristic.DoesNotExist:
            raise NotFound from None  # deleted since this request found it: never stored again
        except IntegrityError:
            if not changed_since_checked(characteristic, states):
                raise
            raise ConcurrentChange from None

    def perform_destroy(self, instance):
        try:
            characteristic_delete(characteristic=instance)
        except Characteristic.DoesNotExist:
            raise NotFound from None  # deleted since this request found it


def changed_since_checked(characteristic: Characteristic, states: list[dict] | None) -> bool:
    """Whether another request's write, since the serializer checked this one, explains why the
    database refused it: its code taken by another characteristic, or an image one of its states
    shows deleted."""
    others = Characteristic.objects.exclude(pk=characteristic.pk)
    if others.filter(code=characteristic.code).exists():
        return True
    image_ids = {state["image_id"] for state in states or () if state["image_id"] is not None}
    return FruitImage.objects.filter(pk__in=image_ids).count() < len(image_ids)


FRUIT_SUMMARY = inline_serializer(
    "IdentifiedFruit",
    {
        "id": serializers.IntegerField(),
        "catalog_number": serializers.IntegerField(allow_null=True),
        "name": serializers.CharField(),
        "type": serializers.CharField(),
        "thumbnail_url": serializers.URLField(allow_null=True),
        "url": serializers.URLField(help_text="The fruit's public page."),
    },
)
IDENTIFICATION = inline_serializer(
    "Identification",
    {
        "type": serializers.CharField(),
        "answered": serializers.IntegerField(help_text="How many answers were given."),
        "count": serializers.IntegerField(help_text="How many candidates there are in all."),
        "candidates": inline_serializer(
            "Candidate",
            {
                "fruit": FRUIT_SUMMARY,
                "score": serializers.FloatField(
                    help_text="Its share of the evidence among all candidates (they sum to 1)."
                ),
                "matches": serializers.ListField(child=serializers.CharField()),
                "near": serializers.ListField(child=serializers.CharField()),
                "mismatches": inline_serializer(
                    "Mismatch",
                    {
                        "code": serializers.CharField(),
                        "answer": serializers.ListField(child=serializers.IntegerField()),
                        "fruit": serializers.ListField(child=serializers.IntegerField()),
                    },
                    many=True,
                ),
                "unknown": serializers.ListField(child=serializers.CharField()),
            },
            many=True,
        ),
        "next_questions": inline_serializer(
            "NextQuestion",
            {
                "code": serializers.CharField(),
                "name": serializers.CharField(
                    help_text="In the request's language: German where it is German and the "
                    "characteristic has a German name."
                ),
                "states": inline_serializer(
                    "QuestionState",
                    {
                        "value": serializers.IntegerField(),
                        "label": serializers.CharField(
                            help_text="In the request's language, as `name`."
                        ),
                        "candidates": serializers.IntegerField(
                            help_text="How many listed candidates show this state."
                        ),
                    },
                    many=True,
                ),
            },
            many=True,
        ),
    },
)

IDENTIFY_DESCRIPTION = f"""Name the fruits of `type` a described fruit most likely is.

Every parameter but `type` and `limit` is a characteristic's `code` (of `type`; see
`/api/v1/characteristics?type=...`) with the answer: one state value, or several separated by
commas when unsure. An empty value is no answer ("can't tell"). Example:
`/api/v1/identify?type=apple&fruit_size=7&ground_colour=3,5&russet_amount=`.

The candidates are the fruits of `type` with a value for at least one answered characteristic,
best first (ties in catalog order); a mismatch ranks a fruit lower, never excludes it. Each
answer is a match, near (an ordinal neighbour), a mismatch, or unknown (the fruit has no value).
`score` is the candidate's share of the evidence: the scores of all candidates sum to 1.
`next_questions`: up to 3 unanswered characteristics that best separate the listed candidates,
best first, with how many of them show each state; with no answer at all, the first questions
by `position`. `limit`: 1-{LIMIT_MAX} candidates (default {LIMIT_DEFAULT}).

400, naming the parameter: a missing or unknown `type`, a bad `limit`, a code that does not
exist or does not apply to `type`, a value that is not one of its states."""


class IdentifyView(GenericAPIView):
    """Which variety is this fruit?"""

    permission_classes = [permissions.AllowAny]  # a read of public data; GET only
    pagination_class = None
    filter_backends = []
    serializer_class = None

    @extend_schema(
        summary="Identify a fruit by its characteristics",
        description=IDENTIFY_DESCRIPTION,
        parameters=[
            OpenApiParameter(
                "type",
                str,
                required=True,
                enum=FruitType.values,
                description="The fruit type.",
            ),
            OpenApiParameter(
                "limit",
                {"type": "integer", "minimum": 1, "maximum": LIMIT_MAX, "default": LIMIT_DEFAULT},
                description=f"Candidates to list, 1-{LIMIT_MAX} (default {LIMIT_DEFAULT}).",
            ),
            OpenApiParameter(
                "answers",
                OpenApiTypes.OBJECT,
                style="form",
                explode=True,
                description=(
                    "The answers, one query parameter per characteristic `code`: a state "
                    "value, several separated by commas, or empty for no answer."
                ),
            ),
        ],
        responses={200: IDENTIFICATION},
    )
    def get(self, request, *args, **kwargs):
        result = identify(request.query_params)  # a bad parameter: a 400 naming it
        page_url = fruit_page_url(request)
        return Response(
            {
                "type": result.fruit_type,
                "answered": len(result.answers),
                "count": result.count,
                "candidates": [
                    {
                        "fruit": {
                            "id": candidate.fruit.pk,
                            "catalog_number": candidate.fruit.catalog_number,
                            "name": candidate.fruit.name,
                            "type": candidate.fruit.type,
                            "thumbnail_url": None
                            if candidate.fruit.card_thumbnail is None
                            else request.build_absolute_uri(candidate.fruit.card_thumbnail.url),
                            "url": page_url(candidate.fruit.pk),
                        },
                        "score": candidate.score,
                        "matches": candidate.matches,
                        "near": candidate.near,
                        "mismatches": candidate.mismatches,
                        "unknown": candidate.unknown,
                    }
                    for candidate in result.candidates
                ],
                "next_questions": [
                    {
                        "code": next_question.question.code,
                        "name": next_question.question.localized_name,
                        "states": [
                            {
                                "value": state.value,
                                "label": state.localized_label,
                                "candidates": next_question.counts[state.value],
                            }
                            for state in next_question.question.states
                        ],
                    }
                    for next_question in result.next_questions
                ],
            }
        )
