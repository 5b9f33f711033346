from django.apps import AppConfig


class CatalogConfig(AppConfig):
    """Fruits, their names and images."""

    name = "catalog"
    verbose_name = "Catalog"
