"""The admin's History, "Revert to this version" and "Recover deleted fruits" in Chromium, at a
laptop's width (1280 px) and a phone's (390 px), checked with axe-core.

With `SCREENSHOTS_DIR` set (`SCREENSHOTS_DIR=docs/screenshots`), the 1280 px run writes the
pages docs/admin.md shows: admin-fruit-history.png, admin-fruit-revert.png and
admin-recover-deleted.png.
"""

import pytest
from django.contrib.auth.models import Permission, User
from django.db import transaction

from catalog.models import Fruit
from catalog.services import fruit_delete, fruit_save, fruit_update
from core.db.locks import lock_row
from core.history import door
from core.testing.browser import (
    DESKTOP,
    PHONE,
    assert_accessible_within,
    log_in_to_admin,
    require_tools,
    screenshot,
)
from history.versions import fruit_versions
from identification.services import fruit_set_characteristics
from identification.tests.factories import make_characteristic

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

CURATOR_PASSWORD = "curator-pass-123"


def name(text, kind="synonym", language=""):
    return {"name": text, "kind": kind, "language": language, "note": ""}


def value(characteristic, state_value):
    return {
        "characteristic_id": characteristic.pk,
        "state_ids": [characteristic.states.get(value=state_value).pk],
        "source_publication_id": None,
        "pages": "",
        "note": "",
    }


def write(curator, via="admin"):
    """One revision through the door, as the curator."""
    return door(via, user=curator)


def a_fruit_with_a_history(curator) -> Fruit:
    """Boskoop, created through the admin, renamed with its names, described through the API
    and described again: four versions with fields, names, relations and values."""
    size = make_characteristic("size_of_fruit", name="Size of fruit")
    with write(curator), transaction.atomic():
        cox = fruit_save(fruit=Fruit(name="Cox Orange", type="apple", catalog_number=101))
    with write(curator), transaction.atomic():
        fruit = fruit_save(
            fruit=Fruit(name="Boskop", type="apple", catalog_number=102),
            names=[name("Renette de Montfort")],
            relations=[{"kind": "parent", "other_id": None, "name": "Reinette", "note": ""}],
        )
    with write(curator, "api"), transaction.atomic():
        lock_row(Fruit, fruit.pk)
        fruit_set_characteristics(fruit=fruit, records=[value(size, 7)])
    with write(curator), transaction.atomic():
        fruit_update(
            fruit=fruit,
            name="Schöner aus Boskoop",
            names=[name("Renette de Montfort"), name("Belle de Boskoop", "translation", "fr")],
            relations=[{"kind": "mother", "other_id": cox.pk, "name": "Cox Orange", "note": ""}],
        )
    with write(curator, "api"), transaction.atomic():
        lock_row(Fruit, fruit.pk)
        fruit_set_characteristics(fruit=fruit, records=[value(size, 9)])
    return fruit


def deleted_fruits(curator) -> list[int]:
    ids = []
    for number, text, names in [
        (201, "Gravensteiner", [name("Gravenstein")]),
        (202, "Ontario", [name("Ontarioapfel")]),
    ]:
        with write(curator), transaction.atomic():
            fruit = fruit_save(
                fruit=Fruit(name=text, type="apple", catalog_number=number), names=names
            )
        ids.append(fruit.pk)  # the deletion empties it
        with write(curator), transaction.atomic():
            fruit_delete(fruit=fruit)
    return ids


@pytest.fixture
def curator(db):
    """A staff user who may change fruits (the live server's tests flush the database, so the
    Curators group its migration made may be gone)."""
    user = User.objects.create_user("curator", password=CURATOR_PASSWORD, is_staff=True)
    user.user_permissions.set(
        Permission.objects.filter(
            content_type__app_label="catalog", codename__in=["view_fruit", "change_fruit"]
        )
    )
    return user


@pytest.fixture
def desk(admin_page, live_server, curator):
    """The curator logged in to the admin in Chromium, with axe-core at hand."""
    require_tools(axe=True)
    log_in_to_admin(admin_page, live_server, curator, CURATOR_PASSWORD)
    return admin_page


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["1280px", "390px"])
def test_a_curator_reads_a_fruits_history_previews_a_revert_and_reverts(
    desk, live_server, curator, viewport
):
    fruit = a_fruit_with_a_history(curator)
    desk.set_viewport_size(viewport)

    desk.goto(f"{live_server.url}/admin/catalog/fruit/{fruit.pk}/change/")
    desk.click("a.historylink")
    versions = desk.locator("section.history-version")
    assert versions.count() == 4
    newest = versions.first.inner_text()
    assert "Changed" in newest and "through the API" in newest
    assert "Size of fruit (size_of_fruit)" in newest
    assert "Schöner aus Boskoop" in versions.nth(1).inner_text()
    assert versions.nth(1).locator("del", has_text="Boskop").count() == 1
    assert_accessible_within(desk, viewport)
    screenshot(desk, "admin-fruit-history.png", viewport)

    # Back to the version that described the fruit first: name, names, relation and value.
    versions.nth(2).get_by_role("link", name="Revert to this version…").click()
    desk.wait_for_selector("#revert-changes")
    preview = desk.locator(".history-diff").inner_text()
    assert "Schöner aus Boskoop" in preview and "Boskop" in preview
    assert "Belle de Boskoop" in preview and "7 large" in preview
    assert_accessible_within(desk, viewport)
    screenshot(desk, "admin-fruit-revert.png", viewport)

    desk.get_by_role("button", name="Revert to this version").click()
    desk.wait_for_selector(".messagelist .success")
    reverted = Fruit.objects.get(pk=fruit.pk)
    assert reverted.name == "Boskop"
    assert fruit_versions(fruit.pk)[-1].action == "reverted"


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["1280px", "390px"])
def test_a_curator_recovers_a_deleted_fruit(desk, live_server, curator, viewport):
    gravensteiner, _ = deleted_fruits(curator)
    desk.set_viewport_size(viewport)

    desk.goto(f"{live_server.url}/admin/catalog/fruit/")
    desk.get_by_role("link", name="Recover deleted fruits").click()
    rows = desk.locator("#deleted-fruits tbody tr")
    assert rows.count() == 2
    assert "Ontario" in rows.first.inner_text()  # the latest deletion first
    assert_accessible_within(desk, viewport)
    screenshot(desk, "admin-recover-deleted.png", viewport)

    desk.get_by_role("link", name="Recover Gravensteiner…").click()
    desk.wait_for_selector("#recover-state")
    assert "Gravenstein (Synonym)" in desk.locator(".history-diff").inner_text()
    assert_accessible_within(desk, viewport)

    desk.get_by_role("button", name="Recover this fruit").click()
    desk.wait_for_selector(".messagelist .success")
    assert desk.url.endswith(f"/admin/catalog/fruit/{gravensteiner}/change/")
    assert Fruit.objects.get(pk=gravensteiner).catalog_number == 201
