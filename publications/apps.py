from django.apps import AppConfig


class PublicationsConfig(AppConfig):
    """Publications describing fruits."""

    name = "publications"
    verbose_name = "Publications"

    def ready(self):
        from catalog.models import Fruit
        from catalog.signals import searched_names
        from publications.models import names_in_sources

        # A fruit is found by the names its sources describe it under (`name_in_source`).
        searched_names.connect(names_in_sources, sender=Fruit, dispatch_uid="names-in-sources")
