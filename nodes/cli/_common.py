"""What the command families share: defaults, the options several commands take, signing in, printing an answer."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from bus.client import ask
from bus.errors import SpecError
from bus.asking import AskRequest, OrgResult, Restarted
from bus.subjects import ASK
from nodes.run import render
from nodes.run.assemble import sign_in
from nodes.run.spec import FederationSpec
from policies.access import Credentials

DEFAULT_NATS = os.environ.get("FEDRAG_NATS_URL", "nats://127.0.0.1:4222")
DEFAULT_SPEC = os.environ.get("FEDRAG_SPEC")


def say(text: str) -> None:
    """Progress and advice, on stderr (stdout is for results)."""
    print(text, file=sys.stderr, flush=True)


def nats_option(p: argparse.ArgumentParser) -> None:
    p.add_argument("--nats", default=DEFAULT_NATS, help=f"broker URL (default {DEFAULT_NATS})")


def identity_options(p: argparse.ArgumentParser) -> None:
    """``--as USER`` (with ``--spec``) or ``--token FILE``: who asks."""
    who = p.add_mutually_exclusive_group()
    who.add_argument("--as", dest="as_user", metavar="USER", help="sign in as this user of --spec first")
    who.add_argument("--token", metavar="FILE", help="a token written by fedrag login (its .key beside it)")
    p.add_argument("--spec", default=DEFAULT_SPEC, help="the federation spec (for --as)")


def credentials(args) -> Credentials | None:
    """The caller's credentials from ``--token FILE`` or ``--as USER`` (with ``--spec``), or none."""
    if getattr(args, "token", None):
        return Credentials.load(Path(args.token))
    if getattr(args, "as_user", None):
        if not args.spec:
            raise SpecError("--as USER needs the federation's spec: --spec SPEC (or FEDRAG_SPEC)")
        return sign_in(FederationSpec.load(Path(args.spec)), args.as_user)
    return None


async def print_answer(nc, request: AskRequest, as_json: bool, creds: Credentials | None = None,
                       subject: str = ASK) -> int:
    """Asks, printing each organization's evidence and an LLM's sentences as they arrive, then the answer;
    returns the exit code (3 when the answer carries an error)."""
    streamed = False

    async def show(event):
        nonlocal streamed
        if as_json:
            return
        if isinstance(event, OrgResult):
            print(render.org_line(event), flush=True)
        elif isinstance(event, Restarted):  # the gateway died mid-question: asked again of another
            print(("\n" if streamed else "") + f"  ! {event.reason}; asking again (attempt {event.attempt + 1})", flush=True)
            streamed = False
        else:  # the next checked sentence of an answer an LLM is writing
            print(("" if streamed else "\nA: ") + event.text, end=" ", flush=True)
            streamed = True

    headers = (lambda: creds.headers(request.question)) if creds is not None else None  # a fresh proof per attempt
    answer = await ask(nc, request, on_event=show, headers=headers, subject=subject)
    if as_json:
        print(answer.model_dump_json(indent=2))
    else:
        if streamed:
            print()
        print(render.answer_text(answer, streamed=streamed))
    return 0 if answer.error is None else 3


def user_names(spec: FederationSpec | None) -> list[str]:
    """The names the spec's users sign in by (their ids where they have none)."""
    return [user.name or uid for uid, user in spec.users.items()] if spec else []
