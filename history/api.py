"""The history's API: a fruit's and a publication's versions, deleted fruits, import batches
and their undo.

Readable by curators only (the `change_` permission of the model): a version names its user.
"""

from django.contrib.auth import get_user_model
from django.core.paginator import Paginator
from django.utils.translation import gettext as _
from drf_spectacular.utils import OpenApiResponse, extend_schema, extend_schema_field
from rest_framework import generics, permissions, serializers, status
from rest_framework.exceptions import NotFound
from rest_framework.response import Response

from catalog.models import Fruit, ImportBatch
from core.rest.pagination import PageNumberPagination
from core.rest.schema import error_response
from history.models import Action, Via
from history.undo import AlreadyUndone, UndoConflict, import_undo
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
    """Only users who may change the view's model (`history_model`) read its history, and who
    hold the view's `required_perms` besides (an undo deletes fruits: `delete_fruit`)."""

    def has_permission(self, request, view):
        user = request.user
        if not (user and user.is_authenticated):
            return False
        opts = view.history_model._meta
        needed = [f"{opts.app_label}.change_{opts.model_name}"]
        return user.has_perms([*needed, *getattr(view, "required_perms", ())])


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


class ImportUndoParameters(serializers.Serializer):
    """The undo's query parameters."""

    force = serializers.BooleanField(
        default=False,
        help_text=(
            "Undo the fruits that can be undone and leave as they are those changed since the "
            "import (a 409 otherwise)."
        ),
    )


class ImportUndoSerializer(serializers.Serializer):
    """What undoing an import did."""

    batch = serializers.IntegerField(source="batch.pk", help_text="The import undone.")
    undone_at = serializers.DateTimeField(source="batch.undone_at")
    deleted = serializers.SerializerMethodField(
        help_text="Fruits the import created, now deleted (listed in `/deleted-fruits`)."
    )
    reverted = serializers.SerializerMethodField(
        help_text="Fruits the import changed, now as they were before it."
    )
    left = serializers.SerializerMethodField(
        help_text="Fruits changed since the import, left as they are (`force=true` only)."
    )
    conflicts = serializers.ListField(
        source="left",
        child=serializers.IntegerField(),
        help_text="The ids of the fruits left as they are.",
    )
    not_restored = serializers.ListField(
        child=serializers.CharField(),
        help_text="What of a fruit put back could not come back as it was.",
    )

    def get_deleted(self, report) -> int:
        return len(report.deleted)

    def get_reverted(self, report) -> int:
        return len(report.reverted)

    def get_left(self, report) -> int:
        return len(report.left)


class UndoConflictSerializer(serializers.Serializer):
    """A refused undo: why, and the fruits changed since the import."""

    detail = serializers.CharField()
    conflicts = serializers.ListField(
        child=serializers.IntegerField(),
        help_text="The fruits changed since the import (empty when it was undone already).",
    )


@extend_schema(
    tags=["history"],
    summary="Undo an import (curators)",
    request=None,
    parameters=[ImportUndoParameters],
    responses={
        200: ImportUndoSerializer,
        404: error_response("No such import."),
        409: OpenApiResponse(
            UndoConflictSerializer,
            description=(
                "Undone already, or fruits the import touched were changed since (listed in "
                "`conflicts`; `force=true` leaves them): nothing was changed."
            ),
        ),
        **CURATORS_READ,
    },
)
class ImportUndoView(generics.GenericAPIView):
    """Undo an applied import in one transaction: the fruits it created are deleted (and can be
    restored from the deleted fruits), the fields, names, relations and characteristic values
    it changed go back to what they were before it."""

    permission_classes = [CuratorsOnly]
    history_model = Fruit
    required_perms = ("catalog.delete_fruit",)  # it deletes the fruits the import created
    serializer_class = ImportUndoSerializer
    filter_backends = []

    def get_queryset(self):
        return ImportBatch.objects.none()

    def post(self, request, id):
        parameters = ImportUndoParameters(data=request.query_params)
        parameters.is_valid(raise_exception=True)
        try:
            report = import_undo(batch_id=int(id), force=parameters.validated_data["force"])
        except ImportBatch.DoesNotExist:
            raise NotFound() from None
        except AlreadyUndone:
            return self.conflict(_("The import was undone already."), [])
        except UndoConflict as conflict:
            return self.conflict(
                _(
                    "%(count)s fruit(s) the import touched were changed since; nothing was "
                    "undone. Undo the rest with force=true."
                )
                % {"count": len(conflict.fruit_ids)},
                conflict.fruit_ids,
            )
        return Response(self.get_serializer(report).data)

    def conflict(self, detail: str, fruit_ids: list[int]) -> Response:
        body = {"detail": detail, "conflicts": fruit_ids}
        return Response(body, status=status.HTTP_409_CONFLICT)
