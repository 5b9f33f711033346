"""The answers to creates sent with an `Idempotency-Key`, kept for a day per user and key."""

from django.conf import settings
from django.db import models


class IdempotentRequest(models.Model):
    """One user's request under one key: in progress (`status` null), or its stored answer.

    `fingerprint` is the SHA-256 of the method, path and body content; a retry must match it.
    Answers with a 5xx are never stored: the row goes, so the retry runs again.
    """

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE)
    key = models.CharField(max_length=255)
    fingerprint = models.CharField(max_length=64)
    status = models.PositiveSmallIntegerField(null=True)
    content = models.BinaryField(default=b"")
    headers = models.JSONField(default=dict)
    created_at = models.DateTimeField(db_index=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["user", "key"], name="idempotency_key_per_user"),
        ]

    def __str__(self):
        return f"{self.key} ({self.status or 'in progress'})"
