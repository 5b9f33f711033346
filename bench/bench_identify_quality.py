"""How well the identification's scoring names a described apple: on the demo apples and on a
synthetic orchard described by the real standard characteristics.

Run with ``python bench/bench_identify_quality.py`` (part of ``make bench``). No database: the
pure scoring (``identification/scoring.py``) ranks

- the 11 demo apples with their real descriptions (``identification/demo_values.py``);
- 300 and 1,000 synthetic apples described by the 26 standard apple characteristics, read from
  their data migration (``identification/migrations/0002_standard_characteristics.py``: codes,
  scales, reliabilities, states, question order). Each code's state frequencies follow real
  apples (``FREQUENCIES``): most are medium-sized, flat-globose to globose-conical and flushed
  red over much of the skin, with little russet, the hard case. Three values in ten are a range
  of two states (medium to large), one in ten is missing.

It prints, for 1,000 descriptions each: the described fruit in the first one, three and five
places when ten answers hold one wrong answer, and when two are wrong and a fifth of the
ordinal answers slip one step (each with a bound: the places a scorer gives that is told exactly
how the answers were spoilt); and the median number of answers until the fruit is among the
first three when each question is the first of ``next_questions`` (over the ten listed
candidates; before any answer, position order: as the endpoint does), against asking in
``position`` order.
"""

from __future__ import annotations

import importlib
import math
import random
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from identification.demo_values import DEMO_VALUES  # noqa: E402
from identification.scoring import Characteristic, next_questions, rank  # noqa: E402

MIGRATION = importlib.import_module("identification.migrations.0002_standard_characteristics")
# code, name, fruit types, scale, reliability, position, reference, states ((value, label), ...)
STANDARD = sorted(
    (entry for entry in MIGRATION.CHARACTERISTICS if "apple" in entry[2]),
    key=lambda entry: entry[5],
)
CHARS = {
    code: Characteristic(code, tuple(value for value, _ in states), scale == "ordinal", rel)
    for code, _name, _types, scale, rel, _position, _ref, states in STANDARD
}

# How often real apples show each state (weights in the order of the states' values): a
# pomologist's reading of a large collection, not a census. Most are medium, (flat-)globose,
# red-flushed over a medium to large area, with russet in the stalk cavity only.
FREQUENCIES = {
    "fruit_size": (0.03, 0.17, 0.45, 0.28, 0.07),
    "shape": (0.06, 0.24, 0.30, 0.20, 0.09, 0.03, 0.03, 0.02, 0.03),
    "ratio_height_diameter": (0.05, 0.30, 0.45, 0.17, 0.03),
    "ribbing": (0.55, 0.33, 0.12),
    "ground_colour": (0.12, 0.30, 0.33, 0.20, 0.05),
    "over_colour_area": (0.12, 0.16, 0.30, 0.28, 0.14),
    "over_colour_hue": (0.30, 0.06, 0.45, 0.07, 0.12),
    "over_colour_pattern": (0.30, 0.20, 0.32, 0.18),
    "russet_amount": (0.55, 0.25, 0.10, 0.06, 0.04),
    "russet_stalk_cavity": (0.35, 0.45, 0.20),
    "russet_cheeks": (0.75, 0.17, 0.08),
    "russet_eye_basin": (0.65, 0.25, 0.10),
    "bloom": (0.60, 0.30, 0.10),
    "lenticels_number": (0.30, 0.50, 0.20),
    "stalk_length": (0.05, 0.30, 0.40, 0.20, 0.05),
    "stalk_thickness": (0.25, 0.55, 0.20),
    "stalk_cavity_depth": (0.15, 0.50, 0.35),
    "eye": (0.30, 0.40, 0.30),
    "eye_basin_depth": (0.25, 0.50, 0.25),
    "flesh_colour": (0.20, 0.50, 0.20, 0.07, 0.02, 0.01),
    "flesh_firmness": (0.03, 0.20, 0.40, 0.30, 0.07),
    "juiciness": (0.20, 0.45, 0.35),
    "locules_aperture": (0.45, 0.40, 0.15),
    "harvest_time": (0.03, 0.04, 0.10, 0.12, 0.20, 0.18, 0.18, 0.10, 0.05),
    "flowering_time": (0.04, 0.06, 0.14, 0.18, 0.26, 0.16, 0.10, 0.04, 0.02),
    "use": (0.45, 0.15, 0.15, 0.25),
}
# A change to the standard characteristics must be reflected here.
assert {code: len(weights) for code, weights in FREQUENCIES.items()} == {
    code: len(char.states) for code, char in CHARS.items()
}, "FREQUENCIES does not match the standard apple characteristics"

