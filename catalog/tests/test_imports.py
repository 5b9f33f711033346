"""Spreadsheet imports through the API and `manage.py import_fruits`: all or nothing."""

import io

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import connection
from django.test.utils import CaptureQueriesContext
from openpyxl import Workbook

from catalog.models import Fruit, FruitName, FruitSpelling, ImportBatch
from catalog.services import fruit_create, fruit_delete
from catalog.validators import clean_names

pytestmark = pytest.mark.django_db

IMPORTS = "/api/v1/imports/fruits"


def post_csv(client, text: str | bytes, **params):
    body = text.encode() if isinstance(text, str) else text
    query = "&".join(f"{key}={value}" for key, value in params.items())
    return client.post(f"{IMPORTS}?{query}" if query else IMPORTS, body, content_type="text/csv")


def xlsx(rows: list[list]) -> bytes:
    workbook = Workbook()
    for row in rows:
        workbook.active.append(row)
    out = io.BytesIO()
    workbook.save(out)
    return out.getvalue()


def catalog() -> list[tuple]:
    return [
        (fruit.catalog_number, fruit.name, fruit.type, [name["name"] for name in fruit.name_list])
        for fruit in Fruit.objects.with_names().in_catalog_order()
    ]


def test_a_csv_creates_and_updates_fruits_by_catalog_number(curator_client, fruit_factory):
    fruit_factory(name="Boskop", catalog_number=7)
    fruit_factory(name="Topaz", catalog_number=9)
    response = post_csv(
        curator_client,
        "catalog_number,name,type,synonyms\n"
        "7,Schöner aus Boskoop,apple,Boskoop; Belle de Boskoop\n"
        "9,Topaz,apple,\n"
        "12,Conference,pear,\n",
    )
    assert response.status_code == 200, response.json()
    batch = ImportBatch.objects.get()
    assert response.json() == {
        "dry_run": False,
        "created": 1,
        "updated": 1,
        "unchanged": 1,
        "errors": [],
        "batch": batch.pk,
    }
    assert catalog() == [
        (7, "Schöner aus Boskoop", "apple", ["Boskoop", "Belle de Boskoop"]),
        (9, "Topaz", "apple", []),
        (12, "Conference", "pear", []),
    ]
    assert Fruit.objects.search("belle de boskoop").get().catalog_number == 7


@pytest.mark.parametrize(
    "body",
    [
        "\ufeffcatalog_number;name;type;synonyms\r\n3;Gravensteiner;apple;Grafensteiner\r\n",
        "catalog_number,name,type\n3,Gravensteiner,Apple\n\n",
        'catalog_number,synonyms,type,name,url\n3,"Grafensteiner",apple,Gravensteiner,http://x/\n',
    ],
    ids=["bom-semicolon-crlf", "capitalised-type-blank-line", "any-order-ignored-column"],
)
def test_the_csv_dialects_spreadsheets_write_are_read(curator_client, body):
    response = post_csv(curator_client, body)
    assert response.status_code == 200, response.json()
    assert catalog()[0][:3] == (3, "Gravensteiner", "apple")


def test_an_xlsx_file_imports_as_a_csv_does(curator_client):
    data = xlsx(
        [
            ["catalog_number", "name", "type", "synonyms"],
            [1042, "Gravensteiner", "apple", "Grafensteiner"],
            [None, None, None, None],
            [1043, "Williams Christ", "pear", None],
        ]
    )
    upload = io.BytesIO(data)
    upload.name = "fruits.xlsx"
    response = curator_client.post(IMPORTS, {"file": upload}, format="multipart")
    assert response.status_code == 200, response.json()
    assert catalog() == [
        (1042, "Gravensteiner", "apple", ["Grafensteiner"]),
        (1043, "Williams Christ", "pear", []),
    ]


def test_a_dry_run_reports_and_writes_nothing(curator_client, fruit_factory):
    fruit_factory(name="Topaz", catalog_number=9)
    body = "catalog_number,name,type\n9,Topaz Rot,apple\n10,Rubinola,apple\n"
    response = post_csv(curator_client, body, dry_run=1)
    assert response.json() == {
        "dry_run": True,
        "created": 1,
        "updated": 1,
        "unchanged": 0,
        "errors": [],
        "batch": None,
    }
    assert catalog() == [(9, "Topaz", "apple", [])]


