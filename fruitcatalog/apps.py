"""The project package as an app: what the plumbing connects once at start-up."""

from django.apps import AppConfig


class FruitCatalogConfig(AppConfig):
    name = "fruitcatalog"
    verbose_name = "Fruit Catalog"

    def ready(self):
        from corsheaders.signals import check_request_enabled
        from django.contrib.auth import get_user_model
        from django.db.models.signals import pre_save

        from fruitcatalog.http import cors
        from fruitcatalog.rest import auth

        check_request_enabled.connect(cors.allow_public_reads, dispatch_uid="public-reads")
        pre_save.connect(
            auth.revoke_tokens_on_password_change,
            sender=get_user_model(),
            dispatch_uid="revoke-tokens",
        )
