from django.apps import AppConfig


class WholeFruitConfig(AppConfig):
    """A fruit shown whole: the API's fruit detail, the fruit page and the Darwin Core Archive,
    read from the catalog, publications and identification."""

    name = "wholefruit"
    verbose_name = "Whole fruit"
