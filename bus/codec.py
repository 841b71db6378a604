"""msgpack bodies validated by pydantic models, with bounded sizes.

:func:`encode` turns a model into bytes; :func:`decode` turns bytes back into a model and raises
:class:`~bus.errors.DecodeError` or :class:`~bus.errors.ValidationError` with a reason a person
can read, never a bare msgpack or pydantic exception.
"""

from __future__ import annotations

from typing import TypeVar

import msgpack
import pydantic

from bus.errors import DecodeError, TooLargeError, ValidationError

#: Upper bound of one message body: the default ``max_payload`` of nats-server (1 MiB).
MAX_BODY_BYTES = 1 << 20
#: Upper bound of a request's body (an ask or a query: at most an 8,000-character question, a vector
#: and the names it mentions), checked before anything is decoded.
MAX_REQUEST_BYTES = 128 << 10
#: The first byte of a msgpack map: a fixmap, a map 16 or a map 32. Every message is a map.
_MAP_MARKERS = frozenset(range(0x80, 0x90)) | {0xDE, 0xDF}

M = TypeVar("M", bound=pydantic.BaseModel)


def encode(model: pydantic.BaseModel, limit: int = MAX_BODY_BYTES) -> bytes:
    """Packs ``model`` as a msgpack map.

    Args:
        model: the message.
        limit: the largest body allowed (by default :data:`MAX_BODY_BYTES`; a reply passes what is
            left of the broker's maximum payload once its headers are counted).

    Raises:
        TooLargeError: if the packed body would exceed ``limit`` (the broker would refuse it, and
            close the connection that sent it; failing here names the cause).
    """
    body = msgpack.packb(model.model_dump(mode="python"), use_bin_type=True)
    if len(body) > limit:
        raise TooLargeError(f"{type(model).__name__} packs to {len(body)} bytes, over the {limit}-byte bound")
    return body


def check_shape(data: bytes, model: type[pydantic.BaseModel], max_bytes: int = MAX_BODY_BYTES) -> None:
    """What can be known of a body without decoding it: not empty, within ``max_bytes``, a msgpack map.

    Raises:
        DecodeError: it is not.
    """
    if not data:
        raise DecodeError(f"empty body where a {model.__name__} was expected")
    if len(data) > max_bytes:
        raise DecodeError(f"body of {len(data)} bytes exceeds the {max_bytes}-byte bound of a {model.__name__}")
    if data[0] not in _MAP_MARKERS:
        raise DecodeError(f"body is not a msgpack map (a {model.__name__} is one)")


def decode(data: bytes, model: type[M], max_bytes: int = MAX_BODY_BYTES) -> M:
    """Unpacks ``data`` and validates it as ``model``.

    Its shape is checked first (:func:`check_shape`); msgpack's own bounds keep the work in proportion
    to the body (no declared length beyond it, nesting at most msgpack's stack of 1,024 levels).

    Raises:
        DecodeError: the body is empty, too large, not msgpack, or not a map.
        ValidationError: the map does not fit ``model``.
    """
    check_shape(data, model, max_bytes)
    try:
        obj = msgpack.unpackb(data, raw=False, strict_map_key=True)
    except Exception as exc:  # msgpack raises several unrelated types for malformed input
        raise DecodeError(f"body is not valid msgpack: {type(exc).__name__}: {exc}") from None
    if not isinstance(obj, dict):
        raise DecodeError(f"body is a msgpack {type(obj).__name__}, expected a map for {model.__name__}")
    try:
        return model.model_validate(obj)
    except pydantic.ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in err['loc']) or '<body>'}: {err['msg']}" for err in exc.errors()[:5]
        )
        raise ValidationError(f"invalid {model.__name__}: {problems}") from None
