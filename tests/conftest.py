"""Fixtures of the cross-app tests (the project's own are in the root conftest.py)."""

import pytest
from django.contrib.auth.models import Group, Permission, User
from rest_framework.authtoken.models import Token

from core.rest.curators import CURATORS_GROUP
from tests import stored


@pytest.fixture
def byte_paths(db):
    """One path of each kind of stored bytes, each with bytes of its own."""
    return stored.byte_paths()


@pytest.fixture
def live_curator(transactional_db):
    """A curator for tests against the live server, with a token (`.token`).

    Not the shared `curator` fixture's: transactional tests before this one may have flushed the
    Curators group its migration made, so the group's permissions are given here again.
    """
    group, _ = Group.objects.get_or_create(name=CURATORS_GROUP)
    group.permissions.add(
        *Permission.objects.filter(content_type__app_label__in=["catalog", "publications"])
    )
    user = User.objects.create_user("live-curator", password="curator-pass-123")
    user.groups.add(group)
    user.token = Token.objects.create(user=user).key
    return user
