"""Imported by catalog 0015 and publications 0006 (applied migrations): `blobs.migration_data`."""

from blobs.migration_data import COVER_BATCH_SIZE, THUMBNAIL_BATCH_SIZE, fill_dimensions  # noqa: F401
