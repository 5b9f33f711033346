from django.apps import AppConfig


class HistoryConfig(AppConfig):
    """Every change kept: versions of fruits, publications and characteristics."""

    default_auto_field = "django.db.models.BigAutoField"
    name = "history"
    verbose_name = "History"

    def ready(self):
        from history import recording  # noqa: F401  (connects the receivers)
