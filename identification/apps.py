from django.apps import AppConfig


class IdentificationConfig(AppConfig):
    """Coded characteristics of the varieties, and naming an unknown fruit by them."""

    name = "identification"
    verbose_name = "Identification"

    def ready(self):
        from catalog.columns import EXTRA_COLUMNS
        from catalog.services import FRUIT_WRITE_HOOKS
        from identification.columns import CHARACTERISTIC_COLUMNS
        from identification.services import after_fruit_write, forget_unlinked_source
        from publications.services import LINK_REMOVAL_HOOKS

        # A fruit that changes type or is deleted changes what identification reads.
        if after_fruit_write not in FRUIT_WRITE_HOOKS:
            FRUIT_WRITE_HOOKS.append(after_fruit_write)
        # The fruits' spreadsheets carry their characteristics as `char:<code>` columns.
        if CHARACTERISTIC_COLUMNS not in EXTRA_COLUMNS:
            EXTRA_COLUMNS.append(CHARACTERISTIC_COLUMNS)
        # A value cites a publication that describes the fruit: unlinking clears the citation.
        if forget_unlinked_source not in LINK_REMOVAL_HOOKS:
            LINK_REMOVAL_HOOKS.append(forget_unlinked_source)
