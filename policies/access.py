"""Identities and policies as one federation process uses them: settings, gates, sign-in, credentials.

A federation spec turns identities on with an ``[identity]`` table and defines development users in
``[users.<id>]`` tables::

    [identity]
    audience = "fedrag:regional"   # default: fedrag:<federation name>
    token_ttl_s = 900

    [identity.trust."https://idp.hospital-a.example/realms/staff"]   # another issuer: an identity provider
    keys = "https://idp.hospital-a.example/realms/staff/certs"       # its JWKS URL, or a file
    orgs = ["hospital_a"]                                              # whose members it may sign
    vouches = {role = ["physician", "nurse"]}                          # values it may assert (optional)

    [identity.trust."fedrag:hospital_a"]   # an organization's own sign-in: keys and org are implied
    vouches = {affiliations = ["C_neuro"]}

    [users.U2]
    name = "A.phys"
    org = "hospital_a"
    role = "physician"
    dept = "medicine"
    affiliations = []

Each organization's own issuer, ``fedrag:<org>``, is always trusted, for members of ``<org>`` only; its
keys are read from the state directory when this site has them, and otherwise fetched over the bus
(``fed.keys.<org>``, which only that organization's broker user may serve). Every issuer vouches only
for what its entry allows (:class:`policies.tokens.Scope`): the organizations it names, and for
``affiliations`` — which reach across organizations — only the values its ``vouches`` lists. :class:`Access` builds each node's
:class:`~policies.gate.PolicyGate` (one :class:`~policies.tokens.Verifier` per process, one audit log
per organization) and signs users in (:meth:`Access.sign_in`).
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, model_validator

from bus import headers as h
from bus._system import write_atomically
from bus.connection import connect
from bus.errors import DeniedError, SpecError
from policies import broker, proof
from policies._jose import segment
from policies.abac import NodePolicy
from policies.audit import AuditLog
from policies.gate import PolicyGate
from policies.broker import user_inbox
from policies.keys import key_folder, org_key
from policies.limits import Limits
from policies.proof import ClientKey
from policies.tokens import Scope, Trusted, TrustList, Verifier, issue


class TrustEntry(BaseModel):
    """One ``[identity.trust."<issuer>"]`` table: an issuer's keys and what it may vouch for.

    For an organization's own issuer (``fedrag:<org>``) ``keys`` and ``orgs`` are implied and only
    ``vouches`` may be given; any other issuer needs both.
    """

    model_config = ConfigDict(extra="forbid")

    keys: str | None = None
    orgs: list[str] = Field(default_factory=list)
    vouches: dict[str, list[str]] = Field(default_factory=dict)

    @model_validator(mode="before")
    @classmethod
    def _not_a_bare_url(cls, value):
        if isinstance(value, str):
            raise ValueError("an issuer is a table naming its key set and the organizations it speaks for: "
                             f'keys = "{value[:80]}", orgs = ["<org>", ...]')
        return value

    def scope(self, org: str | None = None) -> Scope:
        """What this issuer may vouch for (``org``: the organization whose own issuer it is)."""
        return Scope.of([org] if org else self.orgs, self.vouches)


class IdentitySettings(BaseModel):
    """The ``[identity]`` table of a federation spec."""

    model_config = ConfigDict(extra="forbid")

    audience: str | None = None
    token_ttl_s: int = Field(900, ge=10, le=86_400)
    leeway_s: int = Field(30, ge=0, le=600)
    proof_window_s: int = Field(120, ge=5, le=3_600)
    audit_questions: bool = False
    trust: dict[str, TrustEntry] = Field(default_factory=dict)

    def check(self, orgs: list[str]) -> None:
        """Checks the trust list against the federation's organizations.

        Raises:
            ValueError: an organization's own issuer given keys or organizations, another issuer without
                them, or naming an organization that is not in the federation.
        """
        own = {issuer(org): org for org in orgs}
        for name, entry in self.trust.items():
            where = f"identity.trust.{name!r}"
            if name.startswith("fedrag:") and name not in own:
                raise ValueError(f"{where}: {name[7:]!r} is not an organization of this federation")
            if name in own:
                if entry.keys is not None or entry.orgs not in ([], [own[name]]):
                    raise ValueError(f"{where}: an organization's own issuer has its keys and organization "
                                     "implied; give only 'vouches'")
                continue
            if not entry.keys or not entry.orgs:
                raise ValueError(f"{where}: name its key set ('keys') and the organizations it speaks for ('orgs')")
            unknown = [org for org in entry.orgs if org not in orgs]
            if unknown:
                raise ValueError(f"{where}: {', '.join(unknown)} is not an organization of this federation")

    def scope(self, org: str) -> Scope:
        """What organization ``org``'s own issuer may vouch for."""
        return self.trust.get(issuer(org), TrustEntry()).scope(org)


