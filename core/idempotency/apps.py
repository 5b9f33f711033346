from django.apps import AppConfig


class IdempotencyConfig(AppConfig):
    """The answers of creating POSTs kept under their Idempotency-Key."""

    name = "core.idempotency"
    label = "idempotency"
    verbose_name = "Idempotency keys"
    default_auto_field = "django.db.models.BigAutoField"
