from django.apps import AppConfig


class IdempotencyConfig(AppConfig):
    name = "fruitcatalog.idempotency"
    label = "idempotency"
    verbose_name = "Idempotency keys"
    default_auto_field = "django.db.models.BigAutoField"
