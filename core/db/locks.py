"""Row locks that order a write against a concurrent delete of the row it depends on.

A write that loads its parent, works, and then inserts or updates can lose a race with a delete
of that parent: Django's `save()` would insert the deleted row again, and a child insert would
fail at commit on its foreign key. Locking the parent inside the write's transaction makes the
two wait for each other: the write then either finds its parent (and the delete waits, and then
sees the child: a 409 or a cascade) or finds it gone (`DoesNotExist`: a 404).
"""

from django.db import models


def lock_row(model: type[models.Model], pk, *, for_delete: bool = False, read=()) -> tuple:
    """Lock one row until the transaction ends; raise `model.DoesNotExist` when it is gone.

    Writers take `FOR NO KEY UPDATE`, which lets foreign-key checks of other inserts through;
    deletes take `FOR UPDATE`, which waits for both. SQLite ignores the lock: its writers
    already run one at a time (`transaction_mode: IMMEDIATE`). Returns the locked row's
    fields named in `read`, read with the lock.
    """
    queryset = model._base_manager.filter(pk=pk).select_for_update(no_key=not for_delete)
    rows = list(queryset.values_list("pk", *read))
    if not rows:
        raise model.DoesNotExist(f"{model._meta.verbose_name} {pk} does not exist.")
    return rows[0][1:]
