"""How well the identification's scoring names a described fruit, on a synthetic orchard.

Run with ``python bench/bench_identify_quality.py`` (part of ``make bench``). No database: the
pure scoring (``identification/scoring.py``) ranks synthetic apples described by 24 coded
characteristics shaped like UPOV TG/14's (ordinal 1-9 scales in five steps, a few nominal
ones, reliabilities as pomologists rate them). State frequencies follow real apples: most are
medium, round and red-flushed, the hard case. One fruit in ten has two values for a
characteristic, one value in ten is missing.

It prints, for 1,000 descriptions each: the described fruit in the first one, three and five
places when ten answers hold one wrong answer, and when two are wrong and a fifth of the
ordinal answers slip one step; and the median number of answers until the fruit is among the
first three when each question is the first of ``next_questions``, against asking in order.
"""

from __future__ import annotations

import random
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from identification.scoring import Characteristic, next_questions, rank  # noqa: E402

ORDINAL = (1, 3, 5, 7, 9)
MEDIUM_HEAVY = (0.06, 0.22, 0.44, 0.22, 0.06)  # most apples are medium
SPEC = [  # code, ordinal, reliability, states, their frequencies
    ("fruit_size", True, "medium", ORDINAL, MEDIUM_HEAVY),
    ("height_diameter", True, "medium", ORDINAL, MEDIUM_HEAVY),
    ("shape", False, "medium", (1, 2, 3, 4, 5, 6), (0.35, 0.2, 0.15, 0.12, 0.1, 0.08)),
    ("ribbing", True, "high", ORDINAL, (0.3, 0.3, 0.2, 0.15, 0.05)),
    ("crowning", True, "medium", ORDINAL, (0.35, 0.3, 0.2, 0.1, 0.05)),
    ("ground_colour", False, "medium", (1, 2, 3, 4, 5), (0.05, 0.15, 0.35, 0.35, 0.1)),
    ("over_colour_area", True, "low", ORDINAL, (0.08, 0.15, 0.27, 0.3, 0.2)),
    ("over_colour_hue", False, "low", (1, 2, 3, 4, 5), (0.15, 0.15, 0.45, 0.15, 0.1)),
    ("over_colour_pattern", False, "medium", (1, 2, 3), (0.45, 0.35, 0.2)),
    ("russet_stalk", True, "high", ORDINAL, (0.3, 0.3, 0.2, 0.15, 0.05)),
    ("russet_cheek", True, "high", ORDINAL, (0.55, 0.2, 0.12, 0.08, 0.05)),
    ("russet_eye", True, "high", ORDINAL, (0.5, 0.25, 0.12, 0.08, 0.05)),
    ("bloom", True, "medium", ORDINAL, (0.3, 0.3, 0.25, 0.1, 0.05)),
    ("lenticel_size", True, "medium", ORDINAL, MEDIUM_HEAVY),
    ("stalk_length", True, "medium", ORDINAL, MEDIUM_HEAVY),
    ("stalk_thickness", True, "medium", ORDINAL, MEDIUM_HEAVY),
    ("stalk_cavity_depth", True, "high", ORDINAL, MEDIUM_HEAVY),
    ("eye_basin_depth", True, "high", ORDINAL, MEDIUM_HEAVY),
    ("eye", False, "high", (1, 2), (0.6, 0.4)),
    ("flesh_colour", False, "high", (1, 2, 3, 4), (0.2, 0.6, 0.15, 0.05)),
    ("flesh_firmness", True, "medium", ORDINAL, MEDIUM_HEAVY),
    ("locules", False, "high", (1, 2, 3), (0.4, 0.4, 0.2)),
    ("flowering", True, "medium", ORDINAL, MEDIUM_HEAVY),
    ("harvest", True, "high", ORDINAL, (0.15, 0.2, 0.3, 0.2, 0.15)),
]
CHARS = {code: Characteristic(code, states, ordinal, rel) for code, ordinal, rel, states, _ in SPEC}
FREQUENCIES = {code: weights for code, _, _, _, weights in SPEC}


