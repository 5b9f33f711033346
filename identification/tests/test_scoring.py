"""The identification's scoring: its ranking rules, on the pure module."""

import ast
from pathlib import Path

import pytest

from identification import scoring
from identification.scoring import Characteristic, classify, likelihood, next_questions, rank

SIZE = Characteristic("fruit_size", (1, 3, 5, 7, 9), ordinal=True, reliability="high")
OVER = Characteristic("over_colour", (1, 2, 3, 4), ordinal=False, reliability="low")
RUSSET = Characteristic("russet", (1, 3, 5, 7, 9), ordinal=True, reliability="high")
STALK = Characteristic("stalk_length", (3, 5, 7), ordinal=True, reliability="medium")
CHARS = {c.code: c for c in (SIZE, OVER, RUSSET, STALK)}


def order(answers, fruits):
    return [fruit for fruit, _ in rank(CHARS, answers, fruits)]


def test_a_match_ranks_above_a_near_miss_which_ranks_above_a_mismatch():
    fruits = {"far": {"fruit_size": {1}}, "near": {"fruit_size": {5}}, "match": {"fruit_size": {7}}}
    assert order({"fruit_size": {7}}, fruits) == ["match", "near", "far"]
    assert [classify(SIZE, {7}, fruits[f]["fruit_size"]) for f in ("match", "near", "far")] == [
        "match",
        "near",
        "mismatch",
    ]


def test_a_mismatch_where_answers_are_unreliable_costs_less():
    fruits = {
        "misses_reliable": {"fruit_size": {1}, "over_colour": {2}},
        "misses_unreliable": {"fruit_size": {7}, "over_colour": {3}},
    }
    answers = {"fruit_size": {7}, "over_colour": {2}}
    assert order(answers, fruits) == ["misses_unreliable", "misses_reliable"]


def test_no_answer_excludes_a_fruit_and_the_scores_share_the_evidence():
    fruits = {1: {"fruit_size": {1}, "russet": {9}}, 2: {"fruit_size": {9}, "russet": {1}}}
    ranked = rank(CHARS, {"fruit_size": {9}, "russet": {9}}, fruits)
    assert len(ranked) == 2 and all(score > 0 for _, score in ranked)
    assert sum(score for _, score in ranked) == pytest.approx(1.0)
    assert [score for _, score in ranked] == sorted((score for _, score in ranked), reverse=True)


def test_a_fruit_without_a_value_is_neutral():
    answer = {5}
    unknown = likelihood(SIZE, answer, None)
    known = [likelihood(SIZE, answer, {state}) for state in SIZE.states]
    assert unknown == pytest.approx(sum(known) / len(known))
    fruits = {"described": {"fruit_size": {5}}, "silent": {}, "wrong": {"fruit_size": {1}}}
    assert order({"fruit_size": {5}}, fruits) == ["described", "silent", "wrong"]


def test_several_values_spread_a_fruits_likelihood_and_several_answers_add_up():
    assert likelihood(SIZE, {7}, {5, 7}) == pytest.approx(
        (likelihood(SIZE, {7}, {5}) + likelihood(SIZE, {7}, {7})) / 2
    )
    # A hesitant answer matches what either of its states matches.
    assert likelihood(SIZE, {5, 7}, {5}) == likelihood(SIZE, {7}, {7})
    assert likelihood(SIZE, {5, 7}, {5}) > likelihood(SIZE, {7}, {5})
    fruits = {
        "one": {"fruit_size": {7}},
        "range": {"fruit_size": {5, 7}},
        "other": {"fruit_size": {1}},
    }
    assert order({"fruit_size": {5, 7}}, fruits)[-1] == "other"


def test_ties_keep_the_order_given():
    fruits = {10: {"fruit_size": {5}}, 3: {"fruit_size": {5}}, 7: {"fruit_size": {5}}}
    assert order({"fruit_size": {5}}, fruits) == [10, 3, 7]


def test_the_next_question_is_the_one_that_separates_the_candidates():
    fruits = {
        1: {"fruit_size": {5}, "russet": {1}, "stalk_length": {5}},
        2: {"fruit_size": {5}, "russet": {9}, "stalk_length": {5}},
        3: {"fruit_size": {5}, "russet": {5}, "stalk_length": {7}},
    }
    scores = dict(rank(CHARS, {}, fruits))
    proposed = next_questions(CHARS, answered=[], scores=scores, fruits=fruits)
    assert [code for code, _ in proposed] == ["russet", "stalk_length"]
    # Shared by all (fruit_size) or known of none (over_colour): never proposed.
    assert next_questions(CHARS, ["russet", "stalk_length"], scores, fruits) == []


