from django.apps import AppConfig


class CatalogConfig(AppConfig):
    """Fruits, their synonyms and images."""

    name = "catalog"
    verbose_name = "Catalog"
