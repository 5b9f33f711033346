"""Thumbnail backfill: the command and the staff endpoint share one implementation."""

import os
import subprocess
import sys
from io import StringIO

import pytest
from django.conf import settings
from django.core.management import CommandError, call_command
from django.db import connection
from django.test.utils import CaptureQueriesContext

from catalog.models import FruitImage
from core.testing.media import make_image_bytes, make_object_png

pytestmark = pytest.mark.django_db


def store_without_thumbnails(fruit, count, data=None):
    """Images inserted the way bulk loads do it: no save hook, so no metadata or thumbnail."""
    return FruitImage.objects.bulk_create(
        FruitImage(fruit=fruit, data=data or make_object_png()) for _ in range(count)
    )


def run_command(*args):
    out, err = StringIO(), StringIO()
    call_command("backfill_thumbnails", *args, stdout=out, stderr=err)
    return out.getvalue(), err.getvalue()


def test_command_generates_missing_thumbnails_and_metadata(fruit_factory):
    fruit = fruit_factory()
    store_without_thumbnails(fruit, 5)
    out, _ = run_command("--batch-size", "2")
    assert "fruit_images: 5 generated, 0 failed" in out
    for image in FruitImage.objects.all():
        assert image.has_thumbnail and image.thumbnail_data
        assert (image.content_type, image.width, image.height) == ("image/png", 120, 100)
        assert image.sha256 and image.size
        assert (image.thumbnail_width, image.thumbnail_height) == (40, 40)


def test_the_backfill_of_rows_with_metadata_stores_the_thumbnail_size(fruit_factory, add_image):
    image = add_image(fruit_factory(), make_image_bytes("PNG", size=(600, 150)))
    FruitImage.objects.filter(pk=image.pk).update(
        thumbnail_data=None, thumbnail_sha256="", thumbnail_width=0, thumbnail_height=0
    )
    run_command()
    image.refresh_from_db()
    assert (image.thumbnail_width, image.thumbnail_height) == (300, 75)


def test_second_run_finds_nothing_to_do(fruit_factory):
    store_without_thumbnails(fruit_factory(), 2)
    run_command()
    out, _ = run_command()
    assert "nothing to do" in out


def test_dry_run_only_counts(fruit_factory):
    store_without_thumbnails(fruit_factory(), 3)
    out, _ = run_command("--dry-run")
    assert "fruit_images: 3 without a thumbnail" in out
    assert FruitImage.objects.missing_thumbnail().count() == 3


def test_limit_caps_the_work(fruit_factory):
    store_without_thumbnails(fruit_factory(), 5)
    out, _ = run_command("--limit", "2", "--batch-size", "10")
    assert "fruit_images: 2 generated" in out
    assert FruitImage.objects.missing_thumbnail().count() == 3


def test_undecodable_images_are_reported_left_untouched_and_fail_the_command(fruit_factory):
    fruit = fruit_factory()
    store_without_thumbnails(fruit, 2)
    (broken,) = store_without_thumbnails(fruit, 1, data=make_object_png()[:100])
    with pytest.raises(CommandError, match="1 images could not be decoded"):
        run_command()
    broken.refresh_from_db()
    assert bytes(broken.data) == make_object_png()[:100]
    assert not broken.has_thumbnail
    assert FruitImage.objects.missing_thumbnail().count() == 1


@pytest.mark.parametrize("value", ["0", "-1", "x"])
def test_bad_options_are_rejected(value):
    with pytest.raises(CommandError):
        run_command("--batch-size", value)


def test_backfill_walks_ids_in_batches_without_giant_in_lists(fruit_factory):
    store_without_thumbnails(fruit_factory(), 7)
    with CaptureQueriesContext(connection) as captured:
        run_command("--batch-size", "3")
    assert not any(" IN (" in query["sql"] for query in captured.captured_queries)


def test_endpoint_is_staff_only(anon_client, curator_client, staff_client, fruit_factory):
    store_without_thumbnails(fruit_factory(), 1)
    assert anon_client.post("/api/v1/admin/backfill-thumbnails").status_code == 401
    assert curator_client.post("/api/v1/admin/backfill-thumbnails").status_code == 403
    response = staff_client.post("/api/v1/admin/backfill-thumbnails")
    assert response.status_code == 200
    assert response.json()["fruit_images"] == {"generated": 1, "failed": 0, "failed_ids": []}
    assert staff_client.get("/api/v1/admin/backfill-thumbnails").status_code == 405