class UserSpec(BaseModel):
    """A development user (``[users.<id>]``): the claims ``fedrag login`` signs."""

    model_config = ConfigDict(extra="forbid")

    name: str = ""
    org: str
    role: str
    dept: str = ""
    affiliations: list[str] = Field(default_factory=list)


def issuer(org: str) -> str:
    """The issuer of an organization's development sign-in."""
    return f"fedrag:{org}"


async def connect_as(url: str, name: str, creds: "Credentials | None", timeout: float = 10.0, **options):
    """A client connection: as the person's own broker user and on their own inbox when signed in.

    ``options`` go to :func:`bus.connection.connect` (e.g. ``disconnected_cb``).
    """
    if creds is None:
        return await connect(url, name, timeout=timeout, **options)
    if creds.broker.get("user") and "@" in url:
        scheme, rest = url.split("://", 1)
        url = f"{scheme}://{rest.split('@', 1)[1]}"  # the person's own broker user, not the URL's
    return await connect(url, name, timeout=timeout, **creds.connect_options(), **options)


class Credentials:
    """A signed-in user: the token, the key that proves each question, and (optionally) broker credentials.

    Attributes:
        broker: the ``nats.connect`` options of the person's own broker user (user, password,
            inbox prefix), when the site issued them.
    """

    def __init__(self, token: str, key: ClientKey, broker: dict | None = None) -> None:
        self.token = token
        self.key = key
        self.broker = dict(broker or {})

    def headers(self, question: str) -> dict[str, str]:
        """The headers that carry these credentials with ``question`` (a fresh proof every time)."""
        return {h.AUTHORIZATION: f"Bearer {self.token}",
                **{header: self.key.prove(question, use=use) for use, header in h.PROOFS.items()}}

    @property
    def claims(self) -> dict:
        """The token's claims as written (unverified: what this person says of themselves, for display)."""
        return segment(self.token, 1)

    @property
    def inbox_prefix(self) -> str:
        """Where answers to this person go: the gateway answers nowhere else (:func:`policies.broker.user_inbox`)."""
        claims = self.claims
        return user_inbox(str(claims.get("iss", "")), str(claims.get("sub", "")))

    def connect_options(self) -> dict:
        """``nats.connect`` options for this person: their broker user if any, and always their inbox prefix."""
        return {**self.broker, "inbox_prefix": self.inbox_prefix}

    def save(self, token_path: Path) -> Path:
        """Writes the token to ``token_path``, its key (``.key``) and broker credentials (``.broker.json``) beside it, 0600."""
        token_path = Path(token_path)
        self.key.save(token_path.with_suffix(".key"))
        if self.broker:
            write_atomically(token_path.with_suffix(".broker.json"), json.dumps(self.broker))
        write_atomically(token_path, self.token + "\n")
        return token_path

    @classmethod
    def load(cls, token_path: Path) -> "Credentials":
        """Reads a token file and the key (and broker credentials, if any) beside it.

        Raises:
            SpecError: a file is missing, unreadable or malformed (one line naming it).
        """
        token_path = Path(token_path)
        try:
            token = token_path.read_text().strip()
        except OSError as exc:
            raise SpecError(f"{token_path}: cannot read the token ({exc.strerror})") from None
        try:
            key = ClientKey.load(token_path.with_suffix(".key"))
        except DeniedError as exc:
            raise SpecError(str(exc)) from None
        if token.count(".") != 2:
            raise SpecError(f"{token_path}: not a token (expected a JWT)")
        broker_file = token_path.with_suffix(".broker.json")
        try:
            broker = json.loads(broker_file.read_text()) if broker_file.exists() else {}
        except (OSError, ValueError):
            raise SpecError(f"{broker_file}: not readable broker credentials") from None
        return cls(token, key, broker)


