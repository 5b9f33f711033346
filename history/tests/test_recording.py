"""Every write is recorded in its own transaction, through every door, with who, when and how."""

import io

import pytest
from django.core.management import call_command
from django.urls import reverse

from catalog.models import Fruit, FruitImage, ImportBatch
from catalog.tests.test_admin import fruit_form_data
from core.testing.admin_pages import form_errors
from core.testing.queries import selected_blob_columns

pytestmark = pytest.mark.django_db

FRUITS = "/api/v1/fruits"


def history_of(model, **filters):
    return list(model.history.filter(**filters).order_by("history_id"))


def test_an_api_write_is_one_revision_with_its_user_and_door(curator_client, curator):
    created = curator_client.post(
        FRUITS,
        {"name": "Boskop", "type": "apple", "names": [{"name": "Renette de Montfort"}]},
        format="json",
    )
    assert created.status_code == 201, created.content
    pk = created.json()["id"]
    changed = curator_client.patch(
        f"{FRUITS}/{pk}",
        {"name": "Boskoop", "names": [{"name": "Belle de Boskoop"}]},
        format="json",
    )
    assert changed.status_code == 200, changed.content

    fruit_rows = history_of(Fruit, id=pk)
    assert [(row.history_type, row.name) for row in fruit_rows][-1] == ("~", "Boskoop")
    assert fruit_rows[0].history_type == "+"
    assert {(row.via, row.history_user) for row in fruit_rows} == {("api", curator)}
    from catalog.models import FruitName

    names = history_of(FruitName, fruit_id=pk)
    # The names a request replaced and wrote share its revision with the fruit's row.
    assert [(row.history_type, row.name) for row in names] == [
        ("+", "Renette de Montfort"),
        ("-", "Renette de Montfort"),
        ("+", "Belle de Boskoop"),
    ]
    assert names[0].revision == fruit_rows[0].revision
    assert names[2].revision == fruit_rows[-1].revision != fruit_rows[0].revision


def test_an_admin_write_is_recorded_as_the_admins(admin_client, admin_user):
    response = admin_client.post(reverse("admin:catalog_fruit_add"), fruit_form_data(name="Topaz"))
    assert response.status_code == 302
    (row,) = history_of(Fruit, name="Topaz")
    assert (row.history_type, row.via, row.history_user) == ("+", "admin", admin_user)


def test_every_change_of_an_import_is_recorded_as_its_batch_whichever_door(
    curator_client, curator, fruit_factory, tmp_path
):
    stored = fruit_factory(name="Gravensteiner", catalog_number=7)
    body = (
        "catalog_number,name,type,synonyms\n"
        "7,Gravensteiner,apple,Gravensteiner Apfel\n"
        "8,Kaiser Wilhelm,apple,Wilhelmsapfel\n"
    )
    from django.core.files.uploadedfile import SimpleUploadedFile

    upload = SimpleUploadedFile("autumn.csv", body.encode(), content_type="text/csv")
    response = curator_client.post("/api/v1/imports/fruits", {"file": upload}, format="multipart")
    assert response.status_code == 200, response.content

    batch = ImportBatch.objects.get()
    assert (batch.file_name, batch.user, batch.created_count, batch.changed_count) == (
        "autumn.csv",
        curator,
        1,
        1,
    )
    from catalog.models import FruitName

    created = Fruit.objects.get(name="Kaiser Wilhelm")
    for model, filters in [
        (Fruit, {"id": created.pk}),
        (FruitName, {"fruit_id": created.pk}),
        (FruitName, {"fruit_id": stored.pk}),
    ]:
        rows = history_of(model, **filters)
        assert rows and {(row.via, row.batch, row.history_user) for row in rows} == {
            ("import", batch.pk, curator)
        }, model

    path = tmp_path / "winter.csv"
    path.write_text("catalog_number,name,type\n9,Ontario,apple\n")
    call_command("import_fruits", str(path), stdout=io.StringIO())
    second = ImportBatch.objects.exclude(pk=batch.pk).get()
    assert (second.file_name, second.user) == ("winter.csv", None)
    (row,) = history_of(Fruit, name="Ontario")
    assert (row.via, row.batch, row.history_user) == ("import", second.pk, None)


