"""The metrics against values computed by hand: ranks over records, graded gains, ROUGE-L."""

from __future__ import annotations

import pytest

from nodes.eval.metrics import (dcg, lcs_length, mean, mrr_at, ndcg_at, recall_at, records_ranked, retrieval, rouge_l,
                                success_at, tokens)

# a, x, a, b, y, c: the second passage of record a is skipped, so the records rank a, x, b, y, c
RANKED = ["a", "x", "a", "b", "y", "c"]
FOUR = {"a": 1, "b": 1, "c": 1, "d": 1}


def test_a_record_ranks_at_its_first_passage_and_its_later_passages_take_no_rank():
    assert records_ranked(RANKED) == ["a", "x", "b", "y", "c"]


def test_binary_relevance_with_a_record_cut_into_two_passages():
    # DCG = 1/log2(2) + 1/log2(4) + 1/log2(6) = 1 + 0.5 + 0.386853 = 1.886853
    # IDCG (four relevant) = 1 + 1/log2(3) + 1/log2(4) + 1/log2(5) = 1 + 0.630930 + 0.5 + 0.430677 = 2.561606
    assert ndcg_at(RANKED, FOUR, 10) == pytest.approx(1.886853 / 2.561606, abs=1e-6)
    assert ndcg_at(RANKED, FOUR, 10) == pytest.approx(0.736590, abs=1e-6)
    assert mrr_at(RANKED, FOUR, 10) == 1.0
    assert recall_at(RANKED, FOUR, 10) == 0.75
    assert success_at(RANKED, FOUR, 10) == 1.0


def test_the_cut_off_counts_records_not_passages():
    # top 3 records: a, x, b (the passages a, x, a would have found only a)
    # DCG = 1 + 0.5 = 1.5; IDCG@3 = 1 + 0.630930 + 0.5 = 2.130930
    assert ndcg_at(RANKED, FOUR, 3) == pytest.approx(0.703918, abs=1e-6)
    assert recall_at(RANKED, FOUR, 3) == 0.5
    assert recall_at(RANKED, FOUR, 1) == 0.25


def test_graded_gains_are_the_grades_discounted_by_log2():
    graded = {"a": 3, "b": 1, "c": 2}
    # DCG of b, a, c = 1 + 3/log2(3) + 2/log2(4) = 1 + 1.892789 + 1 = 3.892789
    # IDCG (a, c, b) = 3 + 2/log2(3) + 1/log2(4) = 3 + 1.261860 + 0.5 = 4.761860
    assert ndcg_at(["b", "a", "c"], graded, 10) == pytest.approx(0.817494, abs=1e-6)
    assert ndcg_at(["a", "c", "b"], graded, 10) == pytest.approx(1.0)
    assert ndcg_at(["a", "b", "c", "b"], graded, 10) == pytest.approx((3 + 1 / 1.5849625 + 1) / 4.761860, abs=1e-6)
    assert dcg([3, 2, 1]) == pytest.approx(4.761860, abs=1e-6)


def test_reciprocal_rank_success_and_grades_of_zero():
    assert mrr_at(["x", "y", "b"], FOUR, 10) == pytest.approx(1 / 3)
    assert mrr_at(["x", "y", "b"], FOUR, 2) == 0.0
    assert success_at(["x", "y", "b"], FOUR, 2) == 0.0
    assert mrr_at(["x", "b"], {"x": 0, "b": 1}, 10) == 0.5  # a grade of 0 is not relevant
    assert ndcg_at(["x", "b"], {"x": 0, "b": 2}, 10) == pytest.approx(1 / 1.5849625, abs=1e-6)


def test_nothing_found_and_nothing_relevant():
    assert retrieval([], FOUR) == {"ndcg": 0.0, "mrr": 0.0, "recall": 0.0, "success": 0.0}
    assert retrieval(["a"], {}) == {"ndcg": 0.0, "mrr": 0.0, "recall": 0.0, "success": 0.0}


def test_longest_common_subsequence():
    assert lcs_length(list("ABCBDAB"), list("BDCABA")) == 4
    assert lcs_length(list("BDCABA"), list("ABCBDAB")) == 4
    assert lcs_length(["a"], ["b"]) == 0
    assert lcs_length([], ["b"]) == 0


def test_rouge_l_is_the_lcs_f_measure_over_lower_cased_words():
    # LCS "the cat on the mat" = 5 of 6 words each way: P = R = F = 5/6
    assert rouge_l("The cat sat on the mat.", "the cat is on the MAT") == pytest.approx(5 / 6)
    # LCS "a b" = 2: P = 2/3, R = 2/5, F = 2PR/(P+R) = (8/15)/(16/15) = 0.5
    assert rouge_l("a b c", "a x b y z") == pytest.approx(0.5)
    assert rouge_l("Same words, same order!", "same words same order") == 1.0
    assert rouge_l("", "a") == 0.0 and rouge_l("a", "") == 0.0 and rouge_l("a", "b") == 0.0
    assert tokens("Type-2 diabetes (T2D)") == ["type", "2", "diabetes", "t2d"]


def test_mean():
    assert mean([1.0, 0.0, 0.5]) == 0.5
    assert mean([]) is None
