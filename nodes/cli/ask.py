"""Asking a running federation: ``fedrag ask``, ``tui``, ``status`` and ``compare``."""

from __future__ import annotations

import json
import os
from pathlib import Path

from bus.client import ask, discover, missing
from bus.connection import connect
from bus.errors import SpecError
from bus.asking import AskRequest
from bus.subjects import ask_subject, query_subject
from nodes.cli._common import credentials, identity_options, nats_option, print_answer, say, user_names
from nodes.run import render
from nodes.run.assemble import sign_in
from nodes.run.questions import question_set
from nodes.run.spec import FederationSpec
from policies.access import Credentials, connect_as
from policies.explain import access as reach


def add_commands(sub) -> None:
    p = sub.add_parser("ask", help="ask a running federation")
    p.add_argument("question")
    nats_option(p)
    p.add_argument("--json", action="store_true", help="print the whole result as JSON")
    p.add_argument("--deadline-ms", type=int, help="the question's time budget")
    p.add_argument("--k", type=int, help="hits to return")
    p.add_argument("--fetch-k", type=int, help="candidates each leaf takes before filtering")
    p.add_argument("--no-partial", action="store_true", help="fail unless every unit answers")
    p.add_argument("--min-coverage", type=float, default=0.0, help="fail below this share of units answering")
    p.add_argument("--no-collapse", action="store_true", help="show every copy of copied-forward text")
    answer = p.add_mutually_exclusive_group()
    answer.add_argument("--no-answer", action="store_true", help="only the evidence, no cited answer")
    answer.add_argument("--llm", action="store_true", help="have the federation's LLM write the answer (streamed as "
                        "it is written; the extractive answer stands in if it fails)")
    p.add_argument("--via", metavar="ORG", help="ask through this organization's own gateway (fed.ask.ORG)")
    mode_option(p)
    identity_options(p)
    p.set_defaults(run=cmd_ask)

    p = sub.add_parser("tui", help="the terminal client; with no --nats it starts the demo federation itself")
    p.add_argument("--nats", default=os.environ.get("FEDRAG_NATS_URL"), help="a running federation's broker "
                   "(default $FEDRAG_NATS_URL; none: start the demo)")
    p.add_argument("--llm", action="store_true", help="have the federation's LLM write the answers")
    p.add_argument("--deadline-ms", type=int, help="each question's time budget")
    identity_options(p)
    p.set_defaults(run=cmd_tui)

    p = sub.add_parser("status", help="show the live federation; exits 1 if a node is missing")
    nats_option(p)
    p.add_argument("--spec", help="also expect every node of this federation spec")
    p.add_argument("--json", action="store_true")
    p.add_argument("--wait-ms", type=int, default=500, help="how long to collect replies")
    p.set_defaults(run=cmd_status)

    p = sub.add_parser("compare", help="federated vs centralized top-k on a question set")
    p.add_argument("spec")
    nats_option(p)
    p.add_argument("--questions", help="a JSON list of questions, or a text file with one a line "
                   "(default: corpus/questions.json beside the spec)")
    p.add_argument("--k", type=int)
    mode_option(p)
    who = p.add_mutually_exclusive_group()
    who.add_argument("--as", dest="as_user", metavar="USER", help="compare what this user gets (default: a user "
                     "every node admits)")
    who.add_argument("--token", metavar="FILE")
    p.set_defaults(run=cmd_compare)


async def cmd_ask(args) -> int:
    request = AskRequest(question=args.question, k=args.k, fetch_k=args.fetch_k, deadline_ms=args.deadline_ms,
                         allow_partial=not args.no_partial, min_coverage=args.min_coverage, collapse=not args.no_collapse,
                         summarize="none" if args.no_answer else "llm" if args.llm else "extractive", mode=args.mode)
    creds = credentials(args)
    nc = await connect_as(args.nats, "fedrag-cli", creds, timeout=3.0)
    try:
        return await print_answer(nc, request, args.json, creds, ask_subject(args.via))
    finally:
        await nc.drain()


