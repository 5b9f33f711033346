"""Imported by publications 0008 (an applied migration): the folding frozen in
`catalog.migration_data`."""

from catalog.migration_data import search_document  # noqa: F401
