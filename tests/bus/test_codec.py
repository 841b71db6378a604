import msgpack
import numpy as np
import pytest

from bus import codec
from bus.errors import DecodeError, TooLargeError, ValidationError
from bus.messages import Coverage, NodeReport, Query, SearchResult


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