RANGES, MISSING = 0.3, 0.1  # of the values: two states (medium to large); not described
RUNS, ADAPTIVE_RUNS, LISTED = 1000, 200, 10


def orchard(
    count: int,
    rng: random.Random,
    chars: dict[str, Characteristic] = CHARS,
    frequencies: dict[str, tuple[float, ...]] = FREQUENCIES,
    *,
    ranges: float = RANGES,
    missing: float = MISSING,
) -> dict[int, dict[str, frozenset[int]]]:
    """`count` fruits (1, 2, ...), each with its values by code: one state drawn by frequency,
    a range with a neighbour (or, on a nominal scale, another state by frequency) as often as
    `ranges` says, no value as often as `missing` says."""
    fruits = {}
    for fruit in range(1, count + 1):
        values = {}
        for code, char in chars.items():
            if rng.random() < missing:
                continue
            weights = frequencies[code]
            state = rng.choices(char.states, weights)[0]
            chosen = {state}
            if rng.random() < ranges:
                near = sorted(char.neighbours(state))
                if near:
                    chosen.add(rng.choice(near))
                else:
                    others = [
                        (s, w) for s, w in zip(char.states, weights, strict=True) if s != state
                    ]
                    chosen.add(rng.choices([s for s, _ in others], [w for _, w in others])[0])
            values[code] = frozenset(chosen)
        fruits[fruit] = values
    return fruits


def demo_apples() -> dict[str, dict[str, frozenset[int]]]:
    """The demo varieties described by apple characteristics only (the pears are left out)."""
    return {
        name: {code: frozenset(values) for code, values in described.items()}
        for name, described in DEMO_VALUES.items()
        if set(described) <= set(CHARS)
    }


def describe(fruit: dict, rng: random.Random, *, wrong: int, slips: float) -> dict:
    """Ten answers (fewer when fewer are described): each one of the fruit's states; `wrong` of
    them a state the fruit does not show; then each ordinal one a step off as often as `slips`."""
    codes = rng.sample(sorted(fruit), min(10, len(fruit)))
    answers = {code: {rng.choice(sorted(fruit[code]))} for code in codes}
    wrongable = [code for code in codes if set(CHARS[code].states) - fruit[code]]
    for code in rng.sample(wrongable, min(wrong, len(wrongable))):
        others = [s for s in CHARS[code].states if s not in fruit[code]]
        answers[code] = {rng.choice(others)}
    for code in codes:
        char = CHARS[code]
        if char.ordinal and rng.random() < slips:
            (value,) = answers[code]
            answers[code] = {rng.choice(sorted(char.neighbours(value)))}
    return answers


def place(fruits, answers, described) -> int:
    ranked = [fruit for fruit, _ in rank(CHARS, answers, fruits)]
    return ranked.index(described) + 1


def informed_place(fruits, answers, described, *, wrong: float, slips: float) -> int:
    """The place a scorer gives the fruit that knows exactly how `describe` spoils answers: a
    wrong answer (`wrong` of them) is any state the fruit lacks, then an ordinal answer slips to
    a neighbour as often as `slips` says. What no rates of the model can beat, near enough."""

    def seen(char, answer, shown):
        def kept(state):  # how likely `answer` is when the person meant `state`
            if not char.ordinal or not slips:
                return float(answer == state)
            near = char.neighbours(state)
            return 1 - slips if answer == state else slips / len(near) if answer in near else 0.0

        if not shown:
            return 1 / len(char.states)
        others = [state for state in char.states if state not in shown]
        right = (1 - wrong) * statistics.fmean(kept(state) for state in shown)
        far = wrong * statistics.fmean(kept(state) for state in others) if others else 0.0
        return right + far

    known: dict[tuple, float] = {}
    scored = []
    for order, (fruit, values) in enumerate(fruits.items()):
        total = 0.0
        for code, answer in answers.items():
            (value,) = answer
            key = (code, value, values.get(code))
            if key not in known:
                known[key] = math.log(max(seen(CHARS[code], value, values.get(code)), 1e-12))
            total += known[key]
        scored.append((-total, order, fruit))
    scored.sort()
    return [fruit for _, _, fruit in scored].index(described) + 1