def test_a_file_with_any_error_changes_nothing_and_lists_every_error(curator_client, fruit_factory):
    fruit_factory(name="Topaz", catalog_number=9)
    body = (
        "catalog_number,name,type,synonyms\n"
        "9,Topaz Rot,apple,\n"  # fine, but the file has errors
        "10,Rubinola,appel,\n"
        "x,,apple,\n"
        "11,Santana,apple,Santana\n"
        "10,Elstar,apple,\n"
    )
    response = post_csv(curator_client, body)
    assert response.status_code == 400
    assert response.json()["errors"] == [
        {
            "row": 3,
            "field": "type",
            "message": (
                '"appel" is not a valid choice; one of apple, pear, quince, cherry, plum, '
                "apricot, peach, grape, berry, citrus, nut, other."
            ),
        },
        {
            "row": 4,
            "field": "catalog_number",
            "message": '"x" is not a whole number from 1 to 2147483647.',
        },
        {"row": 4, "field": "name", "message": "A name is required."},
        {
            "row": 5,
            "field": "synonyms",
            "message": "'Santana' is the fruit's own name, not another name of it.",
        },
        {"row": 6, "field": "catalog_number", "message": "Catalog number 10 is also in row 3."},
    ]
    assert catalog() == [(9, "Topaz", "apple", [])]


@pytest.mark.parametrize(
    ("body", "field", "words"),
    [
        ("catalog_number,name,type,colour\n1,A,apple,red\n", "colour", 'Unknown column "colour"'),
        ("catalog_number,name\n1,A\n", "type", 'required column "type" is missing'),
        ("", "", "no header row"),
        ("catalog_number,name,type\n1,Köstliche,apple\n".encode("latin-1"), "", "not UTF-8"),
        ('catalog_number,name,type\n1,"unclosed,apple\n', "", "cannot be read"),
        (b"PK\x03\x04 not really a workbook", "", "not a readable XLSX"),
    ],
    ids=["unknown-column", "missing-column", "empty", "latin-1", "broken-quote", "broken-xlsx"],
)
def test_a_malformed_file_is_a_400_that_says_what_is_wrong(curator_client, body, field, words):
    response = post_csv(curator_client, body)
    assert response.status_code == 400
    if body == "":
        assert response.json()["errors"] == [
            {"row": 0, "field": "file", "message": "No file was submitted."}
        ]
        return
    (error,) = response.json()["errors"]
    assert error["field"] == field and words in error["message"], error
    assert not Fruit.objects.exists()


def test_a_body_over_the_upload_limit_is_a_413(curator_client, settings):
    body = "catalog_number,name,type\n" + "1,A,apple\n" * 700_000  # about 6.3 MB
    assert len(body) > settings.FRUITCATALOG_MAX_UPLOAD_BYTES
    assert post_csv(curator_client, body).status_code == 413
    assert not Fruit.objects.exists()


def test_an_import_needs_add_and_change_fruit(anon_client, reader_client):
    body = "catalog_number,name,type\n1,A,apple\n"
    assert post_csv(anon_client, body).status_code == 401
    assert post_csv(reader_client, body).status_code == 403
    assert not Fruit.objects.exists()


def test_an_import_retried_with_its_key_writes_once(curator_client):
    body = b"catalog_number,name,type\n1,Topaz,apple\n"
    first = curator_client.post(
        IMPORTS, body, content_type="text/csv", HTTP_IDEMPOTENCY_KEY="import-1"
    )
    again = curator_client.post(
        IMPORTS, body, content_type="text/csv", HTTP_IDEMPOTENCY_KEY="import-1"
    )
    assert again["Idempotent-Replayed"] == "true"
    assert (
        again.json()
        == first.json()
        == {
            "dry_run": False,
            "created": 1,
            "updated": 0,
            "unchanged": 0,
            "errors": [],
            "batch": ImportBatch.objects.get().pk,
        }
    )
    assert Fruit.objects.count() == 1


def test_an_updated_fruit_keeps_the_kind_and_language_of_its_unchanged_names(curator_client):
    from catalog.services import fruit_create

    names = [{"name": "Reine des Reinettes", "kind": "translation", "language": "fr"}]
    fruit_create(
        name="Goldparmäne",
        type="apple",
        catalog_number=5,
        names=clean_names(names, fruit_name="Goldparmäne"),
    )
    body = (
        "catalog_number,name,type,synonyms\n"
        "5,Goldparmäne,apple,Reine des Reinettes; Wintergoldparmäne\n"
    )
    assert post_csv(curator_client, body).json()["updated"] == 1
    kinds = list(FruitName.objects.order_by("position").values_list("name", "kind", "language"))
    assert kinds == [
        ("Reine des Reinettes", "translation", "fr"),
        ("Wintergoldparmäne", "synonym", ""),
    ]


