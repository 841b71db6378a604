"""Reading a compact JWS's header or payload before its signature is checked (to pick a key or refuse early)."""

from __future__ import annotations

import base64
import json

from bus.errors import DeniedError


def segment(token: str, index: int) -> dict:
    """The JSON object in part ``index`` of a compact JWS (0: header, 1: payload), unverified.

    Raises:
        DeniedError: the token is not three dot-separated base64url JSON parts.
    """
    parts = token.split(".")
    try:
        if len(parts) != 3:
            raise ValueError
        part = parts[index]
        value = json.loads(base64.urlsafe_b64decode(part + "=" * (-len(part) % 4)))
    except ValueError:
        raise DeniedError("not a well-formed JWS") from None
    if not isinstance(value, dict):
        raise DeniedError("not a well-formed JWS")
    return value
