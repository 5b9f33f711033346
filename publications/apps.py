from django.apps import AppConfig


class PublicationsConfig(AppConfig):
    """Publications describing fruits."""

    name = "publications"
    verbose_name = "Publications"
