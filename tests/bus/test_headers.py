"""The headers every hop reads before decoding a body (:mod:`bus.headers`): their bounds and shapes, checked
with reasons that name a header but never repeat its value, and which of them a node passes on."""

from __future__ import annotations

import pytest

from bus import headers as h
from bus.errors import ValidationError


def test_headers_within_their_bounds_pass_unchanged():
    good = {h.TRACE: "abc-123:x.y_z", h.BUDGET: "2500.5", h.KIND: "query", "X-Other": "v" * h.MAX_VALUE_CHARS}
    assert h.check(good) is good
    assert h.check(None) == {}


@pytest.mark.parametrize("headers, reason", [
    ({f"X-{i}": "v" for i in range(h.MAX_HEADERS + 1)}, f"33 headers, at most {h.MAX_HEADERS}"),
    ({"N" * (h.MAX_NAME_CHARS + 1): "v"}, f"a header name of 65 characters, at most {h.MAX_NAME_CHARS}"),
    ({"X-Big": "secret" * 2000}, "header X-Big holds 12000 characters"),
    ({"X-A": "s" * 8000, "X-B": "s" * 8000, "X-C": "s" * 500}, "headers hold 16509 characters"),
    ({h.TRACE: "not a token!"}, "header Fed-Trace must be a trace id"),
    ({h.TRACE: "t" * 65}, "header Fed-Trace must be a trace id"),
    ({h.BUDGET: "1" * 33}, "header Fed-Budget-Ms must be a number of milliseconds"),
    ({h.KIND: "secret-kind"}, "header Fed-Kind must be one of answer_delta, ask, error"),
])
def test_a_header_out_of_bounds_is_named_and_its_value_never_repeated(headers, reason):
    with pytest.raises(ValidationError, match=reason) as caught:
        h.check(headers)
    assert "secret" not in str(caught.value) and "not a token" not in str(caught.value)


def test_only_the_trace_and_the_callers_credentials_are_passed_on():
    sent = {h.TRACE: "t1", h.AUTHORIZATION: "Bearer x", h.PROOF: "p", h.BUDGET: "100", h.KIND: "query", "X-Junk": "j"}
    assert h.forwardable(sent) == {h.TRACE: "t1", h.AUTHORIZATION: "Bearer x", h.PROOF: "p"}
    assert h.forwardable(None) == {}
    assert h.size({}) == 12 and h.size({"ab": "é"}) == 12 + 2 + 2 + 4, "bytes on the wire, not characters"