class Access:
    """Identities and policies for one process of a federation.

    Args:
        settings: the spec's ``[identity]`` table.
        federation: the federation's name (the default audience).
        orgs: the organizations (each one's issuer is trusted).
        state_dir: where organizations keep their keys and audit logs.
        limits: what one person may ask and read (``[limits]``), held by every gate.
    """

    def __init__(self, settings: IdentitySettings, *, federation: str, orgs: list[str], state_dir: Path,
                 limits: Limits | None = None) -> None:
        self.settings = settings
        self.limits = limits or Limits()
        self.audience = settings.audience or f"fedrag:{federation}"
        self.state_dir = Path(state_dir)
        self._fetch: Callable[[str], Awaitable[dict]] | None = None
        issuers = {issuer(org): Trusted(self._org_keys(org), settings.scope(org)) for org in orgs}
        issuers.update({name: Trusted(entry.keys, entry.scope()) for name, entry in settings.trust.items()
                        if name not in issuers})
        self.verifier = Verifier(TrustList(issuers), self.audience, leeway_s=settings.leeway_s)
        self._audits: dict[str, AuditLog] = {}

    def fetch_keys_with(self, fetch: Callable[[str], Awaitable[dict]]) -> None:
        """How to get an organization's public keys over the bus when this site has no copy."""
        self._fetch = fetch

    def _org_keys(self, org: str) -> Callable[[], Awaitable[dict]]:
        async def load() -> dict:
            path = key_folder(self.state_dir, org) / "jwks.json"
            if path.exists():
                return json.loads(path.read_text())
            if self._fetch is None:
                raise DeniedError(f"the keys of {org} are neither on this site nor reachable over the bus")
            return await self._fetch(org)
        return load

    def audit(self, org: str) -> AuditLog:
        """The organization's audit log, ``<state_dir>/audit/<org>.jsonl``."""
        if org not in self._audits:
            self._audits[org] = AuditLog(self.state_dir / "audit" / f"{org}.jsonl",
                                         include_question=self.settings.audit_questions)
        return self._audits[org]

    def gate(self, org: str, policy: NodePolicy) -> PolicyGate:
        """A node's gate: this process's verifier, the node's policies, its organization's audit log."""
        return PolicyGate(self.verifier, policy, audit=self.audit(org),
                          replay=proof.ReplayCache(window_s=self.settings.proof_window_s), limits=self.limits)

    def sign_in(self, user_id: str, user: UserSpec) -> Credentials:
        """Development sign-in: a token for ``user`` signed with its organization's key (created if needed),
        with the person's broker credentials when this site has them."""
        key = ClientKey.generate()
        token = issue(org_key(self.state_dir, user.org), audience=self.audience, issuer=issuer(user.org),
                      jkt=key.thumbprint, ttl_s=self.settings.token_ttl_s,
                      user={"sub": user_id, "org": user.org, "role": user.role, "dept": user.dept,
                            "affiliations": user.affiliations})
        options = broker.connect_options(self.state_dir, broker.person_user(user_id), {user_id: issuer(user.org)})
        return Credentials(token, key, {k: v for k, v in options.items() if k != "inbox_prefix"})

    def close(self) -> None:
        for log in self._audits.values():
            log.close()
