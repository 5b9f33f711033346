"""Imported by catalog 0023 and publications 0011 (applied migrations): see `core.db.triggers`."""

from core.db.triggers import install_deletion_log, remove_deletion_log  # noqa: F401
