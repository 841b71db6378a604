"""A signed token for the identity unit tests (``tests/policies``): a physician of an organization whose
key is in temporary state, for the audience the tests' verifier expects."""

from __future__ import annotations

from policies.keys import org_key
from policies.tokens import issue

AUDIENCE = "fedrag:test"


def token_for(state, client_key, org="hospital_a", **overrides):
    """A token for user U2 of ``org``, bound to ``client_key``; ``overrides`` replace options of :func:`issue`."""
    user = {"sub": "U2", "org": org, "role": "physician", "dept": "medicine", "affiliations": []}
    options = {"issuer": f"fedrag:{org}", "audience": AUDIENCE, "jkt": client_key.thumbprint, "ttl_s": 600}
    options.update(overrides)
    return issue(org_key(state, org), user=user, **options)