async def cmd_tui(args) -> int:
    from tui.app import FedragApp

    spec = FederationSpec.load(Path(args.spec)) if args.spec else None
    options = dict(summarize="llm" if args.llm else "extractive", deadline_ms=args.deadline_ms)
    if args.nats:
        await FedragApp(args.nats, credentials(args), users=user_names(spec), **options,
                        sign_in=(lambda user: sign_in(spec, user)) if spec and spec.identity else None).run_async()
        return 0
    from nodes.demo.federation import DEMO_USER, STATE_DIR, prepare
    from nodes.run.federation import launched

    spec = FederationSpec.load(prepare(Path(STATE_DIR).resolve()))
    say("starting the demo federation for the terminal client (fedrag tui --nats URL joins a running one)…")
    async with launched(spec, processes=False, verbose=False) as running:
        creds = Credentials.load(Path(args.token)) if args.token else sign_in(spec, args.as_user or DEMO_USER)
        await FedragApp(running.client_url, creds, users=user_names(spec), **options,
                        sign_in=lambda user: sign_in(spec, user)).run_async()
    return 0


async def cmd_status(args) -> int:
    expected = [query_subject(path) for path, _ in FederationSpec.load(Path(args.spec)).nodes()] if args.spec else []
    nc = await connect(args.nats, "fedrag-cli", timeout=3.0)
    try:
        nodes = await discover(nc, timeout=args.wait_ms / 1000.0)
    finally:
        await nc.drain()
    absent = missing(nodes, expected)
    if args.json:
        print(json.dumps({"nodes": [node.to_dict() for node in nodes], "missing": absent}, indent=2))
    else:
        print(render.status_text(nodes, absent))
    return 0 if nodes and not absent else 1


async def cmd_compare(args) -> int:
    from nodes.run.baseline import CentralIndex, intersection

    spec = FederationSpec.load(Path(args.spec))
    questions = question_set(spec, args.questions)
    k = args.k or spec.federation.k
    creds = credentials(args)
    if creds is None and spec.identity is not None:
        user = _sees_everything(spec)
        say(f"comparing as {user}, who may search every node")
        creds = sign_in(spec, user)
    central = CentralIndex.from_spec(spec)
    nc = await connect_as(args.nats, "fedrag-compare", creds)
    scores, identical = [], 0
    try:
        for question in questions:
            answer = await ask(nc, AskRequest(question=question, k=k, include_embedding=True, mode=args.mode),
                               headers=(lambda q=question: creds.headers(q)) if creds else None)
            # the central index is searched with the very vector, terms and patient filter the gateway used
            expected = central.as_answered(answer, args.mode, k)
            score = intersection(answer.hits, expected)
            same = [(h.path, h.id, h.score) for h in answer.hits] == [(h.path, h.id, h.score) for h in expected]
            scores.append(score)
            identical += same
            print(f"{score:5.2f}  {'' if same else '(order or scores differ) '}{'PARTIAL ' if answer.partial else ''}"
                  f"{question}")
    finally:
        await nc.drain()
    mean = sum(scores) / len(scores) if scores else 0.0
    print(f"mean intersection@{k} over {len(scores)} questions: {mean:.3f}; identical order and scores: "
          f"{identical}/{len(scores)}")
    return 0 if mean == 1.0 else 4


def mode_option(p) -> None:
    default = AskRequest.model_fields["mode"].default
    p.add_argument("--mode", choices=["dense", "lexical", "hybrid"], default=default,
                   help=f"rank by the question's embedding, by BM25 over its words, or both fused (default {default})")


def _sees_everything(spec: FederationSpec) -> str:
    """A user every node of the spec admits (the centralized baseline has no policies to compare with)."""
    policies = spec.policies()
    for uid in spec.users:
        attributes = spec.attributes(uid)
        if all(reach(attributes, path, policies).allowed and not policies[path].documents for path in policies):
            return uid
    raise SpecError(f"no user of {spec.source} may search every node; compare with --as USER to compare what one sees")
