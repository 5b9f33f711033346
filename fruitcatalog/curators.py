"""What the Curators migrations import (catalog 0008 and 0025, publications 0002, identification
0003): the Curators helpers."""

from core.rest.curators import (  # noqa: F401
    grant_curators_app_permissions,
    revoke_curators_app_permissions,
)
