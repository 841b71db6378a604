"""Every exception fedrag raises on purpose, in one place.

Hierarchy::

    FedragError
    ├── SpecError            a federation spec, a node path or a CLI argument is wrong
    ├── WireError            a message could not be used; carries the ``type`` sent on the wire
    │   ├── DecodeError      the bytes are not a valid msgpack body (or exceed the size bound)
    │   ├── ValidationError  the body decodes but does not fit its pydantic model
    │   └── TooLargeError    a message to send would exceed the size bound
    ├── ModelMismatchError   a query was embedded with another model than the leaf's index
    ├── BrokerError          the nats-server binary could not be found, started or reached
    │   └── GatewayLost      the gateway answering a question went silent
    │       └── NoGatewayYet asked again, and no gateway serves the subject at this instant
    ├── AskError             the gateway answered a question with an error reply (its ``type``)
    ├── StoreError           a leaf's data file, saved documents or index are unreadable
    ├── DeniedError          a policy refused the caller at this node
    ├── ExpiredError         the request arrived after its budget had run out
    ├── BusyError            the request was refused for now; carries when to try again
    │   ├── OverloadedError  the node's queue is full, or the request waited too long in it
    │   └── RateLimitedError the caller asked more, or more at once, than their limits allow
    └── LLMError             an LLM endpoint failed, refused the request, or cannot be started
        └── LLMTimeoutError  an LLM call did not finish within its budget

A node that catches a :class:`WireError` (or any error while serving a request) answers with a
structured error reply (:class:`bus.messages.ErrorInfo`), never with a crash and never with
silence.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from bus.messages import ErrorInfo


class FedragError(Exception):
    """Base class of every fedrag error."""

    #: The ``type`` reported on the wire when this error is turned into an error reply.
    wire_type = "internal"


class SpecError(FedragError):
    """A federation spec, a node path or a command-line argument is invalid."""

    wire_type = "spec"


class WireError(FedragError):
    """A message received from the bus could not be used."""

    wire_type = "wire"


class DecodeError(WireError):
    """The bytes are not a well-formed msgpack map, or they exceed the size bound."""

    wire_type = "decode"


class ValidationError(WireError):
    """The body decoded but does not match its message model."""

    wire_type = "validation"


class TooLargeError(WireError):
    """A message to send packs to more than the size bound (e.g. too many long hits)."""

    wire_type = "too_large"


class ModelMismatchError(FedragError):
    """A query's embedding-model fingerprint differs from the one the leaf's index was built with."""

    wire_type = "model_mismatch"


class BrokerError(FedragError):
    """The nats-server binary could not be found, started, or reached."""

    wire_type = "broker"


class GatewayLost(BrokerError):
    """The gateway answering a question went silent (it died, or its connection did)."""


class NoGatewayYet(GatewayLost):
    """Asked again after a gateway went silent, and no gateway serves the subject at this instant (one may
    be renewing its connection)."""


class AskError(FedragError):
    """The gateway answered with an error reply: :attr:`error` is it, and its type the wire type."""

    def __init__(self, error: "ErrorInfo") -> None:
        again = f" (try again in {error.retry_after_ms / 1000.0:.2g} s)" if error.retry_after_ms else ""
        super().__init__(f"{error.type}: {error.reason}{again}")
        self.error = error
        self.wire_type = error.type

    @property
    def retry_after_ms(self) -> float | None:
        """When the gateway said to try again, for a refusal for now (``overloaded``, ``rate_limited``)."""
        return self.error.retry_after_ms


class StoreError(FedragError):
    """A leaf's stored documents or saved index cannot be read."""

    wire_type = "store"


class DeniedError(FedragError):
    """A policy refused the caller at this node."""

    wire_type = "denied"


class ExpiredError(FedragError):
    """The request arrived after its budget had run out."""

    wire_type = "expired"


class BusyError(FedragError):
    """A request refused for now, not for good: ``retry_after_ms`` says when trying again may succeed."""

    wire_type = "busy"

    def __init__(self, reason: str, retry_after_ms: float) -> None:
        super().__init__(reason)
        self.retry_after_ms = round(max(retry_after_ms, 1.0), 1)


class OverloadedError(BusyError):
    """The node is working on all the requests it takes at once and its queue is full (or the request
    waited in it longer than the node lets a request wait)."""

    wire_type = "overloaded"


class RateLimitedError(BusyError):
    """The caller asked more questions a minute, or more at once, than their limits allow."""

    wire_type = "rate_limited"


class LLMError(FedragError):
    """An LLM endpoint could not be reached, answered with an error, or could not be started locally.

    The message names the endpoint (never the API key), so that the caller can fall back to the
    extractive answer and say why.
    """

    wire_type = "llm"


class LLMTimeoutError(LLMError):
    """An LLM call (connect, first token and all tokens) did not finish within its budget."""

    wire_type = "llm_timeout"