def test_endpoint_reports_failed_ids(staff_client, fruit_factory):
    (broken,) = store_without_thumbnails(fruit_factory(), 1, data=b"garbage")
    body = staff_client.post("/api/v1/admin/backfill-thumbnails/").json()
    assert body["fruit_images"] == {"generated": 0, "failed": 1, "failed_ids": [broken.pk]}


def test_backfill_of_a_cmyk_jpeg(fruit_factory):
    store_without_thumbnails(
        fruit_factory(), 1, data=make_image_bytes("JPEG", mode="CMYK", color=(0, 200, 200, 0))
    )
    out, _ = run_command()
    assert "1 generated" in out


def database_url_of_test_db() -> str:
    config = connection.settings_dict
    host = config.get("HOST") or ""
    port = config.get("PORT") or ""
    user = config.get("USER") or ""
    if host:
        return f"postgres://{user}@{host}:{port or 5432}/{config['NAME']}"
    return f"postgres:///{config['NAME']}"


@pytest.mark.postgres_only
@pytest.mark.django_db(transaction=True)
def test_two_concurrent_runs_never_process_the_same_image(fruit_factory):
    if connection.vendor != "postgresql":
        pytest.skip("SKIP LOCKED needs PostgreSQL")
    fruit = fruit_factory()
    count = 40
    store_without_thumbnails(fruit, count, data=make_image_bytes("JPEG", size=(1600, 1200)))
    env = {**os.environ, "DATABASE_URL": database_url_of_test_db(), "DJANGO_SECRET_KEY": "x"}
    command = [sys.executable, "manage.py", "backfill_thumbnails", "--batch-size", "2"]
    runs = [
        subprocess.Popen(command, cwd=settings.BASE_DIR, env=env, stdout=subprocess.PIPE, text=True)
        for _ in range(2)
    ]
    outputs = [run.communicate(timeout=120)[0] for run in runs]
    assert all(run.returncode == 0 for run in runs), outputs
    generated = []
    for output in outputs:
        lines = [line for line in output.splitlines() if line.startswith("fruit_images:")]
        generated.append(int(lines[0].split()[1]) if lines else 0)  # none: the other run did all
    assert sum(generated) == count, outputs
    assert FruitImage.objects.missing_thumbnail().count() == 0


def test_endpoint_options_is_public(anon_client):
    assert anon_client.options("/api/v1/admin/backfill-thumbnails").status_code == 200


def test_endpoint_reports_what_remains_and_nothing_once_done(staff_client, fruit_factory):
    store_without_thumbnails(fruit_factory(), 2)
    body = staff_client.post("/api/v1/admin/backfill-thumbnails").json()
    assert body["remaining"] == 0
    assert body["fruit_images"]["generated"] == 2


def test_endpoint_stops_at_its_time_budget_and_a_client_calls_again_until_done(
    staff_client, fruit_factory, settings, monkeypatch
):
    settings.FRUITCATALOG_BACKFILL_SECONDS = 5
    store_without_thumbnails(fruit_factory(), 5)
    (broken,) = store_without_thumbnails(fruit_factory(), 1, data=b"garbage")
    clock = iter(range(0, 10_000, 2))  # every look at the clock: 2 s later
    monkeypatch.setattr("blobs.backfill.monotonic", lambda: next(clock))

    calls = []
    while not calls or calls[-1]["remaining"]:
        calls.append(staff_client.post("/api/v1/admin/backfill-thumbnails").json())
        assert len(calls) < 10

    assert len(calls) > 1  # the budget cut the first call short
    assert sum(c["fruit_images"]["generated"] for c in calls) == 5
    assert calls[0]["remaining"] > 0
    assert calls[-1]["fruit_images"]["failed_ids"] == [broken.pk]
    assert FruitImage.objects.missing_thumbnail().count() == 1  # the undecodable one, untouched


def test_the_command_runs_to_the_end_whatever_the_endpoint_budget(fruit_factory, settings):
    settings.FRUITCATALOG_BACKFILL_SECONDS = 0
    store_without_thumbnails(fruit_factory(), 3)
    out, _ = run_command()
    assert "3 thumbnails generated" in out
