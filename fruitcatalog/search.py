"""Imported by catalog 0010 and publications 0003 (applied migrations): the folding as it was
when they were written, frozen in `catalog.migration_data`."""

from catalog.migration_data import name_key, search_document  # noqa: F401
