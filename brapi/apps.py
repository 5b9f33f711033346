from django.apps import AppConfig


class BrapiConfig(AppConfig):
    name = "brapi"
    verbose_name = "BrAPI v2.1"
