"""Search quality measured on real variety names and the misspellings visitors type.

`catalog/tests/data/varieties.json` holds real varieties with their real other names;
`search_queries.json` queries as visitors type them, each with the variety it means (or none).
`test_search_quality.py` asserts the floors on both engines (`Quality.table()` in its failure
message); `bench/bench_search_quality.py` prints the table docs/site.md shows.
"""

import json
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

DATA = Path(__file__).resolve().parent / "data"
TOP = 3  # "found" means: among the first three results


@dataclass
class Quality:
    """Per kind of query: how many there were and how many were answered well."""

    asked: dict = field(default_factory=lambda: defaultdict(int))
    good: dict = field(default_factory=lambda: defaultdict(int))
    misses: list = field(default_factory=list)

    def rate(self, *kinds: str) -> float:
        asked = sum(self.asked[kind] for kind in kinds)
        return sum(self.good[kind] for kind in kinds) / asked if asked else 1.0

    def table(self) -> str:
        lines = ["| queries | asked | answered well |", "|---|---:|---:|"]
        for kind in sorted(self.asked):
            lines.append(f"| {kind} | {self.asked[kind]} | {self.rate(kind):.0%} |")
        return "\n".join(lines)


def varieties() -> list[dict]:
    return json.loads((DATA / "varieties.json").read_text())


def queries() -> list[dict]:
    return json.loads((DATA / "search_queries.json").read_text())


def load_varieties() -> None:
    """Store the varieties through the service, as the API would."""
    from catalog.services import fruit_create
    from catalog.validators import clean_names

    for variety in varieties():
        records = [{"language": "", "note": "", **record} for record in variety["names"]]
        fruit_create(
            name=variety["name"],
            type=variety["type"],
            names=clean_names(records, fruit_name=variety["name"]),
        )


def measure(client) -> Quality:
    """Ask every query through the API's fruit list and score the answers.

    - `exact`: the variety is the first result;
    - `nonsense`: nothing found, nothing suggested;
    - every other kind: the variety among the first three results, or, when nothing was found,
      among the suggestions ("did you mean" helps).
    """
    quality = Quality()
    for query in queries():
        body = client.get("/api/v1/fruits", {"search": query["query"], "page_size": TOP}).json()
        found = [fruit["name"] for fruit in body["results"]]
        suggested = {suggestion["fruit_id"] for suggestion in body["suggestions"]}
        kind, expected = query["kind"], query["expect"]
        if kind == "nonsense":
            good = not found and not suggested
        elif kind == "exact":
            good = found[:1] == [expected]
        else:
            good = expected in found or (
                not found and any(_name_of(pk) == expected for pk in suggested)
            )
        quality.asked[kind] += 1
        quality.good[kind] += good
        if not good:
            quality.misses.append((kind, query["query"], expected, found, sorted(suggested)))
    return quality


def _name_of(pk: int) -> str:
    from catalog.models import Fruit

    return Fruit.objects.values_list("name", flat=True).get(pk=pk)