def test_the_command_imports_a_file_and_its_dry_run_writes_nothing(tmp_path):
    path = tmp_path / "fruits.csv"
    path.write_text("catalog_number,name,type\n1,Topaz,apple\n2,Conference,pear\n")
    out = io.StringIO()
    call_command("import_fruits", str(path), "--dry-run", stdout=out)
    assert "2 new, 0 changed, 0 unchanged (dry run: nothing written)" in out.getvalue()
    assert not Fruit.objects.exists()
    call_command("import_fruits", str(path), stdout=out)
    assert Fruit.objects.count() == 2


def test_the_command_reports_every_error_and_fails(tmp_path):
    path = tmp_path / "fruits.csv"
    path.write_text("catalog_number,name,type\n1,Topaz,appel\n")
    err = io.StringIO()
    with pytest.raises(CommandError, match="1 error"):
        call_command("import_fruits", str(path), stderr=err)
    assert 'row 2, type: "appel" is not a valid choice' in err.getvalue()
    assert not Fruit.objects.exists()


def test_the_raw_bytes_of_a_workbook_import_too(curator_client):
    data = xlsx([["catalog_number", "name", "type"], [7, "Topaz", "apple"]])
    response = curator_client.post(IMPORTS, data, content_type="application/octet-stream")
    assert response.status_code == 200, response.json()
    assert catalog() == [(7, "Topaz", "apple", [])]


@pytest.mark.parametrize(
    ("body", "field", "words"),
    [
        ("catalog_number,name,type\n²,Topaz,apple\n", "catalog_number", "not a whole number"),
        (
            "catalog_number,name,type\n\u0661\u0662,Topaz,apple\n",
            "catalog_number",
            "not a whole number",
        ),
    ],
    ids=["superscript-two", "arabic-indic-digits"],
)
def test_digits_other_than_ascii_are_a_row_error_not_a_crash(curator_client, body, field, words):
    response = post_csv(curator_client, body)
    assert response.status_code == 400
    (error,) = response.json()["errors"]
    assert error["field"] == field and words in error["message"]


