"""A fruit's characteristics in the spreadsheets: `char:<code>` columns, values joined by `|`."""

import csv
import io
import re
from datetime import UTC, datetime

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from openpyxl import Workbook

from catalog.exports import CSV_COLUMNS
from catalog.models import Fruit
from catalog.services import fruit_delete
from core.testing.streams import body
from identification.models import Characteristic, FruitCharacteristic, ValuesVersion
from identification.services import (
    bump_versions,
    characteristic_delete,
    fruit_set_characteristics,
)
from identification.tests.helpers import describe
from publications.models import Publication
from publications.services import publication_link_fruit

pytestmark = pytest.mark.django_db

CSV = "/api/v1/exports/fruits.csv"
IMPORTS = "/api/v1/imports/fruits"
ADMIN_IMPORT = reverse("admin:catalog_fruit_import")


def exported_rows(client, **params) -> list[dict]:
    return list(csv.DictReader(io.StringIO(body(client.get(CSV, params)).decode())))


def post_csv(client, text: str | bytes, **params):
    data = text.encode() if isinstance(text, str) else text
    query = "&".join(f"{key}={value}" for key, value in params.items())
    return client.post(f"{IMPORTS}?{query}" if query else IMPORTS, data, content_type="text/csv")


def values_of(fruit) -> dict[str, list[int]]:
    found: dict[str, list[int]] = {}
    for row in FruitCharacteristic.objects.filter(fruit=fruit).prefetch_related("states"):
        found[row.characteristic.code] = sorted(state.value for state in row.states.all())
    return found


def counts(response) -> dict:
    data = response.json()
    return {key: data[key] for key in ("created", "updated", "unchanged")}


# --- export --------------------------------------------------------------------------------------


def test_the_export_has_a_column_per_characteristic_in_question_order_after_the_catalogs(
    anon_client, fruit_factory, characteristic_factory
):
    characteristic_factory("aaa_first", types=("cherry",), position=0)
    fruit_factory(name="Topaz", catalog_number=1)
    header = body(anon_client.get(CSV)).decode().splitlines()[0].split(",")
    codes = Characteristic.objects.in_question_order().values_list("code", flat=True)
    assert header == [*CSV_COLUMNS, *(f"char:{code}" for code in codes)]
    assert header[len(CSV_COLUMNS)] == "char:aaa_first"  # position 0 comes first
    assert "char:fruit_size" in header and "char:shape" in header  # every type's


def test_the_export_writes_the_values_ascending_joined_by_a_bar_and_empty_for_none(
    anon_client, fruit_factory
):
    topaz = fruit_factory(name="Topaz", catalog_number=1)
    describe(topaz, {"fruit_size": [7, 5], "shape": [3]})
    fruit_factory(name="Hedelfinger", type="cherry", catalog_number=2)
    topaz_row, cherry_row = exported_rows(anon_client)
    assert topaz_row["char:fruit_size"] == "5|7"
    assert topaz_row["char:shape"] == "3"
    assert topaz_row["char:stalk_length"] == ""
    assert {value for key, value in cherry_row.items() if key.startswith("char:")} == {""}


def test_the_admin_export_action_writes_the_characteristics_too(admin_client, fruit_factory):
    topaz = fruit_factory(name="Topaz", catalog_number=9)
    describe(topaz, {"fruit_size": [5, 7]})
    response = admin_client.post(
        reverse("admin:catalog_fruit_changelist"),
        {"action": "export_csv", "_selected_action": [topaz.pk]},
    )
    (row,) = csv.DictReader(io.StringIO(body(response).decode()))
    assert row["name"] == "Topaz" and row["char:fruit_size"] == "5|7" and row["char:shape"] == ""


def test_the_export_costs_a_query_more_per_chunk_whatever_the_number_of_fruits(
    anon_client, fruit_factory
):
    def export_queries() -> int:
        with CaptureQueriesContext(connection) as queries:
            response = anon_client.get(CSV)
            body(response)
        return len(queries.captured_queries)

    first = fruit_factory(name="Fruit 1", catalog_number=1)
    describe(first, {"fruit_size": [5], "shape": [2]})
    few = export_queries()
    for number in range(2, 41):
        fruit = fruit_factory(name=f"Fruit {number}", catalog_number=number)
        describe(fruit, {"fruit_size": [number % 5 * 2 + 1], "stalk_length": [3, 5]})
    assert export_queries() == few
    # The date (a query a table), the columns, then a chunk: its fruits and their values, and
    # the queries that find the chunks' ends.
    assert few <= 9, few


