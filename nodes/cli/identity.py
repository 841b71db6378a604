"""Identities and access: ``fedrag login`` and ``fedrag explain``."""

from __future__ import annotations

import time
from pathlib import Path

from bus.errors import SpecError
from nodes.cli._common import DEFAULT_SPEC
from nodes.run.assemble import sign_in
from nodes.run.spec import FederationSpec
from policies.explain import explain, matrix_text


def add_commands(sub) -> None:
    p = sub.add_parser("login", help="development sign-in: write a token and its proof key for a spec's user")
    p.add_argument("user", help="a user id (U2) or name (A.phys) from the spec's [users] tables")
    p.add_argument("--spec", default=DEFAULT_SPEC, required=DEFAULT_SPEC is None)
    p.add_argument("--out", help="token file (default <state_dir>/tokens/<user>.token; the key goes beside it)")
    p.set_defaults(run=cmd_login)

    p = sub.add_parser("explain", help="the access matrix from the spec's policies, or why a user may or may not")
    p.add_argument("spec")
    p.add_argument("--user", help="explain for this user (id or name)")
    p.add_argument("--node", help="... at this node path only")
    p.set_defaults(run=cmd_explain)


async def cmd_login(args) -> int:
    spec = FederationSpec.load(Path(args.spec))
    uid, _ = spec.user(args.user)
    creds = sign_in(spec, args.user)
    path = creds.save(Path(args.out) if args.out else spec.federation.state_dir / "tokens" / f"{uid}.token")
    expires = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(time.time() + spec.identity.token_ttl_s))
    print(f"signed in as {uid}; token {path} (proof key beside it), valid until {expires}")
    return 0


async def cmd_explain(args) -> int:
    spec = FederationSpec.load(Path(args.spec))
    if not spec.users:
        raise SpecError(f"{spec.source} defines no [users.*] to explain access for")
    policies = spec.policies()
    people = {uid: spec.attributes(uid) for uid in spec.users}
    if not args.user:
        print(matrix_text(people, policies, {uid: u.name or uid for uid, u in spec.users.items()}))
        return 0
    uid, _ = spec.user(args.user)
    for path in [args.node] if args.node else list(policies):
        if path not in policies:
            raise SpecError(f"no node {path!r} in {spec.source}")
        print(explain(f"{uid} ({spec.users[uid].name})", people[uid], path, policies))
    caps = spec.limits.caps(people[uid], policies[args.node].limits if args.node else [])
    print(f"{uid} may read {caps.max_passages} passages a question and ask {caps.max_questions_per_minute} "
          f"questions a minute ({caps.source})")
    return 0