def test_a_workbook_whose_sheet_is_broken_is_a_400(curator_client):
    import zipfile

    data = xlsx([["catalog_number", "name", "type"], [1, "Topaz", "apple"]])
    broken = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(data)) as source, zipfile.ZipFile(broken, "w") as target:
        for info in source.infolist():
            content = source.read(info)
            if info.filename.startswith("xl/worksheets/"):
                content = content[: len(content) // 2]  # cut in the middle of its XML
            target.writestr(info, content)
    response = curator_client.post(
        IMPORTS, broken.getvalue(), content_type="application/octet-stream"
    )
    assert response.status_code == 400
    assert "cannot be read" in response.json()["errors"][0]["message"] or (
        "not a readable XLSX" in response.json()["errors"][0]["message"]
    )
    assert not Fruit.objects.exists()


def test_more_rows_than_an_import_takes_are_a_400_naming_the_limit(curator_client, monkeypatch):
    from catalog import imports

    monkeypatch.setattr(imports, "ROWS_MAX", 2)
    body = "catalog_number,name,type\n1,A,apple\n2,B,apple\n3,C,apple\n"
    response = curator_client.post(IMPORTS, body.encode(), content_type="text/csv")
    assert response.status_code == 400
    assert response.json()["errors"] == [
        {
            "row": 4,
            "field": "",
            "message": "More than 2 rows: split the file, or import it with "
            "`manage.py import_fruits`.",
        }
    ]


def test_a_fruit_deleted_between_check_and_store_is_that_rows_error(fruit_factory, monkeypatch):
    from catalog import imports

    fruit = fruit_factory(name="Topaz", catalog_number=9)
    report = imports.plan_import(b"catalog_number,name,type\n9,Topaz Rot,apple\n", dry_run=False)
    Fruit.objects.filter(pk=fruit.pk).delete()
    imports.apply_import(report)
    assert [error.as_dict() for error in report.errors] == [
        {
            "row": 2,
            "field": "catalog_number",
            "message": "The fruit numbered 9 was deleted meanwhile; check again.",
        }
    ]
    assert not Fruit.objects.exists()


def test_a_dry_run_and_the_import_are_two_requests_for_a_key(curator_client):
    body = b"catalog_number,name,type\n1,Topaz,apple\n"
    headers = {"content_type": "text/csv", "HTTP_IDEMPOTENCY_KEY": "import-2"}
    assert curator_client.post(f"{IMPORTS}?dry_run=1", body, **headers).status_code == 200
    again = curator_client.post(IMPORTS, body, **headers)
    assert again.status_code == 422  # the same key for another request
    assert not Fruit.objects.exists()


def test_a_header_of_more_columns_than_an_import_takes_is_a_400_naming_the_limit(curator_client):
    from catalog.imports import COLUMNS_MAX

    header = "catalog_number,name,type," + ",".join(f"char:c{n}" for n in range(65_536))
    response = post_csv(curator_client, f"{header}\n1,Topaz,apple\n")
    assert response.status_code == 400, response.content[:300]
    assert "Retry-After" not in response
    assert response.json()["errors"] == [
        {
            "row": 1,
            "field": "",
            "message": f"The header has 65,539 columns; an import takes at most {COLUMNS_MAX:,}.",
        }
    ]
    assert not Fruit.objects.exists()


def test_the_command_refuses_a_header_of_too_many_columns_as_an_error_of_the_file(tmp_path):
    path = tmp_path / "wide.csv"
    header = "catalog_number,name,type," + ",".join(f"char:c{n}" for n in range(70_000))
    path.write_text(f"{header}\n1,Topaz,apple\n")
    err = io.StringIO()
    with pytest.raises(CommandError, match="1 error: nothing written"):
        call_command("import_fruits", str(path), stderr=err)
    assert "row 1: The header has 70,003 columns; an import takes at most" in err.getvalue()
    assert not Fruit.objects.exists()


def test_no_query_of_an_import_takes_more_parameters_for_a_wider_header(db):
    from django.db import connection

    from catalog import imports

    def largest_query(columns: int) -> int:
        counts = []

        def count(execute, sql, params, many, context):
            counts.append(len(params or ()))
            return execute(sql, params, many, context)

        extra = ",".join(f"char:c{n}" for n in range(columns))
        with connection.execute_wrapper(count):
            report = imports.plan_import(
                f"catalog_number,name,type,{extra}\n1,Topaz,apple\n".encode(), dry_run=True
            )
        assert report.errors[0].field == "char:c0"  # no characteristic has the code
        return max(counts, default=0)

    assert largest_query(imports.COLUMNS_MAX - 3) == largest_query(1)


def test_the_command_lists_the_first_hundred_errors_and_counts_the_others(tmp_path):
    path = tmp_path / "fruits.csv"
    path.write_text(
        "catalog_number,name,type\n" + "".join(f"{n},,appel\n" for n in range(1, 76))
    )  # two errors a row: no name, no such type
    err = io.StringIO()
    with pytest.raises(CommandError, match="150 errors: nothing written"):
        call_command("import_fruits", str(path), stderr=err)
    lines = err.getvalue().splitlines()
    assert len(lines) == 101, lines[-3:]
    assert lines[0] == "row 2, name: A name is required."
    assert lines[99].startswith("row 51, type:")
    assert lines[100] == "… and 50 more errors."
    assert not Fruit.objects.exists()


def test_the_api_still_lists_every_error(curator_client):
    body = "catalog_number,name,type\n" + "".join(f"{n},,appel\n" for n in range(1, 76))
    response = post_csv(curator_client, body)
    assert response.status_code == 400
    assert len(response.json()["errors"]) == 150


def test_the_commands_memory_does_not_grow_with_the_rows_of_a_file_with_errors(tmp_path):
    import tracemalloc

    def peak(rows: int) -> int:
        path = tmp_path / f"{rows}.csv"
        path.write_text(
            "catalog_number,name,type\n" + "".join(f"{n},Sorte {n},appel\n" for n in range(rows))
        )
        tracemalloc.start()
        try:
            with pytest.raises(CommandError):
                call_command("import_fruits", str(path), stderr=io.StringIO())
            return tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()

    few, many = peak(2_000), peak(20_000)
    # The file's bytes and text, and a catalog number a row for duplicates; no row, no error.
    assert (many - few) / 18_000 < 400, (few, many)


def new_fruits_file(tmp_path, count: int):
    path = tmp_path / "fruits.csv"
    lines = ["catalog_number,name,type,synonyms"]
    lines += [f"{n},Sorte {n},apple,Synonym {n} a; Synonym {n} b" for n in range(1, count + 1)]
    path.write_text("\n".join(lines) + "\n")
    return path


def test_importing_new_fruits_deletes_nothing_and_costs_statements_by_the_batch_not_the_row(
    tmp_path, django_assert_max_num_queries
):
    path = new_fruits_file(tmp_path, 60)
    with CaptureQueriesContext(connection) as queries, django_assert_max_num_queries(16):
        call_command("import_fruits", str(path), stdout=io.StringIO())
    deletes = [q["sql"] for q in queries.captured_queries if q["sql"].upper().startswith("DELETE")]
    assert deletes == []  # a fruit just created has no names, relations or spellings to remove
    assert Fruit.objects.count() == 60
    assert FruitName.objects.count() == 120


def test_an_imported_new_fruit_is_stored_as_a_created_one_search_included():
    from catalog import imports

    names = [
        {"name": "Boskoop", "kind": "synonym", "language": "", "note": ""},
        {"name": "Belle de Boskoop", "kind": "synonym", "language": "", "note": ""},
    ]

    def stored(fruit) -> tuple:
        fruit = Fruit.objects.get(pk=fruit.pk)
        spellings = FruitSpelling.objects.filter(fruit=fruit).values_list(
            "spelling", "is_own_name", "catalog_number"
        )
        return (fruit.name, fruit.type, fruit.search_text, fruit.name_list, sorted(spellings))

    created = fruit_create(catalog_number=7, name="Schöner aus Boskoop", type="apple", names=names)
    expected = stored(created)
    fruit_delete(fruit=created)
    report = imports.import_fruits(
        "catalog_number,name,type,synonyms\n"
        "7,Schöner aus Boskoop,apple,Boskoop; Belle de Boskoop\n".encode(),
        dry_run=False,
    )
    assert report.ok and report.count("new") == 1
    assert stored(Fruit.objects.get(catalog_number=7)) == expected
    assert Fruit.objects.search("belle de boskoop").get().catalog_number == 7


def test_a_catalog_number_taken_between_check_and_store_is_that_rows_error(tmp_path):
    from catalog import imports

    report = imports.plan_import(
        b"catalog_number,name,type\n1,Topaz,apple\n2,Elstar,apple\n3,Santana,apple\n",
        dry_run=False,
    )
    fruit_create(catalog_number=2, name="Rubinola", type="apple")  # another write, meanwhile
    imports.apply_import(report)
    assert [error.as_dict() for error in report.errors] == [
        {
            "row": 3,
            "field": "catalog_number",
            "message": "fruit with this catalog number already exists.",
        }
    ]
    assert list(Fruit.objects.values_list("name", flat=True)) == ["Rubinola"]  # nothing else


def test_importing_changed_fruits_writes_their_fields_and_names_by_the_batch(tmp_path):
    call_command("import_fruits", str(new_fruits_file(tmp_path, 60)), stdout=io.StringIO())
    path = tmp_path / "renamed.csv"
    lines = ["catalog_number,name,type,synonyms"]
    lines += [f"{n},Sorte {n} neu,apple,Synonym {n} a; Synonym {n} c" for n in range(1, 61)]
    path.write_text("\n".join(lines) + "\n")
    with CaptureQueriesContext(connection) as queries:
        call_command("import_fruits", str(path), stdout=io.StringIO())
    statements = [q["sql"].upper() for q in queries.captured_queries]
    # An UPDATE a fruit; its old names and spellings deleted, and the relations that may name
    # it looked for, once for them all.
    assert sum(sql.startswith("UPDATE") for sql in statements) == 60, statements
    others = [sql for sql in statements if not sql.startswith("UPDATE")]
    assert sum(sql.startswith("DELETE") for sql in others) <= 3, others
    assert len(others) <= 25, others
    fruit = Fruit.objects.get(catalog_number=60)
    assert fruit.name == "Sorte 60 neu"
    assert [name["name"] for name in fruit.name_list] == ["Synonym 60 a", "Synonym 60 c"]
    assert Fruit.objects.search("synonym 60 c").get() == fruit