def test_the_exports_date_changes_to_characteristics_and_values_removals_included(
    anon_client, fruit_factory, characteristic_factory
):
    topaz = fruit_factory(name="Topaz", catalog_number=1)
    describe(topaz, {"fruit_size": [5]})

    def etag() -> str:
        return anon_client.get(CSV)["ETag"]

    def changes(write) -> bool:
        before = etag()
        write()
        return etag() != before

    assert changes(lambda: describe(topaz, {"fruit_size": [5, 7]}))
    # Every value removed, the fruit itself untouched: no row is left to date it.
    assert changes(lambda: fruit_set_characteristics(fruit=topaz, records=[]))
    characteristic = characteristic_factory("crunch")
    assert changes(lambda: characteristic_delete(characteristic=characteristic))
    before = etag()
    assert anon_client.get(CSV, HTTP_IF_NONE_MATCH=before).status_code == 304


def test_every_bump_of_the_values_version_dates_it(db):
    bump_versions(["apple"])
    long_ago = datetime(2020, 1, 1, tzinfo=UTC)
    ValuesVersion.objects.filter(fruit_type="apple").update(updated_at=long_ago)
    bump_versions(["apple"])
    assert ValuesVersion.objects.get(fruit_type="apple").updated_at > long_ago


# --- import --------------------------------------------------------------------------------------


def test_an_import_creates_fruits_with_their_characteristics(curator_client):
    response = post_csv(
        curator_client,
        "catalog_number,name,type,char:fruit_size,char:shape\n"
        "1,Topaz,apple,5|7,3\n"
        "2,Conference,pear, 7 ,\n"
        "3,Hedelfinger,cherry,,\n",
    )
    assert response.status_code == 200, response.json()
    assert counts(response) == {"created": 3, "updated": 0, "unchanged": 0}
    fruits = {fruit.name: fruit for fruit in Fruit.objects.all()}
    assert values_of(fruits["Topaz"]) == {"fruit_size": [5, 7], "shape": [3]}
    assert values_of(fruits["Conference"]) == {"fruit_size": [7]}
    assert values_of(fruits["Hedelfinger"]) == {}


def test_an_import_changes_the_characteristics_of_its_columns_and_keeps_the_others(
    curator_client, fruit_factory
):
    topaz = fruit_factory(name="Topaz", catalog_number=1)
    describe(topaz, {"fruit_size": [5], "shape": [3], "stalk_length": [3]})
    response = post_csv(
        curator_client,
        "catalog_number,name,type,char:fruit_size,char:shape\n1,Topaz,apple,5|7,\n",
    )
    assert response.status_code == 200, response.json()
    assert counts(response) == {"created": 0, "updated": 1, "unchanged": 0}
    # fruit_size changed, shape's empty cell removed it, stalk_length had no column: kept.
    assert values_of(topaz) == {"fruit_size": [5, 7], "stalk_length": [3]}


def test_a_row_that_changes_only_characteristics_is_changed_and_a_dry_run_writes_nothing(
    curator_client, fruit_factory
):
    topaz = fruit_factory(name="Topaz", catalog_number=1)
    describe(topaz, {"fruit_size": [5]})
    text = "catalog_number,name,type,char:fruit_size\n1,Topaz,apple,7\n"
    assert counts(post_csv(curator_client, text, dry_run=1)) == {
        "created": 0,
        "updated": 1,
        "unchanged": 0,
    }
    assert values_of(topaz) == {"fruit_size": [5]}
    same = "catalog_number,name,type,char:fruit_size\n1,Topaz,apple,5\n"
    assert counts(post_csv(curator_client, same)) == {"created": 0, "updated": 0, "unchanged": 1}


def test_a_row_that_changes_only_characteristics_leaves_the_fruit_and_its_names_alone(
    curator_client, fruit_factory
):
    topaz = fruit_factory(name="Topaz", catalog_number=1, synonyms=["Topas"])
    describe(topaz, {"fruit_size": [5]})
    name_ids = list(topaz.names.values_list("pk", flat=True))
    before = Fruit.objects.get(pk=topaz.pk).updated_at
    text = "catalog_number,name,type,synonyms,char:fruit_size\n1,Topaz,apple,Topas,7\n"

    assert counts(post_csv(curator_client, text))["updated"] == 1

    assert values_of(topaz) == {"fruit_size": [7]}
    assert list(topaz.names.values_list("pk", flat=True)) == name_ids  # not rewritten
    assert Fruit.objects.get(pk=topaz.pk).updated_at > before  # the change is dated