def orchard(count: int, rng: random.Random) -> dict[int, dict[str, frozenset[int]]]:
    fruits = {}
    for fruit in range(count):
        values = {}
        for code, char in CHARS.items():
            if rng.random() < 0.1:
                continue  # not described
            state = rng.choices(char.states, FREQUENCIES[code])[0]
            chosen = {state}
            if rng.random() < 0.1:  # shows two states (medium to large)
                near = sorted(char.neighbours(state)) or [s for s in char.states if s != state]
                chosen.add(rng.choice(near))
            values[code] = frozenset(chosen)
        fruits[fruit] = values
    return fruits


def describe(fruit: dict, rng: random.Random, *, wrong: int, slips: float) -> dict:
    codes = rng.sample(sorted(fruit), min(10, len(fruit)))
    answers = {code: {rng.choice(sorted(fruit[code]))} for code in codes}
    wrongable = [code for code in codes if set(CHARS[code].states) - fruit[code]]
    for code in rng.sample(wrongable, wrong):
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


def accuracy(fruits, rng, *, wrong: int, slips: float, runs: int = 1000) -> tuple[float, ...]:
    places = []
    for _ in range(runs):
        described = rng.choice(list(fruits))
        places.append(
            place(fruits, describe(fruits[described], rng, wrong=wrong, slips=slips), described)
        )
    return tuple(sum(p <= k for p in places) / runs for k in (1, 3, 5))


def answers_needed(fruits, rng, *, adaptive: bool, runs: int = 200) -> float:
    """The median number of questions answered until the described fruit is among the first
    three (a question about something the fruit has no value for is "can't tell")."""
    counts = []
    for _ in range(runs):
        described = rng.choice(list(fruits))
        truth = fruits[described]
        answers: dict[str, set[int]] = {}
        asked: set[str] = set()
        count = len(CHARS)
        for step in range(1, len(CHARS) + 1):
            code = None
            if adaptive:
                ranked = rank(CHARS, answers, fruits)[:10]
                proposed = next_questions(CHARS, asked, dict(ranked), fruits, limit=1)
                code = proposed[0][0] if proposed else None
            code = code or next(c for c in CHARS if c not in asked)
            asked.add(code)
            if code in truth:
                answers[code] = {rng.choice(sorted(truth[code]))}
            if answers and place(fruits, answers, described) <= 3:
                count = step
                break
        counts.append(count)
    return statistics.median(counts)


def main() -> None:
    for size in (300, 1000):  # the Pometum's apple key holds 319; a large collection
        rng = random.Random(1905)
        fruits = orchard(size, rng)
        one = accuracy(fruits, rng, wrong=1, slips=0.0)
        two = accuracy(fruits, rng, wrong=2, slips=0.2)
        adaptive = answers_needed(fruits, rng, adaptive=True)
        ordered = answers_needed(fruits, rng, adaptive=False)
        print(f"## Identification quality ({size:,} synthetic apples, 24 characteristics)\n")
        print("| descriptions of ten answers | first | first three | first five | target |")
        print("|---|---:|---:|---:|---|")
        print(
            f"| one wrong | {one[0]:.0%} | {one[1]:.0%} | {one[2]:.0%} "
            "| first three ≥ 95 %, first ≥ 75 % |"
        )
        print(
            f"| two wrong, a fifth of the ordinal ones a step off | {two[0]:.0%} | {two[1]:.0%} "
            f"| {two[2]:.0%} | first five ≥ 85 % |"
        )
        print(
            f"\nAnswers until the fruit is among the first three (median of 200): {adaptive:g} "
            f"asking the best next question, {ordered:g} asking in order (target ≤ 6, and "
            "fewer).\n"
        )


if __name__ == "__main__":
    main()
