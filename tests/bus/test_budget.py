import time

import pytest

from bus import headers as h
from bus.budget import Budget, Reserve
from bus.errors import ValidationError


def test_missing_header_takes_the_default():
    assert Budget.from_headers({}, default_ms=1234).total_ms == 1234


def test_header_budget_is_relative_and_spent():
    budget = Budget.from_headers({h.BUDGET: "200"}, default_ms=5000)
    assert budget.total_ms == 200
    time.sleep(0.05)
    assert 100 < budget.remaining_ms() < 155


@pytest.mark.parametrize("raw", ["abc", "nan", "inf", "9999999999"])
def test_bad_header_is_a_validation_error(raw):
    with pytest.raises(ValidationError, match=h.BUDGET):
        Budget.from_headers({h.BUDGET: raw}, default_ms=100)


def test_children_get_the_remainder_less_the_reserve():
    budget = Budget.start(1000, Reserve(fixed_ms=10, fraction=0.1))
    child = budget.for_children()
    assert 880 < child <= 890  # 1000 - (10 + 100), less a little elapsed time


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
