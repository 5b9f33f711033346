"""Imported by catalog 0013 and publications 0004 (applied migrations): see `blobs.storage`."""

from blobs.storage import store_uncompressed  # noqa: F401
