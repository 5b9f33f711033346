"""What an image shows and who may use it: its role, alt text, credit and licence.

One set of fields for every stored image (`ThumbnailedImage`), validated the same way in the
API and the admin, and the licences' deed URLs that pages and the API link to.
"""

from collections.abc import Iterable

from django.core.exceptions import ValidationError
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

ALT_TEXT_MAX = 300
CREATOR_MAX = 200
SOURCE_MAX = 500
DETAIL_FIELDS = ["alt_text", "role", "creator", "source", "license"]


class ImageRole(models.TextChoices):
    """What an image shows."""

    FRUIT = "fruit", _("Fruit")
    SECTION = "section", _("Cut fruit")
    BLOSSOM = "blossom", _("Blossom")
    TREE = "tree", _("Tree")
    LEAF = "leaf", _("Leaf")
    PLATE = "plate", _("Printed plate")
    OTHER = "other", _("Other")


# What an image shows, as its alt text says it after the subject ("Gravensteiner, blossom").
ROLES_IN_ALT_TEXT = {
    ImageRole.FRUIT: _("fruit"),
    ImageRole.SECTION: _("cut fruit"),
    ImageRole.BLOSSOM: _("blossom"),
    ImageRole.TREE: _("tree"),
    ImageRole.LEAF: _("leaf"),
    ImageRole.PLATE: _("printed plate"),
    ImageRole.OTHER: _("other"),
}


def alt_text_or_role(alt_text: str, role: str, subject: str) -> str:
    """An image's alt text: as curators wrote it, else what it shows of its subject
    ("Gravensteiner, blossom")."""
    return alt_text or f"{subject}, {ROLES_IN_ALT_TEXT[ImageRole(role or ImageRole.FRUIT)]}"


class License(models.TextChoices):
    """The terms an image may be used under ("" when unknown)."""

    CC0 = "CC0-1.0", "CC0 1.0"
    CC_BY = "CC-BY-4.0", "CC BY 4.0"
    CC_BY_SA = "CC-BY-SA-4.0", "CC BY-SA 4.0"
    CC_BY_NC = "CC-BY-NC-4.0", "CC BY-NC 4.0"
    CC_BY_NC_SA = "CC-BY-NC-SA-4.0", "CC BY-NC-SA 4.0"
    PUBLIC_DOMAIN = "public-domain", _("Public domain")
    ALL_RIGHTS_RESERVED = "all-rights-reserved", _("All rights reserved")


# The deeds of the Creative Commons licences and CC0; the other terms have none.
LICENSE_URLS = {
    License.CC0: "https://creativecommons.org/publicdomain/zero/1.0/",
    License.CC_BY: "https://creativecommons.org/licenses/by/4.0/",
    License.CC_BY_SA: "https://creativecommons.org/licenses/by-sa/4.0/",
    License.CC_BY_NC: "https://creativecommons.org/licenses/by-nc/4.0/",
    License.CC_BY_NC_SA: "https://creativecommons.org/licenses/by-nc-sa/4.0/",
}


def license_url(license: str) -> str | None:
    """The deed URL of a licence code, or None (unknown, public domain, all rights reserved)."""
    return LICENSE_URLS.get(license)


# Every Creative Commons licence but CC0 has the BY condition: whoever shows the image must name
# its creator, so an image under one is not published without a creator to credit.
ATTRIBUTION_LICENSES = frozenset(code for code in License.values if code.startswith("CC-BY"))


def validate_attribution(*, license: str, creator: str, changed: Iterable[str] = DETAIL_FIELDS):
    """Refuse a licence that requires attribution without a creator (`ValidationError`; the
    callers put it on the creator field).

    Checked when a write sets the licence or the creator (`changed`: the fields it sets; an
    upload's are all of them): an image stored without a creator before the rule keeps its
    details, and any other change of them, until one of the two is written (the admin's
    "missing details" filter lists those images).
    """
    if not {"license", "creator"} & set(changed):
        return
    if license in ATTRIBUTION_LICENSES and not creator.strip():
        raise ValidationError(
            gettext("%(license)s requires attribution: name the creator.")
            % {"license": License(license).label},
            code="creator_required",
        )


def rights_constraints(prefix: str) -> list[models.CheckConstraint]:
    """The database's guard on an image model's role and licence (`prefix`: its table's name)."""
    return [
        models.CheckConstraint(condition=Q(role__in=ImageRole.values), name=f"{prefix}_role_valid"),
        models.CheckConstraint(
            condition=Q(license="") | Q(license__in=License.values),
            name=f"{prefix}_license_valid",
        ),
    ]
