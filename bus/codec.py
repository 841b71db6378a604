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


def decode(data: bytes, model: type[M]) -> M:
    """Unpacks ``data`` and validates it as ``model``.

    Raises:
        DecodeError: the body is empty, too large, not msgpack, or not a map.
        ValidationError: the map does not fit ``model``.
    """
    if not data:
        raise DecodeError(f"empty body where a {model.__name__} was expected")
    if len(data) > MAX_BODY_BYTES:
        raise DecodeError(f"body of {len(data)} bytes exceeds the {MAX_BODY_BYTES}-byte bound")
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