def test_a_new_fruits_characteristics_are_stored_with_it(curator_client):
    text = "catalog_number,name,type,char:fruit_size,char:shape\n5,Topaz,apple,5|7,\n"

    assert counts(post_csv(curator_client, text))["created"] == 1

    assert values_of(Fruit.objects.get(catalog_number=5)) == {"fruit_size": [5, 7]}


def test_an_exported_file_imports_back_unchanged_keeping_sources_pages_and_notes(
    anon_client, curator_client, fruit_factory
):
    topaz = fruit_factory(name="Topaz", catalog_number=1, synonyms=["Topas"])
    pomona = Publication.objects.create(title="Pomona", authors="Lucas", year=1875)
    publication_link_fruit(publication=pomona, fruit=topaz)
    describe(
        topaz,
        {"fruit_size": [5, 7], "shape": [3]},
        fruit_size={"source_publication": pomona.pk, "pages": "112", "note": "in good years"},
    )
    conference = fruit_factory(name="Conference", type="pear", catalog_number=2)
    describe(conference, {"fruit_size": [7], "stalk_length": [9]})
    fruit_factory(name="Hedelfinger", type="cherry", catalog_number=3)
    exported = body(anon_client.get(CSV))
    stored = list(FruitCharacteristic.objects.order_by("pk").values_list("pk", "updated_at"))
    response = post_csv(curator_client, exported)
    assert response.status_code == 200, response.json()
    assert counts(response) == {"created": 0, "updated": 0, "unchanged": 3}
    assert list(FruitCharacteristic.objects.order_by("pk").values_list("pk", "updated_at")) == (
        stored
    )  # nothing written again
    # A row changed by its name keeps the characteristics' sources, pages and notes.
    renamed = exported.decode().replace("1,Topaz,", "1,Topaz Rot,").encode()
    assert counts(post_csv(curator_client, renamed))["updated"] == 1
    kept = FruitCharacteristic.objects.get(fruit=topaz, characteristic__code="fruit_size")
    assert (kept.source_publication_id, kept.pages, kept.note) == (
        pomona.pk,
        "112",
        "in good years",
    )
    assert values_of(topaz) == {"fruit_size": [5, 7], "shape": [3]}


def test_a_changed_value_loses_its_source_and_an_unchanged_one_keeps_it(
    curator_client, fruit_factory
):
    topaz = fruit_factory(name="Topaz", catalog_number=1)
    pomona = Publication.objects.create(title="Pomona")
    publication_link_fruit(publication=pomona, fruit=topaz)
    cited = {"source_publication": pomona.pk, "pages": "12", "note": "n"}
    describe(topaz, {"fruit_size": [5], "shape": [3]}, fruit_size=cited, shape=cited)
    text = "catalog_number,name,type,char:fruit_size,char:shape\n1,Topaz,apple,5,2\n"
    assert counts(post_csv(curator_client, text))["updated"] == 1
    rows = {
        row.characteristic.code: (row.source_publication_id, row.pages, row.note)
        for row in FruitCharacteristic.objects.filter(fruit=topaz).select_related("characteristic")
    }
    assert rows == {"fruit_size": (pomona.pk, "12", "n"), "shape": (None, "", "")}


def test_a_column_of_an_unknown_code_is_an_error_of_the_header(curator_client):
    response = post_csv(curator_client, "catalog_number,name,type,char:colour\n1,Topaz,apple,3\n")
    assert response.status_code == 400
    (error,) = response.json()["errors"]
    assert error["row"] == 1 and error["field"] == "char:colour"
    assert (
        'Unknown column "char:colour": no characteristic has the code "colour"'
        in (error["message"])
    )
    assert not Fruit.objects.exists()


@pytest.mark.parametrize(
    ("cell", "words"),
    [
        ("4", '"4" is not a state of "Fruit: size": one of 1, 3, 5, 7, 9'),
        ("5|large", '"large" is not a state of "Fruit: size"'),
        ("5;7", '"5;7" is not a state of "Fruit: size"'),
        ("\u0665", "is not a state of"),
    ],
    ids=["not-a-state", "a-label", "other-separator", "arabic-indic-digit"],
)
def test_a_value_that_is_not_a_state_is_a_row_error_naming_the_column(curator_client, cell, words):
    response = post_csv(
        curator_client, f"catalog_number,name,type,char:fruit_size\n1,Topaz,apple,{cell}\n"
    )
    assert response.status_code == 400
    (error,) = response.json()["errors"]
    assert (error["row"], error["field"]) == (2, "char:fruit_size")
    assert words in error["message"], error
    assert not Fruit.objects.exists()


