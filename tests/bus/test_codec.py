"""The wire's encoding (:mod:`bus.codec`): msgpack validated into models, size-bounded both ways — including
properties (hypothesis) that any bytes and any msgpack value decode to a model or to one of our two errors."""

from __future__ import annotations

import msgpack
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from bus import codec
from bus.errors import DecodeError, TooLargeError, ValidationError
from bus.messages import Coverage, NodeReport, Query, SearchResult
from bus.asking import Answer, AskRequest
from tests.helpers.properties import PROPERTIES


def make_query(**fields):
    return Query.with_vector(np.ones(4, dtype=np.float32) / 2, question="q?", model="m", **fields)


def test_query_round_trips_with_its_vector():
    query = make_query(k=3, fetch_k=7)
    back = codec.decode(codec.encode(query), Query)
    assert back == query
    assert np.allclose(back.vector(), [0.5, 0.5, 0.5, 0.5])


@pytest.mark.parametrize("data", [b"", b"\xc1\xff\x00garbage", b"\x93\x01\x02\x03", msgpack.packb("just a string")])
def test_garbage_is_a_decode_error(data):
    with pytest.raises(DecodeError):
        codec.decode(data, Query)


def test_wrong_schema_names_the_field():
    with pytest.raises(ValidationError, match="question"):
        codec.decode(msgpack.packb({"embedding": b"\x00" * 16, "model": "m"}), Query)


def test_out_of_range_k_is_rejected():
    body = msgpack.packb({**make_query().model_dump(), "k": 0}, use_bin_type=True)
    with pytest.raises(ValidationError, match="k"):
        codec.decode(body, Query)


def test_non_finite_embedding_is_rejected():
    body = make_query().model_dump()
    body["embedding"] = np.array([np.nan, 1, 1, 1], dtype="<f4").tobytes()
    with pytest.raises(ValidationError, match="NaN"):
        codec.decode(msgpack.packb(body, use_bin_type=True), Query)


def test_oversized_body_is_refused_both_ways():
    with pytest.raises(DecodeError, match="exceeds"):
        codec.decode(b"\x80" * (codec.MAX_BODY_BYTES + 1), Query)
    report = NodeReport(status="successful", took_ms=1.0, hits=1)
    huge = SearchResult(nodes={f"fed.q.node{i}": report for i in range(30_000)}, coverage=Coverage())
    with pytest.raises(TooLargeError, match="bound"):
        codec.encode(huge)


def test_unknown_fields_are_ignored_for_forward_compatibility():
    body = {**make_query().model_dump(), "added_in_a_later_version": 1}
    assert codec.decode(msgpack.packb(body, use_bin_type=True), Query).question == "q?"


msgpack_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**63), 2**64 - 1) | st.floats(allow_nan=True) | st.text(max_size=20)
    | st.binary(max_size=20),
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(st.text(max_size=10), inner, max_size=5),
    max_leaves=20,
)


@PROPERTIES
@given(st.binary(max_size=300), st.sampled_from([Query, AskRequest, SearchResult, Answer]))
def test_any_bytes_decode_to_a_model_or_to_our_error(data, model):
    try:
        codec.decode(data, model)
    except (DecodeError, ValidationError):
        pass


@PROPERTIES
@given(msgpack_values, st.sampled_from([Query, AskRequest, SearchResult, Answer]))
def test_any_msgpack_value_decodes_to_a_model_or_to_our_error(value, model):
    try:
        codec.decode(msgpack.packb(value, use_bin_type=True), model)
    except (DecodeError, ValidationError):
        pass


def test_a_focused_vector_is_a_unit_vector_of_the_embeddings_dimensions():
    unit = np.zeros(4, dtype="<f4")
    unit[0] = 1.0
    fields = dict(question="q", model="m", embedding=unit.tobytes())
    assert Query(**fields, focused=unit[::-1].copy().tobytes()).vector(named=True)[3] == 1.0
    assert Query(**fields).vector(named=True)[0] == 1.0, "without one, the embedding"
    assert Query(**fields, focused=unit[::-1].copy().tobytes()).vector()[0] == 1.0, "not named: the embedding"
    with pytest.raises(ValueError):
        Query(**fields, focused=np.ones(4, dtype="<f4").tobytes())
    with pytest.raises(ValueError):
        Query(**fields, focused=unit[:2].tobytes())


def test_a_question_term_is_a_term_or_a_bounded_group_of_them():
    from bus.messages import MAX_ALTERNATIVES, CollectionStats

    group = "ecg|ekg|electrocardiogram"
    back = codec.decode(codec.encode(make_query(terms=["patient", group], stats=CollectionStats(df={group: 3}))), Query)
    assert back.terms == ["patient", group] and back.stats.df == {group: 3}
    for bad in ("ecg||ekg", "|ecg", "|".join(["t"] * (MAX_ALTERNATIVES + 1)), "ecg|" + "x" * 65):
        body = msgpack.packb({**make_query().model_dump(), "terms": [bad]}, use_bin_type=True)
        with pytest.raises(ValidationError, match="group of terms"):
            codec.decode(body, Query)
