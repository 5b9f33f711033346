"""Imported by publications 0008 (an applied migration): see `core.db.search`."""

from core.db.search import search_document  # noqa: F401
