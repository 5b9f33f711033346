"""Which door a write came through: the context a change is recorded under.

Every change to the catalog is kept (the `history` app, on django-simple-history's tables). A
door — the API, the admin, an import, a management command — says who writes and how, for the
writes made inside it: `door("api", request=request)`. The writes inside one door form one
*revision*: the rows each change leaves in the historical tables carry its id, so a fruit's
version is every row of one revision about it. A write outside any door is recorded as made by
a command, a revision of its own.

The lower apps write as they do (saves, deletes, `bulk_create`, `update`); what Django's model
signals do not announce (`bulk_create`, `update`) and every deletion (rows with bytes: see
`blobs.models`; the others: `AnnouncedDeletes`) they announce with `rows_written` (`announce`),
which the `history` app receives.
"""

import contextlib
import uuid
from contextvars import ContextVar
from dataclasses import dataclass, field

from django.db import models
from django.dispatch import Signal

# Rows written without the model signals the history receives: `action` "created"
# (`bulk_create`), "changed" (`update`) or "deleted" (just before their deletion).
# Arguments: `model`, `rows` (the model instances, as stored), `action`.
rows_written = Signal()

VIAS = ("api", "admin", "import", "command")


@dataclass
class Door:
    """Who writes, through which door, in which import (`batch`) and as which action, when it is
    not simply created, changed or deleted (`restored`, `reverted`)."""

    via: str
    request: object = None
    user: object = None
    batch: int | None = None
    action: str = ""
    revision: uuid.UUID = field(default_factory=uuid.uuid4)

    @property
    def writer(self):
        """The user who writes: the door's, else the request's once authenticated (DRF
        authenticates inside the view), else None."""
        if self.user is not None:
            return self.user
        user = getattr(self.request, "user", None)
        return user if user is not None and user.is_authenticated else None


_door: ContextVar[Door | None] = ContextVar("fruitcatalog-door", default=None)


def current_door() -> Door | None:
    """The door the running code writes through, if any."""
    return _door.get()


@contextlib.contextmanager
def door(via: str, *, request=None, user=None, batch: int | None = None, action: str = ""):
    """Record the writes of the block as made through `via` (one revision).

    Inside another door, an import keeps the outer door's user and takes its own `via` and
    `batch`; a restore or a revert its own action, as a revision of their own.
    """
    if via not in VIAS:
        raise ValueError(f"unknown door {via!r}")
    outer = _door.get()
    if outer is not None:
        request = request or outer.request
        user = user or outer.user
    token = _door.set(Door(via=via, request=request, user=user, batch=batch, action=action))
    try:
        yield _door.get()
    finally:
        _door.reset(token)


def announce(model, rows, action: str) -> None:
    """Tell the history that `rows` of `model` were written (`action`: "created", "changed",
    "deleted") without the model signals it receives."""
    rows = list(rows)
    if rows:
        rows_written.send(sender=model, model=model, rows=rows, action=action)


def announce_deletion(rows) -> None:
    """Announce `rows` (a queryset) as deleted, and before them the rows a deletion of theirs
    cascades to whose deletions are announced too (`AnnouncedDeletes`): call it just before
    deleting them, while they are still there to record."""
    model = rows.model
    for relation in model._meta.related_objects:
        child = relation.related_model
        if getattr(relation, "on_delete", None) is models.CASCADE and issubclass(
            child, AnnouncedDeletes
        ):
            parents = rows.order_by().values("pk")
            announce_deletion(child._base_manager.filter(**{f"{relation.field.name}__in": parents}))
    announce(model, rows.order_by("pk"), "deleted")


class AnnouncedDeletesQuerySet(models.QuerySet):
    """The queryset of a model whose deletions are announced (`AnnouncedDeletes`)."""

    def delete(self):
        """Delete the rows, announcing them first, with the rows it cascades to."""
        announce_deletion(self)
        return super().delete()


class AnnouncedDeletes(models.Model):
    """A model whose deletions are announced (`rows_written`, "deleted") rather than told row
    by row by Django's delete signals, which the history does not receive for it: a receiver of
    them makes the deletion collector load every row it deletes and a statement per row record
    it. Its deletions go through its `delete()` or its querysets' (`AnnouncedDeletesQuerySet`,
    the manager's), or cascade from the deletion of a model that announces them too."""

    class Meta:
        abstract = True

    def delete(self, *args, **kwargs):
        """Delete the row, announcing it first, with the rows it cascades to."""
        announce_deletion(type(self)._base_manager.filter(pk=self.pk))
        return super().delete(*args, **kwargs)


class DoorMiddleware:
    """Each request to the API or the admin is a door: its writes are recorded as made there,
    by the user the request authenticates as."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        if request.path_info.startswith("/api/"):
            via = "api"
        elif request.path_info.startswith("/admin/"):
            via = "admin"
        else:
            return self.get_response(request)
        with door(via, request=request):
            return self.get_response(request)
