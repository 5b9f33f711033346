from django.apps import AppConfig


class IdentificationConfig(AppConfig):
    """Coded characteristics of the varieties, and naming an unknown fruit by them."""

    name = "identification"
    verbose_name = "Identification"

    def ready(self):
        from catalog.models import Fruit
        from catalog.signals import fruit_written, spreadsheet_columns
        from identification import columns, services
        from publications.models import Publication
        from publications.signals import fruits_unlinked

        # A fruit that changes type or is deleted changes what identification reads.
        fruit_written.connect(
            services.after_fruit_write, sender=Fruit, dispatch_uid="identification-fruit-write"
        )
        # The fruits' spreadsheets carry their characteristics as `char:<code>` columns.
        spreadsheet_columns.connect(
            columns.characteristic_columns, sender=Fruit, dispatch_uid="characteristic-columns"
        )
        # A value cites a publication that describes the fruit: unlinking clears the citation.
        fruits_unlinked.connect(
            services.forget_unlinked_source,
            sender=Publication,
            dispatch_uid="identification-forget-unlinked-source",
        )