def test_the_scoring_knows_no_django():
    tree = ast.parse(Path(scoring.__file__).read_text())
    imported = {
        alias.name.split(".")[0]
        for node in ast.walk(tree)
        if isinstance(node, ast.Import | ast.ImportFrom)
        for alias in (
            node.names if isinstance(node, ast.Import) else [ast.alias(node.module or "")]
        )
    }
    assert imported <= {"__future__", "math", "collections", "dataclasses"}


def test_the_rules_hold_whatever_the_sizes_of_the_scales():
    # A low-reliability ordinal scale of nine states against a high-reliability nominal pair:
    # the fruit that misses the unreliable answer still ranks first.
    low = Characteristic("over", (1, 2, 3, 4, 5, 6, 7, 8, 9), ordinal=True, reliability="low")
    high = Characteristic("eye", (1, 9), ordinal=False, reliability="high")
    chars = {"over": low, "eye": high}
    fruits = {"misses_high": {"over": {1}, "eye": {9}}, "misses_low": {"over": {9}, "eye": {1}}}
    ranked = rank(chars, {"over": {1}, "eye": {1}}, fruits)
    assert [fruit for fruit, _ in ranked] == ["misses_low", "misses_high"]
    # Near beats a miss strictly, even when the answer spans several states.
    medium = Characteristic("size", (1, 2, 3, 4, 5, 6, 7), ordinal=True, reliability="medium")
    fruits = {"miss": {"size": {7}}, "near": {"size": {4, 5, 6}}}
    assert [f for f, _ in rank({"size": medium}, {"size": {1, 2, 3}}, fruits)] == ["near", "miss"]


def test_a_miss_on_a_scale_of_many_states_tells_more():
    # A wrong answer falls on any one of the other states: on a scale of nine, rarely on a
    # given one, so that miss costs more than one on a scale of three.
    many = Characteristic("many", tuple(range(1, 10)), ordinal=False, reliability="medium")
    few = Characteristic("few", (1, 2, 3), ordinal=False, reliability="medium")
    chars = {"many": many, "few": few}
    fruits = {"misses_many": {"many": {9}, "few": {1}}, "misses_few": {"many": {1}, "few": {3}}}
    ranked = rank(chars, {"many": {1}, "few": {1}}, fruits)
    assert [fruit for fruit, _ in ranked] == ["misses_few", "misses_many"]


@pytest.mark.parametrize(("less", "more"), [("low", "medium"), ("medium", "high"), ("low", "high")])
@pytest.mark.parametrize("less_ordinal", [True, False])
@pytest.mark.parametrize("more_ordinal", [True, False])
def test_a_less_reliable_miss_costs_less_whatever_the_sizes_and_kinds_of_the_scales(
    less, more, less_ordinal, more_ordinal
):
    for less_size in range(2, 21):
        for more_size in range(2, 21):
            unsure = Characteristic("unsure", tuple(range(1, less_size + 1)), less_ordinal, less)
            sure = Characteristic("sure", tuple(range(1, more_size + 1)), more_ordinal, more)
            fruits = {
                "misses_sure": {"unsure": {1}, "sure": {more_size}},
                "misses_unsure": {"unsure": {less_size}, "sure": {1}},
            }
            if classify(unsure, {1}, {less_size}) != "mismatch":
                continue  # a two-state ordinal scale's other state is a neighbour: near
            if classify(sure, {1}, {more_size}) != "mismatch":
                continue
            ranked = rank({"unsure": unsure, "sure": sure}, {"unsure": {1}, "sure": {1}}, fruits)
            assert [fruit for fruit, _ in ranked] == ["misses_unsure", "misses_sure"], (
                less_size,
                more_size,
            )


@pytest.mark.parametrize("reliability", ["high", "medium", "low"])
def test_a_near_miss_beats_a_miss_whatever_the_size_of_the_scale(reliability):
    for size in range(3, 21):
        scale = Characteristic("scale", tuple(range(1, size + 1)), True, reliability)
        fruits = {"miss": {"scale": {size}}, "near": {"scale": {2}}}
        ranked = [fruit for fruit, _ in rank({"scale": scale}, {"scale": {1}}, fruits)]
        assert ranked == ["near", "miss"], size


def test_the_order_of_a_fruits_values_changes_nothing():
    fruits = {"a": {"fruit_size": [1, 3, 5]}, "b": {"fruit_size": [5, 3, 1]}}
    (first, one), (second, other) = rank(CHARS, {"fruit_size": {1, 9}}, fruits)
    assert one == other and (first, second) == ("a", "b")


@pytest.mark.parametrize("reliability", ["high", "medium", "low"])
def test_a_match_among_many_values_still_ranks_above_a_near_miss(reliability):
    wide = Characteristic("wide", tuple(range(1, 21)), ordinal=True, reliability=reliability)
    fruits = {"many": {"wide": (1, *range(3, 21))}, "near": {"wide": (2,)}}
    ranked = [fruit for fruit, _ in rank({"wide": wide}, {"wide": (1,)}, fruits)]
    assert ranked == ["many", "near"]
