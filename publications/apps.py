from django.apps import AppConfig


class PublicationsConfig(AppConfig):
    """Publications describing fruits."""

    name = "publications"
    verbose_name = "Publications"

    def ready(self):
        from catalog.models import SEARCHED_NAME_PROVIDERS
        from publications.models import names_in_sources

        # A fruit is found by the names its sources describe it under (`name_in_source`).
        if names_in_sources not in SEARCHED_NAME_PROVIDERS:
            SEARCHED_NAME_PROVIDERS.append(names_in_sources)