def test_a_value_for_a_characteristic_that_does_not_apply_to_the_type_is_a_row_error(
    curator_client,
):
    response = post_csv(
        curator_client,
        "catalog_number,name,type,char:fruit_size,char:shape\n"
        "1,Conference,pear,7,3\n"  # shape is an apple's
        "2,Williams Christ,pear,7,\n",  # empty: nothing to say, fine
    )
    assert response.status_code == 400
    assert response.json()["errors"] == [
        {
            "row": 2,
            "field": "char:shape",
            "message": '"Fruit: shape" does not apply to a fruit of type pear: leave the cell '
            "empty.",
        }
    ]
    assert not Fruit.objects.exists()


def test_a_bad_type_is_one_error_not_one_more_per_characteristic(curator_client):
    response = post_csv(curator_client, "catalog_number,name,type,char:fruit_size\n1,A,appel,5\n")
    assert [error["field"] for error in response.json()["errors"]] == ["type"]


def test_a_workbook_carries_characteristics_as_numbers_and_text(curator_client):
    workbook = Workbook()
    workbook.active.append(["catalog_number", "name", "type", "char:fruit_size", "char:shape"])
    workbook.active.append([1, "Topaz", "apple", 5, "2|3"])
    out = io.BytesIO()
    workbook.save(out)
    response = curator_client.post(IMPORTS, out.getvalue(), content_type="application/octet-stream")
    assert response.status_code == 200, response.json()
    assert values_of(Fruit.objects.get()) == {"fruit_size": [5], "shape": [2, 3]}


def test_a_retyped_fruit_takes_the_values_of_its_new_type(curator_client, fruit_factory):
    fruit = fruit_factory(name="Mystery", catalog_number=1)
    describe(fruit, {"fruit_size": [5], "shape": [3]})
    text = "catalog_number,name,type,char:fruit_size,char:shape\n1,Mystery,pear,7,\n"
    assert counts(post_csv(curator_client, text))["updated"] == 1
    assert values_of(fruit) == {"fruit_size": [7]}  # shape is an apple's: dropped with the type


def test_checking_and_storing_an_import_costs_the_same_queries_for_more_fruits(
    curator_client, fruit_factory
):
    from catalog import imports

    def rows(count: int) -> bytes:
        lines = ["catalog_number,name,type,char:fruit_size,char:shape,char:stalk_length"]
        lines += [f"{n},Fruit {n},apple,{n % 5 * 2 + 1}|9,3,5" for n in range(1, count + 1)]
        return "\n".join(lines).encode() + b"\n"

    for number in range(1, 61):
        describe(fruit_factory(name=f"Fruit {number}", catalog_number=number), {"shape": [1]})
    with CaptureQueriesContext(connection) as few:
        imports.plan_import(rows(3), dry_run=True)
    with CaptureQueriesContext(connection) as many:
        report = imports.plan_import(rows(60), dry_run=True)
    assert report.ok and report.count("changed") == 60
    assert len(many.captured_queries) == len(few.captured_queries) <= 6
    # Storing is a write per row, as any row's: bounded by the row, not by the catalog.
    with CaptureQueriesContext(connection) as stored:
        imports.apply_import(imports.plan_import(rows(3), dry_run=False))
    per_row = len(stored.captured_queries) / 3
    assert per_row < 40, per_row
    assert values_of(Fruit.objects.get(catalog_number=3)) == {
        "fruit_size": [7, 9],
        "shape": [3],
        "stalk_length": [5],
    }


def test_an_exported_then_reimported_catalog_of_many_fruits_stays_unchanged_in_few_queries(
    anon_client, curator_client, fruit_factory, django_assert_max_num_queries
):
    for number in range(1, 31):
        fruit = fruit_factory(name=f"Fruit {number}", catalog_number=number)
        describe(fruit, {"fruit_size": [number % 5 * 2 + 1], "shape": [1, 2]})
    exported = body(anon_client.get(CSV))
    from catalog import imports

    with django_assert_max_num_queries(6):
        report = imports.plan_import(exported, dry_run=True)
    assert report.count("unchanged") == 30


