from django.apps import AppConfig


class IdentificationConfig(AppConfig):
    """Coded characteristics of the varieties, and naming an unknown fruit by them."""

    name = "identification"
    verbose_name = "Identification"

    def ready(self):
        from catalog.services import FRUIT_WRITE_HOOKS
        from identification.services import after_fruit_write

        # A fruit that changes type or is deleted changes what identification reads.
        if after_fruit_write not in FRUIT_WRITE_HOOKS:
            FRUIT_WRITE_HOOKS.append(after_fruit_write)
