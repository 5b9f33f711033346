"""Optional work under a time budget: PostgreSQL cancels it, the request carries on."""

import pytest
from django.db import connection

from core.db.budgets import OutOfTime, time_budget

pytestmark = pytest.mark.django_db


def statement_timeout() -> str:
    with connection.cursor() as cursor:
        cursor.execute("SHOW statement_timeout")
        return cursor.fetchone()[0]


@pytest.mark.postgres_only
def test_a_statement_over_budget_is_cancelled_and_the_connection_stays_usable():
    if connection.vendor != "postgresql":
        pytest.skip("SQLite statements have no time budget")
    before = statement_timeout()
    with pytest.raises(OutOfTime), time_budget(50), connection.cursor() as cursor:
        cursor.execute("SELECT pg_sleep(2)")
    assert statement_timeout() == before  # the budget was the transaction's only
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")
        assert cursor.fetchone() == (1,)


def test_a_statement_within_budget_runs_as_usual():
    with time_budget(5_000), connection.cursor() as cursor:
        cursor.execute("SELECT 1")
        assert cursor.fetchone() == (1,)


@pytest.mark.postgres_only
def test_within_an_outer_transaction_the_budget_ends_with_its_block():
    if connection.vendor != "postgresql":
        pytest.skip("SQLite statements have no time budget")
    from django.db import transaction

    with transaction.atomic():
        before = statement_timeout()
        with time_budget(50), connection.cursor() as cursor:
            cursor.execute("SELECT 1")
        assert statement_timeout() == before
        with pytest.raises(OutOfTime), time_budget(50), connection.cursor() as cursor:
            cursor.execute("SELECT pg_sleep(2)")
        assert statement_timeout() == before
