"""The work a transaction collects runs once, just before it commits, inside it
(`core.db.commits`): dropped with a savepoint or a transaction that rolls back, and a failure
of it rolls the whole transaction back."""

import pytest
from django.contrib.auth.models import Group
from django.db import connection, transaction

from core.db.commits import before_commit
from core.rest.curators import CURATORS_GROUP

pytestmark = pytest.mark.django_db(transaction=True)


def groups() -> set[str]:
    """The groups these tests wrote (the migrations' Curators group may be there too)."""
    return set(Group.objects.exclude(name=CURATORS_GROUP).values_list("name", flat=True))


class Recorder:
    """A function to collect items for: each call's items, and whether the call ran inside
    the transaction (it writes a group named after the items, which commits with it)."""

    def __init__(self, fail: bool = False):
        self.calls = []
        self.fail = fail

    def __call__(self, items):
        self.calls.append((list(items), connection.in_atomic_block, connection.get_autocommit()))
        Group.objects.create(name="written " + ",".join(map(str, items)))
        if self.fail:
            raise RuntimeError("the recording failed")


def test_the_collected_items_are_handed_over_once_just_before_the_commit():
    record = Recorder()
    with transaction.atomic():
        Group.objects.create(name="a change")
        before_commit(record, 1)
        with transaction.atomic():
            before_commit(record, 2)
        assert record.calls == []  # nothing runs before the commit
        before_commit(record, 3)

    # Called once, with every item in order, at the end of the transaction, before its commit.
    assert record.calls == [([1, 2, 3], False, False)]
    assert groups() == {"a change", "written 1,2,3"}


def test_items_of_a_savepoint_that_rolls_back_are_dropped_with_it():
    record = Recorder()
    with transaction.atomic():
        before_commit(record, "kept")
        try:
            with transaction.atomic():
                before_commit(record, "undone")
                with transaction.atomic():
                    before_commit(record, "undone too")
                raise ValueError
        except ValueError:
            pass
        with transaction.atomic():
            before_commit(record, "kept too")

    assert [items for items, _, _ in record.calls] == [["kept", "kept too"]]


def test_a_transaction_that_rolls_back_runs_nothing_and_leaves_nothing_for_the_next():
    record = Recorder()
    with pytest.raises(ValueError), transaction.atomic():
        before_commit(record, "undone")
        raise ValueError
    with transaction.atomic():
        before_commit(record, "next")

    assert [items for items, _, _ in record.calls] == [["next"]]


def test_a_failure_of_the_collected_work_rolls_the_whole_transaction_back():
    record = Recorder(fail=True)
    with pytest.raises(RuntimeError, match="the recording failed"), transaction.atomic():
        Group.objects.create(name="a change")
        before_commit(record, 1)

    assert groups() == set()
    # The connection is usable again, in autocommit, with nothing left collected.
    assert connection.get_autocommit() and not connection.in_atomic_block
    with transaction.atomic():
        Group.objects.create(name="another change")
    assert groups() == {"another change"}
    assert len(record.calls) == 1


def test_outside_a_transaction_an_item_is_a_transaction_of_its_own():
    record = Recorder()
    before_commit(record, "alone")

    assert record.calls == [(["alone"], False, False)]
    assert groups() == {"written alone"}
