"""The feed's entries, written by the transaction of the change they record, in commit order.

The apps below say what they write through their signals (`connect`): the catalog's
`fruit_written`, publications' `publication_written`, identification's `characteristic_written`
and `fruit_values_written`, blobs' `image_deleted`, Django's `post_save` of the two image models
(every door saves an image through `save()`; a deletion is announced instead, because a
`post_delete` receiver would make every cascade load the images' bytes), and the relations the
catalog rewrites without saving their fruit (`core.history.rows_written`: linked by name to a
new fruit, or given back the name of a deleted one). A fruit's names,
relations, characteristic values, images, card image and citations are the fruit's own data: a
change of any of them is the fruit `changed`; a publication's cover, citations, PDFs and fruit
images are the publication's.

Each signal only collects an entry (`record`). Just before the transaction commits, its entries
are merged — one per object, `created` or `deleted` outranking `changed` — and inserted in one
statement (`write_entries`, run by the database backend's commit: `core.db.commits`). On
PostgreSQL the insert first takes a transaction-scoped advisory lock, held until the commit
has finished: the sequence behind `seq` then hands out its numbers in commit order, and a reader
that sees an entry has seen every smaller `seq` (without the lock, a transaction that took its
numbers first but committed last would appear behind a reader's cursor). Writers wait on each
other only for that insert and their commit, never while they work. SQLite serialises writers
already (`transaction_mode: IMMEDIATE`): its order is the commit order by itself.
"""

from django.db import connection
from django.db.models.signals import post_save

from changes.models import Action, Change, Kind
from core.db.commits import before_commit

# Taken just before the entries are inserted, released by the commit; any constant the
# application owns will do ("CHANGES").
CHANGES_LOCK = 0x43_48_41_4E_47_45_53
# Entries per INSERT statement: an import of many fruits writes its entries in a few.
INSERT_BATCH = 1000


def record(kind: str, object_id: int, action: str) -> None:
    """Add an entry to the current transaction's, written just before it commits."""
    before_commit(write_entries, (kind, object_id, action))


def merged(items) -> list[tuple[str, int, str]]:
    """One entry per object, in the order the objects were first written: a later `changed`
    keeps what came before (a created fruit whose images are then stored is `created`), any
    other action replaces it (a changed fruit then deleted is `deleted`)."""
    actions: dict[tuple[str, int], str] = {}
    for kind, object_id, action in items:
        key = (kind, object_id)
        if key not in actions or action != Action.CHANGED:
            actions[key] = action
    return [(kind, object_id, action) for (kind, object_id), action in actions.items()]


def write_entries(items) -> None:
    """Insert the transaction's entries, under the lock that orders them by commit."""
    entries = merged(items)
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_xact_lock(%s)", [CHANGES_LOCK])
    Change.objects.bulk_create(
        (Change(kind=kind, object_id=pk, action=action) for kind, pk, action in entries),
        batch_size=INSERT_BATCH,
    )


# --- What the apps below tell ---------------------------------------------------------------------


def fruit_written(sender, *, fruit, previous_type, deleted, **kwargs):
    """A fruit saved (new when it had no type before) or about to be deleted."""
    if deleted:
        action = Action.DELETED
    elif previous_type is None:
        action = Action.CREATED
    else:
        action = Action.CHANGED
    record(Kind.FRUIT, fruit.pk, action)


def relations_written(sender, *, rows, **kwargs):
    """Relations written without a save of the fruit holding them (linked to a fruit that
    took the name they give, or given back the name of a fruit deleted): their fruits
    changed."""
    for row in rows:
        record(Kind.FRUIT, row.fruit_id, Action.CHANGED)


def fruit_values_written(sender, *, fruit_ids, **kwargs):
    """Fruits' characteristic values written."""
    for fruit_id in fruit_ids:
        record(Kind.FRUIT, fruit_id, Action.CHANGED)


def characteristic_written(sender, *, characteristic, created, deleted, **kwargs):
    """A characteristic (its fields, its states) saved, or about to be deleted."""
    action = Action.DELETED if deleted else Action.CREATED if created else Action.CHANGED
    record(Kind.CHARACTERISTIC, characteristic.pk, action)


def publication_written(sender, *, publication_id, created, deleted, fruit_ids, **kwargs):
    """A publication, its cover, citations, PDFs or images written, or it is about to be
    deleted; `fruit_ids`: the fruits whose citations (shown with each fruit) changed."""
    action = Action.DELETED if deleted else Action.CREATED if created else Action.CHANGED
    record(Kind.PUBLICATION, publication_id, action)
    for fruit_id in fruit_ids:
        record(Kind.FRUIT, fruit_id, Action.CHANGED)


def fruit_image_written(sender, *, instance, raw=False, **kwargs):
    """A fruit's image saved or about to be deleted: the fruit changed."""
    if not raw:  # loaddata writes no change
        record(Kind.FRUIT, instance.fruit_id, Action.CHANGED)


def publication_image_written(sender, *, instance, raw=False, **kwargs):
    """A publication's image of a fruit saved or about to be deleted: the publication
    changed."""
    if raw:
        return
    from publications.models import PublicationFruit

    link_field = sender._meta.get_field("link")
    if link_field.is_cached(instance):
        publication_id = instance.link.publication_id
    else:  # the link's publication, without reading its PDF
        publication_id = (
            PublicationFruit.objects.filter(pk=instance.link_id)
            .values_list("publication_id", flat=True)
            .get()
        )
    record(Kind.PUBLICATION, publication_id, Action.CHANGED)


def connect() -> None:
    """Connect the receivers (the app's `ready()`)."""
    from blobs.signals import image_deleted
    from catalog import signals as catalog_signals
    from catalog.models import Fruit, FruitImage, FruitRelation
    from core.history import rows_written
    from identification import signals as identification_signals
    from identification.models import Characteristic, FruitCharacteristic
    from publications import signals as publications_signals
    from publications.models import Publication, PublicationFruitImage

    uid = "changes-feed-"
    catalog_signals.fruit_written.connect(fruit_written, sender=Fruit, dispatch_uid=uid + "fruit")
    rows_written.connect(relations_written, sender=FruitRelation, dispatch_uid=uid + "relations")
    identification_signals.fruit_values_written.connect(
        fruit_values_written, sender=FruitCharacteristic, dispatch_uid=uid + "values"
    )
    identification_signals.characteristic_written.connect(
        characteristic_written, sender=Characteristic, dispatch_uid=uid + "characteristic"
    )
    publications_signals.publication_written.connect(
        publication_written, sender=Publication, dispatch_uid=uid + "publication"
    )
    for model, receiver in (
        (FruitImage, fruit_image_written),
        (PublicationFruitImage, publication_image_written),
    ):
        post_save.connect(receiver, sender=model, dispatch_uid=uid + model._meta.model_name)
        image_deleted.connect(
            receiver, sender=model, dispatch_uid=uid + model._meta.model_name + "-deleted"
        )
