"""Which variety is this fruit? A likelihood model over coded characteristics, Django-free.

A person describes a fruit by answering questions (characteristics), each with one state, or
several when they hesitate. Every answer may be far off, as often as `ERROR[reliability]`
says, and on an ordered scale one step off (a slip), as often as `SLIP[reliability]` says.
Seen against a state the fruit shows, an answer matches (it holds that state), is near (it
holds an ordinal neighbour) or misses; its likelihood is `1 - error - slip`,
`slip * NEAR_FACTOR` or `error * miss_share`. A wrong answer falls on any one of the scale's
other states, so a miss on a scale of many states is the rarer, and tells more:
`miss_share` is `1 / (states - 1)`, held within `MISS_SHARE` so that reliability still ranks
first whatever the scales' sizes: a match beats a near miss beats a miss, and a miss where
answers are less reliable costs less than one where they are more reliable, low below medium
below high (the tightest case, a medium nominal scale against a high ordinal one:
0.15 * 0.25 / 0.85 > 0.10 * 0.33 / 0.75). A fruit that shows
several states (medium to large) is as likely to be seen in any of them (their likelihoods
average, a match never below a near miss); a fruit without a value is neutral (the average over
every state).
A candidate's `score` is its posterior share with equal priors. No answer excludes a fruit.
The rates were tuned with `bench/bench_identify_quality.py`.

`next_questions` picks the unanswered characteristics whose answer would tell the candidates
apart best: the largest expected drop in the entropy of their scores (information gain).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

# How often an answer is wrong, by how far people can be trusted on a characteristic: over
# colour varies with sun and season (low); the shape of the eye basin does not (high).
ERROR = {"high": 0.10, "medium": 0.15, "low": 0.25}  # an answer far off
# On an ordered scale a person slips one step far more often (a fruit judged "large" that the
# description calls "medium"): the chance of that, shared by the two neighbours.
SLIP = {"high": 0.15, "medium": 0.20, "low": 0.25}
NEAR_FACTOR = 0.5  # of the slip, for one neighbour
MISS_SHARE = (0.25, 0.33)  # of the error, for one state far off: 1 / (other states), within these

MATCH, NEAR, MISMATCH, UNKNOWN = "match", "near", "mismatch", "unknown"


@dataclass(frozen=True)
class Characteristic:
    """A question: its states' values (in order for an ordinal scale) and how far answers to it
    can be trusted."""

    code: str
    states: tuple[int, ...]
    ordinal: bool = True
    reliability: str = "medium"
    # Derived when made (a frozen dataclass's own fields): the share of the error that falls on
    # one state far off (one of the other states), and each state's ordinal neighbours.
    miss_share: float = field(init=False, repr=False, compare=False)
    _near: dict[int, frozenset[int]] = field(init=False, repr=False, compare=False)

    def __post_init__(self):
        low, high = MISS_SHARE
        share = min(high, max(low, 1 / max(1, len(self.states) - 1)))
        ordered = sorted(self.states) if self.ordinal else []
        near = {
            value: frozenset(ordered[max(0, index - 1) : index] + ordered[index + 1 : index + 2])
            for index, value in enumerate(ordered)
        }
        object.__setattr__(self, "miss_share", share)
        object.__setattr__(self, "_near", near)

    def neighbours(self, value: int) -> frozenset[int]:
        """The states next to `value` on an ordinal scale (none on a nominal one)."""
        return self._near.get(value, frozenset())

    def seen_as(self, answer: frozenset[int], shown: int) -> float:
        """How likely the answer is when the fruit shows `shown`: by match, near or miss."""
        error = ERROR[self.reliability]
        slip = SLIP[self.reliability] if self.ordinal else 0.0
        if shown in answer:
            return 1.0 - error - slip
        if self.neighbours(shown) & answer:
            return slip * NEAR_FACTOR
        return error * self.miss_share


def likelihood(char: Characteristic, answer: Iterable[int], values: Iterable[int] | None) -> float:
    """P(the answer | the fruit's values), up to a constant: the average over the states the
    fruit shows (every state when it has no value) of how likely the answer is for each."""
    answer = frozenset(answer)
    shown = sorted(set(values)) if values else sorted(set(char.states))
    mean = math.fsum(char.seen_as(answer, state) for state in shown) / len(shown)
    if values and char.ordinal and answer & set(shown):
        # A fruit shown in many states averages its one match with many misses, which could
        # fall below a near miss of a fruit shown in one state; the ranking puts a match
        # above a near miss whatever the number of states, so a match never scores below one.
        mean = max(mean, SLIP[char.reliability] * NEAR_FACTOR * (1 + 1e-9))
    return mean


def classify(char: Characteristic, answer: Iterable[int], values: Iterable[int] | None) -> str:
    """How an answer meets a fruit: it shares a value (match), misses it by one ordinal step
    (near), misses (mismatch), or the fruit has no value (unknown)."""
    if not values:
        return UNKNOWN
    answer, values = frozenset(answer), frozenset(values)
    if answer & values:
        return MATCH
    if any(char.neighbours(value) & answer for value in values):
        return NEAR
    return MISMATCH


def rank(
    characteristics: Mapping[str, Characteristic],
    answers: Mapping[str, Iterable[int]],
    fruits: Mapping[int, Mapping[str, Iterable[int]]],
) -> list[tuple[int, float]]:
    """(fruit, score) for every fruit, best first; ties keep the order of `fruits`.

    `fruits` maps a fruit to its values by characteristic code; the scores sum to 1.
    """
    logs = []
    # Fruits share few distinct values per characteristic: each answer's log-likelihood is
    # worked out once per distinct value set (a catalog of 10,000 is then a sum of lookups).
    answers = {code: frozenset(answer) for code, answer in answers.items()}
    known: dict[tuple, float] = {}
    for order, (fruit, values) in enumerate(fruits.items()):
        total = 0.0
        for code, answer in answers.items():
            shown = values.get(code)
            key = (code, tuple(shown) if shown else ())
            weight = known.get(key)
            if weight is None:
                weight = known[key] = math.log(likelihood(characteristics[code], answer, shown))
            total += weight
        logs.append((total, order, fruit))
    if not logs:
        return []
    top = max(total for total, _, _ in logs)
    weights = [(math.exp(total - top), order, fruit) for total, order, fruit in logs]
    norm = sum(weight for weight, _, _ in weights)
    ranked = sorted(weights, key=lambda item: (-item[0], item[1]))
    return [(fruit, weight / norm) for weight, _, fruit in ranked]


def entropy(probabilities: Iterable[float]) -> float:
    return -sum(p * math.log(p) for p in probabilities if p > 0)


def information_gain(
    char: Characteristic,
    scores: Mapping[int, float],
    fruits: Mapping[int, Mapping[str, Iterable[int]]],
) -> float:
    """How much asking `char` is expected to lower the entropy of the candidates' scores."""
    total = sum(scores.values())
    if total <= 0:
        return 0.0
    prior = {fruit: score / total for fruit, score in scores.items()}
    before = entropy(prior.values())
    expected_after = 0.0
    # What each fruit would make a person answer: its likelihoods over the single states,
    # worked out once per distinct value set (candidates share few).
    answering, by_values = {}, {}
    for fruit in prior:
        values = fruits[fruit].get(char.code)
        key = tuple(values) if values else ()
        if key not in by_values:
            weights = {state: likelihood(char, (state,), values) for state in char.states}
            norm = math.fsum(weights.values())
            by_values[key] = {state: weight / norm for state, weight in weights.items()}
        answering[fruit] = by_values[key]
    for state in char.states:
        joint = {fruit: p * answering[fruit][state] for fruit, p in prior.items()}
        p_answer = sum(joint.values())
        if p_answer > 0:
            expected_after += p_answer * entropy(value / p_answer for value in joint.values())
    return before - expected_after


def next_questions(
    characteristics: Mapping[str, Characteristic],
    answered: Iterable[str],
    scores: Mapping[int, float],
    fruits: Mapping[int, Mapping[str, Iterable[int]]],
    limit: int = 3,
) -> list[tuple[str, float]]:
    """Up to `limit` unanswered characteristics that best separate the candidates in `scores`,
    best first, with their expected information gain. One on which the candidates all share one
    state, or have no value, separates nothing and is never proposed."""
    answered = set(answered)
    found = []
    for order, (code, char) in enumerate(characteristics.items()):
        if code in answered:
            continue
        states = set().union(*(fruits[fruit].get(code) or () for fruit in scores))
        if len(states) < 2:  # all share one state, or none has a value
            continue
        gain = information_gain(char, scores, fruits)
        if gain > 1e-9:
            found.append((gain, order, code))
    found.sort(key=lambda item: (-item[0], item[1]))
    return [(code, gain) for gain, _, code in found[:limit]]
