"""What migrations 0008 (catalog) and 0002 (publications) import: the Curators helpers."""

from fruitcatalog.rest.curators import (  # noqa: F401
    grant_curators_app_permissions,
    revoke_curators_app_permissions,
)
