"""The change feed's entries, and how far pruning has gone."""

from django.db import models
from django.db.models.functions import Now


class Kind(models.TextChoices):
    """What changed."""

    FRUIT = "fruit", "fruit"
    PUBLICATION = "publication", "publication"
    CHARACTERISTIC = "characteristic", "characteristic"


class Action(models.TextChoices):
    """How it changed. `restored` (a deleted fruit back) and `reverted` (back to an earlier
    version) are written by the history's undo."""

    CREATED = "created", "created"
    CHANGED = "changed", "changed"
    DELETED = "deleted", "deleted"
    RESTORED = "restored", "restored"
    REVERTED = "reverted", "reverted"


class Change(models.Model):
    """One committed change of one object: the feed's entry.

    `seq` follows commit order: entries are inserted just before their transaction commits,
    under a lock held until it has (`changes.recording`), so a reader that has seen an entry has
    seen every entry with a smaller `seq`. `at` is the database's clock at that insert.
    """

    seq = models.BigAutoField(primary_key=True)
    at = models.DateTimeField(db_default=Now())
    kind = models.CharField(max_length=16, choices=Kind)
    object_id = models.BigIntegerField()
    action = models.CharField(max_length=16, choices=Action)

    class Meta:
        # The feed reads a range of the primary key; pruning finds its boundary by `at`.
        ordering = ["seq"]
        indexes = [models.Index(fields=["at"], name="changes_change_at_idx")]
        constraints = [
            models.CheckConstraint(
                condition=models.Q(kind__in=Kind.values), name="changes_change_kind_valid"
            ),
            models.CheckConstraint(
                condition=models.Q(action__in=Action.values), name="changes_change_action_valid"
            ),
        ]

    def __str__(self):
        return f"{self.seq}: {self.kind} {self.object_id} {self.action}"


class PrunedThrough(models.Model):
    """The newest `seq` pruning has deleted (one row, made by the first pruning): a cursor
    before it has missed entries and must start again."""

    id = models.PositiveSmallIntegerField(primary_key=True, default=1)
    seq = models.BigIntegerField()
    pruned_at = models.DateTimeField()

    class Meta:
        verbose_name_plural = "pruned through"
        constraints = [
            models.CheckConstraint(condition=models.Q(id=1), name="changes_prunedthrough_one_row")
        ]

    def __str__(self):
        return f"pruned through {self.seq}"
