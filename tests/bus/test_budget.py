"""Relative time budgets (:mod:`bus.budget`): read from a header, spent as time passes, and shared with
children after a reserve for the hop's own work — including a property (hypothesis) that a reserve never
takes the children's share."""

from __future__ import annotations

import time

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bus import headers as h
from bus.budget import MAX_EXTRA_SHARE, Budget, Reserve
from bus.errors import ValidationError
from tests.helpers.properties import PROPERTIES
from tests.helpers.timing import NO_IO_SLACK_MS


def test_missing_header_takes_the_default():
    assert Budget.from_headers({}, default_ms=1234).total_ms == 1234


@pytest.mark.timing
def test_header_budget_is_relative_and_spent():
    budget = Budget.from_headers({h.BUDGET: "200"}, default_ms=5000)
    assert budget.total_ms == 200
    slept_ms = 50
    time.sleep(slept_ms / 1000)
    # spent at least the sleep (a few ms of clock rounding aside), and not more than the sleep and a slack
    assert budget.total_ms - slept_ms - NO_IO_SLACK_MS < budget.remaining_ms() < budget.total_ms - slept_ms + 5


@pytest.mark.parametrize("raw", ["abc", "nan", "inf", "9999999999"])
def test_bad_header_is_a_validation_error(raw):
    with pytest.raises(ValidationError, match=h.BUDGET):
        Budget.from_headers({h.BUDGET: raw}, default_ms=100)


@pytest.mark.timing
def test_children_get_the_remainder_less_the_reserve():
    budget = Budget.start(1000, Reserve(fixed_ms=10, fraction=0.1))
    child = budget.for_children()
    expected = 1000 - (10 + 100)  # less a little elapsed time (times 0.9: the fraction shrinks with what is left)
    assert expected - NO_IO_SLACK_MS < child <= expected


def test_expired_budget_gives_children_nothing():
    budget = Budget.start(0)
    assert budget.expired
    assert budget.for_children() == 0.0
    assert Budget.header(-5)[h.BUDGET] == "0.0"


def test_work_after_the_children_is_reserved_but_never_starves_them():
    reserve = Reserve(fixed_ms=10, fraction=0.1).plus(400).plus(100)
    assert reserve.of(10_000) == 10 + 1000 + 500, "room enough: the extra work gets all it asks for"
    assert reserve.of(1_000) == 110 + 0.5 * 890, "short of time: the children keep half of what is left"
    assert reserve.of(0) == 10


@PROPERTIES
@given(st.floats(0, 600_000), st.floats(0, 1000), st.floats(0, 0.9), st.floats(0, 100_000))
def test_a_reserve_leaves_children_their_share(remaining, fixed, fraction, extra):
    reserve = Reserve(fixed_ms=fixed, fraction=fraction).plus(extra)
    kept = reserve.of(remaining)
    base = Reserve(fixed_ms=fixed, fraction=fraction).of(remaining)
    assert base <= kept <= base + extra + 1e-6
    if remaining > base:
        children = remaining - kept
        assert children >= (1 - MAX_EXTRA_SHARE) * (remaining - base) - 1e-6, "the extra work never starves the search"
