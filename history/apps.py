from django.apps import AppConfig


class HistoryConfig(AppConfig):
    """Every change kept: versions of fruits, publications and characteristics."""

    default_auto_field = "django.db.models.BigAutoField"
    name = "history"
    verbose_name = "History"

    def ready(self):
        from history import (  # noqa: F401
            admin_imports,  # registers the imports' admin (the catalog's model)
            recording,  # connects the receivers
        )
