"""Fixtures of the change feed's tests: the feed read as a mirror reads it."""

import pytest
from django.db import connection
from rest_framework.test import APIClient

FEED = "/api/v1/changes"


class Feed:
    """The feed through HTTP, anonymously.

    A test's transaction never commits, so what its commit would first write, the entries of
    the changes made so far, is written before each read (`run_before_commit`).
    """

    def __init__(self):
        self.client = APIClient()

    @staticmethod
    def commit():
        """Write the entries of the changes made so far, as their commit would: a test's
        requests share its one transaction, where each would commit on its own."""
        connection.run_before_commit()

    def get(self, **params):
        """One answer of the feed."""
        self.commit()
        return self.client.get(FEED, params)

    def mark(self) -> str:
        """The cursor after every entry so far: what a test's changes are listed after."""
        return self.get(latest="true").json()["next"]

    def entries(self, after: str | None = None) -> list[tuple[str, int, str]]:
        """Every entry after `after`, following `next` until `results` is empty, as
        (kind, id, action)."""
        found = []
        while True:
            response = self.get(**({} if after is None else {"after": after}))
            assert response.status_code == 200, response.content
            body = response.json()
            if not body["results"]:
                return found
            found += [(entry["kind"], entry["id"], entry["action"]) for entry in body["results"]]
            after = body["next"]


@pytest.fixture
def feed(db):
    return Feed()
