"""`manage.py prune_changes`: entries older than the retention go, the boundary is remembered,
and a cursor from before it is a 410 (the client starts again from a full export)."""

import io
from datetime import timedelta

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.utils import timezone

from changes.feed import encode_cursor
from changes.models import Change, PrunedThrough

pytestmark = pytest.mark.django_db


@pytest.fixture
def aged(feed):
    """Six entries: four committed 400 days ago, two yesterday; their seqs, oldest first."""
    Change.objects.bulk_create(
        Change(kind="fruit", object_id=n, action="changed") for n in range(1, 7)
    )
    seqs = list(Change.objects.order_by("seq").values_list("seq", flat=True))
    now = timezone.now()
    Change.objects.filter(seq__in=seqs[:4]).update(at=now - timedelta(days=400))
    Change.objects.filter(seq__in=seqs[4:]).update(at=now - timedelta(days=1))
    feed.commit()
    return seqs


def prune(*args) -> str:
    out = io.StringIO()
    call_command("prune_changes", *args, stdout=out)
    return out.getvalue()


def test_a_dry_run_counts_and_deletes_nothing(aged):
    output = prune("--dry-run")

    assert f"4 entries older than 365 days would be deleted, through seq {aged[3]}" in output
    assert Change.objects.count() == 6
    assert not PrunedThrough.objects.exists()


def test_pruning_deletes_the_old_entries_and_old_cursors_become_410(feed, aged):
    before = feed.get(after=encode_cursor(aged[1]))
    assert before.status_code == 200

    output = prune("--batch-size", "3")

    assert f"4 entries older than 365 days deleted; cursors before seq {aged[3]} now" in output
    assert list(Change.objects.values_list("seq", flat=True)) == aged[4:]
    for seq in (0, aged[0], aged[2]):
        response = feed.get(after=encode_cursor(seq))
        assert response.status_code == 410, seq
        assert "start again from a full export" in response.json()["detail"]
    # A client that had seen the last pruned entry has missed nothing.
    at_boundary = feed.get(after=encode_cursor(aged[3])).json()
    assert [entry["seq"] for entry in at_boundary["results"]] == aged[4:]
    # Without a cursor the feed starts at the oldest entry kept.
    assert [entry["seq"] for entry in feed.get().json()["results"]] == aged[4:]


def test_pruning_again_has_nothing_to_do_and_keeps_the_boundary(aged):
    prune()
    boundary = PrunedThrough.objects.get()

    assert "nothing to do" in prune()
    assert PrunedThrough.objects.get() == boundary and boundary.seq == aged[3]


def test_the_retention_is_a_setting(aged, settings):
    settings.FRUITCATALOG_CHANGES_RETENTION_DAYS = 0

    assert "6 entries older than 0 days deleted" in prune()
    assert not Change.objects.exists()


def test_with_every_entry_pruned_the_last_cursor_waits_and_a_later_one_is_gone(
    feed, aged, settings
):
    settings.FRUITCATALOG_CHANGES_RETENTION_DAYS = 0
    prune()

    last = feed.get(after=encode_cursor(aged[5]))
    assert last.json() == {"results": [], "next": encode_cursor(aged[5])}
    assert feed.get().json() == {"results": [], "next": encode_cursor(aged[5])}
    assert feed.get(after=encode_cursor(aged[5] + 1)).status_code == 410


def test_a_negative_retention_is_refused(settings):
    settings.FRUITCATALOG_CHANGES_RETENTION_DAYS = -1

    with pytest.raises(CommandError, match="0 or more"):
        prune()