def test_a_deleted_fruit_leaves_its_last_state_and_its_parts_without_bytes(
    curator_client, fruit_factory, add_image
):
    fruit = fruit_factory(name="Topaz", synonyms=["Topas"])
    image = add_image(fruit)
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    with CaptureQueriesContext(connection) as queries:
        assert curator_client.delete(f"{FRUITS}/{fruit.pk}").status_code == 204
    assert selected_blob_columns(queries.captured_queries) == set()

    from catalog.models import FruitName

    (gone,) = history_of(Fruit, id=fruit.pk, history_type="-")
    assert (gone.name, gone.via) == ("Topaz", "api")
    assert [row.name for row in history_of(FruitName, fruit_id=fruit.pk, history_type="-")] == [
        "Topas"
    ]
    (image_row,) = history_of(FruitImage, id=image.pk, history_type="-")
    assert (image_row.size, image_row.sha256) == (image.size, image.sha256)
    assert image_row.revision == gone.revision
    assert not hasattr(image_row, "data")


def test_choosing_a_card_image_is_recorded(curator_client, fruit_factory, add_image):
    fruit = fruit_factory(name="Topaz")
    first, second = add_image(fruit), add_image(fruit)
    response = curator_client.patch(
        f"{FRUITS}/{fruit.pk}", {"card_image_id": second.pk}, format="json"
    )
    assert response.status_code == 200, response.content
    (chosen,) = history_of(FruitImage, id=second.pk, history_type="~")
    assert (chosen.is_card_image, chosen.via) == (True, "api")
    assert first.pk != second.pk


def test_a_write_with_history_costs_a_bounded_number_of_queries(
    curator_client, fruit_factory, django_assert_max_num_queries
):
    fruit = fruit_factory(name="Topaz", synonyms=["Topas", "Topaze"])
    with django_assert_max_num_queries(40):
        response = curator_client.patch(
            f"{FRUITS}/{fruit.pk}", {"names": [{"name": "Topas"}]}, format="json"
        )
    assert response.status_code == 200


def test_a_command_is_one_door_each_fruit_one_version(tmp_path):
    call_command("load_demo_data", stdout=io.StringIO())
    fruit = Fruit.objects.order_by("pk").first()
    from history.versions import fruit_versions

    (version,) = fruit_versions(fruit.pk)
    assert (version.via, version.user, version.action) == ("command", None, "created")


def test_names_and_relations_written_unchanged_leave_no_history(curator_client):
    mother = curator_client.post(FRUITS, {"name": "Cox", "type": "apple"}, format="json").json()
    body = {
        "name": "Alkmene",
        "type": "apple",
        "names": [{"name": "Early Windsor"}],
        "relations": [{"kind": "mother", "fruit_id": mother["id"]}],
    }
    pk = curator_client.post(FRUITS, body, format="json").json()["id"]
    from catalog.models import FruitName, FruitRelation

    before = (FruitName.history.count(), FruitRelation.history.count())
    response = curator_client.put(f"{FRUITS}/{pk}", body, format="json")

    assert response.status_code == 200, response.content
    assert (FruitName.history.count(), FruitRelation.history.count()) == before


def test_deleting_a_publication_records_the_values_that_stop_citing_it(
    curator_client, fruit_factory
):
    from identification.models import FruitCharacteristic
    from identification.tests.helpers import describe, ensure_standard_characteristics
    from publications.services import publication_link_fruit
    from publications.tests.factories import PublicationFactory

    ensure_standard_characteristics()
    fruit = fruit_factory(name="Elstar", catalog_number=1)
    publication = PublicationFactory(title="Obstsortenwerk")
    publication_link_fruit(publication=publication, fruit=fruit)
    describe(
        fruit,
        {"fruit_size": [5]},
        fruit_size={"source_publication": publication.pk, "pages": "112"},
    )

    assert curator_client.delete(f"/api/v1/publications/{publication.pk}").status_code == 204

    value = FruitCharacteristic.objects.get(fruit=fruit)
    assert (value.source_publication_id, value.pages) == (None, "")
    latest = FruitCharacteristic.history.filter(id=value.pk).order_by("-history_id").first()
    assert (latest.source_publication_id, latest.pages, latest.via) == (None, "", "api")


