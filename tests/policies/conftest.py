"""Keys, a trust list and a verifier over temporary state, for the identity tests."""

from __future__ import annotations

import pytest

from policies.keys import key_folder, org_key
from policies.proof import ClientKey
from policies.tokens import Scope, Trusted, TrustList, Verifier
from tests.helpers.tokens import AUDIENCE


@pytest.fixture
def state(tmp_path):
    org_key(tmp_path, "hospital_a")
    org_key(tmp_path, "hospital_b")
    return tmp_path


@pytest.fixture
def verifier(state):
    trust = TrustList({f"fedrag:{org}": Trusted(key_folder(state, org) / "jwks.json", Scope.of([org]))
                       for org in ("hospital_a", "hospital_b")})
    return Verifier(trust, AUDIENCE, leeway_s=5)


@pytest.fixture
def client_key():
    return ClientKey.generate()
