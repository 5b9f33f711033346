"""The history's API: a fruit's and a publication's versions, deleted fruits, import batches.

Readable by curators only (the `change_` permission of the model): a version names its user.
"""

from django.contrib.auth import get_user_model
from django.core.paginator import Paginator
from drf_spectacular.utils import extend_schema, extend_schema_field
from rest_framework import generics, permissions, serializers
from rest_framework.exceptions import NotFound

from catalog.models import Fruit, ImportBatch
from core.rest.pagination import PageNumberPagination
from core.rest.schema import error_response
from history.models import Action, Via
from history.versions import deleted_fruits, fruit_versions, publication_versions
from publications.models import Publication


class ListPagination(PageNumberPagination):
    """The API's page numbers and sizes over a list computed in Python (a history)."""

    django_paginator_class = Paginator


# What a curators' read answers besides its rows (the schema marks such a read not public).
CURATORS_READ = {
    401: error_response("Authentication required (`WWW-Authenticate: Token`)."),
    403: error_response("Authenticated but lacking the model's `change_` permission."),
}


class CuratorsOnly(permissions.BasePermission):
    """Only users who may change the view's model (`history_model`) read its history."""

    def has_permission(self, request, view):
        user = request.user
        if not (user and user.is_authenticated):
            return False
        opts = view.history_model._meta
        return user.has_perm(f"{opts.app_label}.change_{opts.model_name}")


@extend_schema_field(
    {
        "type": "object",
        "description": "Each changed field or list, with its value before and after.",
        "additionalProperties": {
            "type": "object",
            "properties": {"from": {}, "to": {}},
            "required": ["from", "to"],
        },
    }
)
class ChangesField(serializers.DictField):
    """What a version changed: `{field: {"from": old, "to": new}}`."""


class VersionSerializer(serializers.Serializer):
    """One version: when, who, which door and import, what it did and changed."""

    id = serializers.CharField(help_text="The version's id (its revision), for `revert`.")
    at = serializers.DateTimeField()
    user = serializers.CharField(allow_null=True, help_text="The username; null for a command.")
    via = serializers.ChoiceField(choices=Via.choices)
    batch = serializers.IntegerField(
        allow_null=True, help_text="The import that made the change, else null."
    )
    action = serializers.ChoiceField(choices=Action.choices)
    changes = ChangesField()


class VersionListView(generics.ListAPIView):
    """An object's versions, newest first."""

    serializer_class = VersionSerializer
    pagination_class = ListPagination
    permission_classes = [CuratorsOnly]
    filter_backends = []

    def get_queryset(self):
        return self.history_model.objects.none()  # the versions are computed (`list`)

    def list(self, request, id: int):
        pk = int(id)
        versions = self.versions(pk)
        if not versions and not self.history_model.objects.filter(pk=pk).exists():
            raise NotFound()
        page = self.paginate_queryset(list(reversed(versions)))
        return self.get_paginated_response(self.get_serializer(page, many=True).data)


@extend_schema(
    tags=["history"],
    summary="A fruit's versions (curators)",
    responses={200: VersionSerializer(many=True), **CURATORS_READ},
)
class FruitHistoryView(VersionListView):
    """A fruit's versions, newest first, a deleted fruit's too: its fields, names, relations,
    characteristic values and images as each change left them."""

    history_model = Fruit

    def versions(self, pk):
        return fruit_versions(pk)


@extend_schema(
    tags=["history"],
    summary="A publication's versions (curators)",
    responses={200: VersionSerializer(many=True), **CURATORS_READ},
)
class PublicationHistoryView(VersionListView):
    """A publication's versions, newest first: its fields and citations."""

    history_model = Publication

    def versions(self, pk):
        return publication_versions(pk)


class DeletedFruitSerializer(serializers.Serializer):
    """A deleted fruit, as it was deleted."""

    id = serializers.IntegerField()
    name = serializers.CharField()
    catalog_number = serializers.IntegerField(allow_null=True)
    deleted_at = serializers.DateTimeField(source="history_date")
    user = serializers.SerializerMethodField()
    via = serializers.ChoiceField(choices=Via.choices)

    def get_user(self, row) -> str | None:
        return row.history_user.get_username() if row.history_user_id else None


@extend_schema(
    tags=["history"],
    summary="Deleted fruits (curators)",
    responses={200: DeletedFruitSerializer(many=True), **CURATORS_READ},
)
class DeletedFruitListView(generics.ListAPIView):
    """Fruits deleted and not restored, the latest deletion first: each can be restored."""

    serializer_class = DeletedFruitSerializer
    permission_classes = [CuratorsOnly]
    history_model = Fruit
    filter_backends = []
    pagination_class = ListPagination

    def get_queryset(self):
        return deleted_fruits()


class ImportBatchSerializer(serializers.ModelSerializer):
    """An applied import."""

    user = serializers.SlugRelatedField(
        slug_field=get_user_model().USERNAME_FIELD, read_only=True, allow_null=True
    )

    class Meta:
        model = ImportBatch
        fields = [
            "id",
            "created_at",
            "user",
            "file_name",
            "created_count",
            "changed_count",
            "undone_at",
        ]


@extend_schema(
    tags=["history"],
    summary="Applied imports (curators)",
    responses={200: ImportBatchSerializer(many=True), **CURATORS_READ},
)
class ImportBatchListView(generics.ListAPIView):
    """Every applied import, the latest first: each can be undone."""

    serializer_class = ImportBatchSerializer
    permission_classes = [CuratorsOnly]
    history_model = Fruit
    filter_backends = []

    def get_queryset(self):
        return ImportBatch.objects.select_related("user").order_by("-pk")
