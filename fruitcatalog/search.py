"""Where migrations 0010 (catalog) and 0003 (publications) import the search folding from."""

from core.db.search import name_key, search_document  # noqa: F401