def test_importing_new_fruits_with_characteristics_costs_statements_by_the_batch_not_the_row(
    curator_client, django_assert_max_num_queries
):
    lines = ["catalog_number,name,type,char:fruit_size,char:shape"]
    lines += [f"{n},Fruit {n},apple,{n % 5 * 2 + 1}|9,3" for n in range(1, 41)]
    with CaptureQueriesContext(connection) as queries, django_assert_max_num_queries(30):
        response = post_csv(curator_client, "\n".join(lines) + "\n")
    assert counts(response)["created"] == 40
    deletes = [q["sql"] for q in queries.captured_queries if q["sql"].upper().startswith("DELETE")]
    assert deletes == []  # a fruit just created holds no values to replace
    assert values_of(Fruit.objects.get(catalog_number=3)) == {"fruit_size": [7, 9], "shape": [3]}
    assert values_of(Fruit.objects.get(catalog_number=40)) == {"fruit_size": [1, 9], "shape": [3]}


def test_a_new_rows_value_that_no_longer_applies_when_stored_is_that_rows_error():
    from catalog import imports

    report = imports.plan_import(
        b"catalog_number,name,type,char:shape\n1,Topaz,apple,\n2,Elstar,apple,3\n",
        dry_run=False,
    )
    Characteristic.objects.filter(code="shape").update(fruit_types=",pear,")  # meanwhile
    imports.apply_import(report)
    assert [error.as_dict() for error in report.errors] == [
        {
            "row": 3,
            "field": "char:shape",
            "message": f"Characteristic {Characteristic.objects.get(code='shape').pk} no longer "
            "applies to this fruit.",
        }
    ]
    assert not Fruit.objects.exists()


# --- the admin's import preview ------------------------------------------------------------------


def preview_rows(client, text: str) -> dict[str, str]:
    """The admin's preview of a CSV file: each row's HTML by its action (the first of each)."""
    upload = SimpleUploadedFile("fruits.csv", text.encode(), content_type="text/csv")
    page = client.post(ADMIN_IMPORT, {"file": upload})
    assert page.status_code == 200
    rows = {}
    for row in page.text.split("<tr ")[1:]:
        action = re.match(r'class="import-(\w+)"', row)
        if action:
            rows.setdefault(action.group(1), row.split("</tr>")[0])
    return rows


def test_the_admin_preview_shows_each_changed_characteristic_old_and_new(
    admin_client, fruit_factory
):
    topaz = fruit_factory(name="Topaz", catalog_number=1)
    describe(topaz, {"fruit_size": [5], "shape": [3], "stalk_length": [3]})
    elstar = fruit_factory(name="Elstar", catalog_number=2)
    describe(elstar, {"fruit_size": [7]})

    rows = preview_rows(
        admin_client,
        "catalog_number,name,type,char:fruit_size,char:shape,char:stalk_length\n"
        "1,Topaz,apple,5|7,,3\n"  # size 5 -> 5|7, shape 3 -> none, stalk length the same
        "2,Elstar,apple,7,,\n"
        "3,Rubinola,apple,9,,\n",
    )

    changed = rows["changed"]
    assert "char:fruit_size: <del>5</del> → <ins>5|7</ins>" in changed
    assert "char:shape: <del>3</del> → <ins>—</ins>" in changed
    assert "char:stalk_length" not in changed  # an unchanged cell is no change to show
    assert "<del>" not in rows["unchanged"]
    assert "char:fruit_size: 9" in rows["new"] and "<del>" not in rows["new"]


def test_the_admin_preview_reads_the_old_characteristics_in_the_same_queries_for_more_rows(
    admin_client, fruit_factory, django_assert_max_num_queries
):
    def rows(count: int) -> str:
        lines = ["catalog_number,name,type,char:fruit_size,char:shape"]
        lines += [f"{n},Fruit {n},apple,{n % 5 * 2 + 1}|9,3" for n in range(1, count + 1)]
        return "\n".join(lines) + "\n"

    for number in range(1, 41):
        fruit = fruit_factory(name=f"Fruit {number}", catalog_number=number)
        describe(fruit, {"fruit_size": [number % 5 * 2 + 1], "shape": [1]})
    with CaptureQueriesContext(connection) as few:
        preview_rows(admin_client, rows(2))
    with django_assert_max_num_queries(len(few.captured_queries)):
        many = preview_rows(admin_client, rows(40))
    assert "char:shape: <del>1</del> → <ins>3</ins>" in many["changed"]


def test_deleting_a_fruit_with_values_still_dates_the_export(anon_client, fruit_factory):
    topaz = fruit_factory(name="Topaz", catalog_number=1)
    describe(topaz, {"fruit_size": [5]})
    etag = anon_client.get(CSV)["ETag"]
    fruit_delete(fruit=topaz)
    assert anon_client.get(CSV, HTTP_IF_NONE_MATCH=etag).status_code == 200