def accuracy(fruits, rng, *, wrong: int, slips: float, runs: int = RUNS):
    """The shares of `runs` descriptions whose fruit the scoring places first, in the first
    three and five; and the same for the informed scorer (the bound), on the same descriptions."""
    places, bound = [], []
    for _ in range(runs):
        described = rng.choice(list(fruits))
        answers = describe(fruits[described], rng, wrong=wrong, slips=slips)
        places.append(place(fruits, answers, described))
        bound.append(informed_place(fruits, answers, described, wrong=wrong / 10, slips=slips))
    return tuple(
        tuple(sum(p <= k for p in found) / runs for k in (1, 3, 5)) for found in (places, bound)
    )


def answers_needed(fruits, rng, *, adaptive: bool, runs: int = ADAPTIVE_RUNS) -> list[int]:
    """For each of `runs` described fruits, the number of questions answered until it is among
    the first three (a question about something the fruit has no value for is "can't tell").
    The answers are right (one of the fruit's states)."""
    counts = []
    for _ in range(runs):
        described = rng.choice(list(fruits))
        truth = fruits[described]
        answers: dict[str, set[int]] = {}
        asked: set[str] = set()
        count = len(CHARS)
        for step in range(1, len(CHARS) + 1):
            code = None
            if adaptive and answers:  # with no answer the endpoint proposes position order
                ranked = rank(CHARS, answers, fruits)[:LISTED]
                proposed = next_questions(CHARS, asked, dict(ranked), fruits, limit=1)
                code = proposed[0][0] if proposed else None
            code = code or next(c for c in CHARS if c not in asked)  # position order
            asked.add(code)
            if code in truth:
                answers[code] = {rng.choice(sorted(truth[code]))}
            if answers and place(fruits, answers, described) <= 3:
                count = step
                break
        counts.append(count)
    return counts


def report(title: str, fruits: dict, rng: random.Random) -> None:
    one = accuracy(fruits, rng, wrong=1, slips=0.0)
    two = accuracy(fruits, rng, wrong=2, slips=0.2)
    adaptive = answers_needed(fruits, rng, adaptive=True)
    ordered = answers_needed(fruits, rng, adaptive=False)
    values = [len(v) for fruit in fruits.values() for v in fruit.values()]
    described = len(values) / len(fruits)
    print(f"## Identification quality ({title})\n")
    print(
        f"{described:.1f} of {len(CHARS)} characteristics described per fruit, "
        f"{statistics.fmean(values):.2f} states per value.\n"
    )
    print("| descriptions of ten answers | first | first three | first five | target |")
    print("|---|---:|---:|---:|---|")
    for label, (found, bound), target in [
        ("one wrong", one, "first three ≥ 95 %, first ≥ 75 %"),
        ("two wrong, a fifth of the ordinal ones a step off", two, "first five ≥ 85 %"),
    ]:
        print(f"| {label} | {' | '.join(f'{share:.0%}' for share in found)} | {target} |")
        print(
            "| the same, scored knowing how the answers were spoilt (a bound) "
            f"| {' | '.join(f'{share:.0%}' for share in bound)} | |"
        )
    print(
        f"\nAnswers until the fruit is among the first three (median of {ADAPTIVE_RUNS}, mean "
        f"in brackets): {statistics.median(adaptive):g} ({statistics.fmean(adaptive):.1f}) "
        f"asking the best next question, {statistics.median(ordered):g} "
        f"({statistics.fmean(ordered):.1f}) asking in `position` order (target ≤ 6, and "
        "fewer).\n"
    )


def main() -> None:
    report(
        f"the {len(demo_apples())} demo apples, their real descriptions",
        demo_apples(),
        random.Random(1905),
    )
    for size in (300, 1000):  # the Pometum's apple key holds 319; a large collection
        rng = random.Random(1905)
        fruits = orchard(size, rng)
        report(f"{size:,} synthetic apples, the {len(CHARS)} standard characteristics", fruits, rng)


if __name__ == "__main__":
    main()
