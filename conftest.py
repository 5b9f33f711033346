"""Shared fixtures: API clients per role, in-memory image and PDF makers, small factories."""

import io
import re
from contextlib import contextmanager

import factory
import pytest
from django.contrib.auth.models import Group, User
from django.db import connection
from django.test.utils import CaptureQueriesContext
from PIL import Image
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from catalog.migration_data import CURATORS_GROUP
from catalog.models import Fruit, FruitImage, FruitType
from catalog.services import fruit_create


class FruitFactory(factory.Factory):
    """Fruits created through the same service as the API (synonyms, search column)."""

    class Meta:
        model = Fruit

    name = factory.Sequence(lambda n: f"Fruit {n}")
    type = FruitType.APPLE

    @classmethod
    def _create(cls, model_class, *args, synonyms=(), **kwargs):
        return fruit_create(synonym_names=list(synonyms), **kwargs)


def make_image_bytes(fmt="PNG", size=(64, 48), color=(200, 30, 30), mode="RGB", **save_args):
    """Bytes of a solid image in `fmt`."""
    buffer = io.BytesIO()
    Image.new(mode, size, color).save(buffer, format=fmt, **save_args)
    return buffer.getvalue()


def make_object_png(size=(120, 100), box=(30, 20, 59, 49), color=(220, 0, 0)):
    """A white PNG with a coloured rectangle (inclusive box), to see the crop."""
    image = Image.new("RGB", size, "white")
    image.paste(color, (box[0], box[1], box[2] + 1, box[3] + 1))
    buffer = io.BytesIO()
    image.save(buffer, format="PNG")
    return buffer.getvalue()


def make_pdf_bytes(pages=1) -> bytes:
    """A small valid PDF with `pages` pages (drawn with Pillow)."""
    buffer = io.BytesIO()
    frames = [Image.new("RGB", (200, 280), "white") for _ in range(pages)]
    frames[0].save(buffer, format="PDF", save_all=True, append_images=frames[1:])
    return buffer.getvalue()


# Every byte column of the project: lists, metadata, HEAD and 304 responses must select none.
BLOB_COLUMNS = ("data", "thumbnail_data", "cover_data", "description_data")


def selected_blob_columns(queries) -> set[str]:
    """The byte columns any SELECT among `queries` reads (`LENGTH(...)` of one is no read)."""
    found = set()
    for query in queries:
        sql = query["sql"]
        if not sql.lstrip().upper().startswith("SELECT"):
            continue
        sql = re.sub(r"LENGTH\([^)]*\)", "", sql, flags=re.IGNORECASE)
        found.update(column for column in BLOB_COLUMNS if f'"{column}"' in sql)
    return found


@pytest.fixture
def reads_no_bytes():
    """A context manager asserting that the block selects no byte column; yields the queries."""

    @contextmanager
    def check():
        with CaptureQueriesContext(connection) as captured:
            yield captured
        assert selected_blob_columns(captured.captured_queries) == set(), [
            q["sql"] for q in captured.captured_queries
        ]

    return check


@pytest.fixture(autouse=True)
def fast_password_hashing(settings):
    """A cheap hasher: the role fixtures create users, and PBKDF2 costs half a second each."""
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture
def fruit_factory(db):
    """Create fruits: `fruit_factory(name=..., synonyms=[...])`."""
    return FruitFactory.create


@pytest.fixture
def add_image(db):
    """Store an image of a fruit through the model's save hook."""

    def add(fruit, data=None):
        return FruitImage.objects.create(fruit=fruit, data=data or make_object_png())

    return add


@pytest.fixture
def png_bytes():
    return make_object_png()


@pytest.fixture
def pdf_bytes():
    return make_pdf_bytes()


@pytest.fixture
def anon_client():
    return APIClient()


def _client_for(user) -> APIClient:
    client = APIClient()
    token, _ = Token.objects.get_or_create(user=user)
    client.credentials(HTTP_AUTHORIZATION=f"Token {token.key}")
    client.user = user
    return client


@pytest.fixture
def curator(db):
    user = User.objects.create_user("curator", password="curator-pass-123")
    user.groups.add(Group.objects.get(name=CURATORS_GROUP))
    return user


@pytest.fixture
def curator_client(curator):
    return _client_for(curator)


@pytest.fixture
def reader_client(db):
    """Authenticated, but without any permission."""
    return _client_for(User.objects.create_user("reader", password="reader-pass-123"))


@pytest.fixture
def staff_client(db):
    user = User.objects.create_user("staff", password="staff-pass-123", is_staff=True)
    user.groups.add(Group.objects.get(name=CURATORS_GROUP))
    return _client_for(user)