def _valued_fruit(fruit_factory, code):
    """A fruit with another name, a relation and a characteristic value (two states)."""
    from catalog.services import fruit_update
    from identification.services import fruit_set_characteristics
    from identification.tests.factories import make_characteristic

    size = make_characteristic(code, scale="nominal")
    fruit = fruit_factory(name="Topaz", synonyms=["Topas"])
    fruit_update(
        fruit=fruit, relations=[{"kind": "mother", "other_id": None, "name": "Vanda", "note": ""}]
    )
    states = [size.states.get(value=1).pk, size.states.get(value=3).pk]
    record = {"characteristic_id": size.pk, "state_ids": states}
    record |= {"source_publication_id": None, "pages": "", "note": ""}
    fruit_set_characteristics(fruit=fruit, records=[record])
    return fruit, size


def _deleted(model, **filters):
    return history_of(model, history_type="-", **filters)


def test_an_admin_inline_deletion_of_a_name_or_a_relation_is_recorded(
    admin_client, admin_user, fruit_factory
):
    from catalog.models import FruitName, FruitRelation

    fruit, _ = _valued_fruit(fruit_factory, "X_INLINE")
    (name,) = fruit.names.all()
    (relation,) = fruit.relations.all()
    data = fruit_form_data(
        name="Topaz", catalog_number=fruit.catalog_number, existing_names=[(name, "Topas", 0, True)]
    )
    data |= {"relations-TOTAL_FORMS": "1", "relations-INITIAL_FORMS": "1"}
    data |= {
        "relations-0-id": relation.pk,
        "relations-0-fruit": fruit.pk,
        "relations-0-DELETE": "on",
    }
    data |= {"relations-0-kind": "mother", "relations-0-name": "Vanda", "relations-0-position": 0}
    response = admin_client.post(reverse("admin:catalog_fruit_change", args=[fruit.pk]), data)
    assert response.status_code == 302, form_errors(response)

    assert not fruit.names.exists() and not fruit.relations.exists()
    (gone_name,) = _deleted(FruitName, fruit_id=fruit.pk)
    (gone_relation,) = _deleted(FruitRelation, fruit_id=fruit.pk)
    assert (gone_name.name, gone_name.via, gone_name.history_user) == ("Topas", "admin", admin_user)
    assert (gone_relation.name, gone_relation.via) == ("Vanda", "admin")


def test_a_deletion_records_the_rows_it_cascades_to(fruit_factory):
    from catalog.models import FruitName, FruitRelation
    from identification.models import FruitCharacteristic, FruitCharacteristicState

    fruit, _ = _valued_fruit(fruit_factory, "X_CASCADE")
    (value,) = FruitCharacteristic.objects.filter(fruit=fruit)
    links = set(
        FruitCharacteristicState.objects.filter(fruit_characteristic=value).values_list(
            "pk", flat=True
        )
    )

    from core.history import door

    with door("command"):
        Fruit.objects.filter(pk=fruit.pk).delete()  # no service: the rows cascade from the fruit

    (gone,) = _deleted(Fruit, id=fruit.pk)
    assert [row.name for row in _deleted(FruitName, fruit_id=fruit.pk)] == ["Topas"]
    assert [row.name for row in _deleted(FruitRelation, fruit_id=fruit.pk)] == ["Vanda"]
    assert [row.id for row in _deleted(FruitCharacteristic, fruit_id=fruit.pk)] == [value.pk]
    assert {
        row.id for row in _deleted(FruitCharacteristicState, fruit_characteristic_id=value.pk)
    } == links
    assert len(links) == 2
    assert {row.revision for row in _deleted(FruitName, fruit_id=fruit.pk)} == {gone.revision}


def test_deleting_a_characteristic_records_its_states_and_the_values_fruits_held(fruit_factory):
    from identification.models import (
        Characteristic,
        CharacteristicState,
        FruitCharacteristic,
        FruitCharacteristicState,
    )
    from identification.services import characteristic_delete

    fruit, size = _valued_fruit(fruit_factory, "X_CHARDEL")
    states = set(size.states.values_list("pk", flat=True))
    (value,) = FruitCharacteristic.objects.filter(fruit=fruit)

    pk = size.pk
    characteristic_delete(characteristic=size)

    assert [row.code for row in _deleted(Characteristic, id=pk)] == ["X_CHARDEL"]
    assert {row.id for row in _deleted(CharacteristicState, characteristic_id=pk)} == states
    assert [row.id for row in _deleted(FruitCharacteristic, fruit_id=fruit.pk)] == [value.pk]
    assert len(_deleted(FruitCharacteristicState, fruit_characteristic_id=value.pk)) == 2
