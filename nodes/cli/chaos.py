"""Faults, load and floods (:mod:`nodes.chaos`): ``fedrag chaos``, ``fedrag load`` and ``fedrag flood``.

Each runs against the demo federation it starts itself (the default) or against a running one named by
``--nats`` and ``--spec``, asking the spec's questions as its users.
"""

from __future__ import annotations

import argparse
import contextlib
import socket
from pathlib import Path

from bus.errors import SpecError
from nodes.cli._common import DEFAULT_SPEC, say
from nodes.demo.federation import STATE_DIR, prepare
from nodes.run.assemble import sign_in
from nodes.run.federation import default_gateways, gateway_units, launched, one_per_org
from nodes.run.questions import question_set
from nodes.run.spec import FederationSpec


def add_commands(sub, spec_default: str | None = DEFAULT_SPEC) -> None:
    """Adds ``chaos``, ``load`` and ``flood`` to the ``fedrag`` subcommands ``sub``."""
    from nodes.chaos.scenarios import SCENARIOS

    p = sub.add_parser("chaos", help="inject faults while questions stream in; check every answer",
                       description="Runs a scenario (or all) while clients ask questions as the spec's users, checks "
                       "every answer (deadline, denied data, truthful coverage, no collateral failure) and how soon "
                       "full coverage returns; prints the report. Exits 4 if any invariant was violated. With no "
                       "--nats it starts the demo federation in the chaos layout on a broker of its own.")
    p.add_argument("scenario", choices=["all", *SCENARIOS], help="the scenario, or all")
    _target_options(p, spec_default, "a running federation's broker (its processes on this host; default: start the demo)")
    p.add_argument("--clients", type=int, default=3, help="concurrent clients (default 3)")
    p.add_argument("--before", type=float, default=2.0, help="seconds of questions before the fault (default 2)")
    p.add_argument("--hold", type=float, default=5.0, help="seconds the fault lasts (default 5)")
    p.add_argument("--after", type=float, default=3.0, help="seconds of questions once recovered (default 3)")
    p.set_defaults(run=cmd_chaos)

    p = sub.add_parser("load", help="many clients asking at once: throughput, latency, lost replies; --soak for memory",
                       description="Closed-loop clients (each asks again as soon as it is answered) at each concurrency "
                       "of --clients; prints answers per second, p50/p99 latency, answers past their deadline, "
                       "incomplete answers and lost replies (no answer at all), and with --soak the memory of every "
                       "process of the federation before and after. Exits 4 if any reply was lost. With no --nats it "
                       "starts the demo federation (a process per organization and --gateways gateway processes).")
    _target_options(p, spec_default, "a running federation's broker (default: start the demo)")
    p.add_argument("--clients", default="1,4,16", help="concurrencies to measure, e.g. 1,4,16 (default)")
    p.add_argument("--seconds", type=float, default=10.0, help="seconds per concurrency (default 10)")
    p.add_argument("--soak", type=float, metavar="SECONDS", help="then run this long at the highest concurrency and "
                   "report every process's memory growth")
    p.add_argument("--answer-every", type=int, default=0, metavar="N", help="every Nth question asks for an extractive "
                   "answer and summaries (default 0: evidence only)")
    p.set_defaults(run=cmd_load)

    p = sub.add_parser("flood", help="one signed-in user floods fed.ask with malformed and oversized asks while "
                       "another asks every 200 ms", description="A flooder process sends --count malformed, oversized "
                       "and bulk asks as one user (--as) while another user (--honest) asks every 200 ms; prints how the "
                       "honest answers fared (by the deadline, full coverage, p50/p99) and the flood's replies by kind. "
                       "Exits 4 if an honest question went unanswered by its deadline. With no --nats it starts the demo "
                       "federation (a process per organization and --gateways gateway processes).")
    _target_options(p, spec_default, "a running federation's broker (default: start the demo)")
    p.add_argument("--count", type=int, default=20_000, help="flood messages (default 20000)")
    p.add_argument("--as", dest="as_user", default="B.nurse", help="the flooding user (default B.nurse)")
    p.add_argument("--honest", default="A.phys.neur", help="the user asking meanwhile (default A.phys.neur)")
    p.add_argument("--rate", type=float, default=0.0, help="flood messages a second (default: as fast as the flooder "
                   "can send them)")
    p.set_defaults(run=cmd_flood)


def _target_options(p: argparse.ArgumentParser, spec_default: str | None, nats_help: str) -> None:
    """The options both commands share: which federation, which questions, as whom, by when."""
    p.add_argument("--nats", help=nats_help)
    p.add_argument("--spec", default=spec_default, help="with --nats: the running federation's spec")
    p.add_argument("--state-dir", default=STATE_DIR, help=f"without --nats: where the demo lives (default {STATE_DIR})")
    p.add_argument("--questions", help="the questions to ask (default: corpus/questions.json beside the spec)")
    p.add_argument("--user", action="append", default=[], help="ask as this user (repeatable; default: every user)")
    p.add_argument("--deadline-ms", type=int, help="each question's deadline (default: the spec's)")
    p.add_argument("--gateways", type=int, default=default_gateways(), metavar="N", help="without --nats: gateway "
                   f"processes sharing fed.ask (default {default_gateways()} on this machine: one per two cores)")


def _spec(args, load: bool = False) -> FederationSpec:
    """The running federation's spec with ``--nats``, else the demo's (written if needed; ``load``: with the
    limits of load tests, :data:`nodes.demo.access.LOAD_LIMITS`)."""
    if not args.nats:
        return FederationSpec.load(prepare(Path(args.state_dir).resolve(), load=load))
    if not args.spec:
        raise SpecError("--nats URL needs the running federation's spec: --spec SPEC (or FEDRAG_SPEC)")
    return FederationSpec.load(Path(args.spec))


def _asking(args, spec: FederationSpec) -> tuple[list[str], list]:
    """The questions to ask and the users to ask them as (every user of the spec by default)."""
    users = [spec.user(user)[0] for user in args.user] or list(spec.users) or [None]
    return question_set(spec, args.questions), users


async def cmd_chaos(args) -> int:
    from nodes.chaos import scenarios
    from nodes.chaos.lab import Lab

    names = list(scenarios.SCENARIOS) if args.scenario == "all" else [args.scenario]
    spec = _spec(args)
    questions, users = _asking(args, spec)
    if args.nats:
        owned_only = [name for name in names if scenarios.SCENARIOS[name].owned_only]
        if owned_only and args.scenario != "all":
            raise SpecError(f"{args.scenario} needs a federation this command starts (run it without --nats)")
        if owned_only:
            say(f"skipping {', '.join(owned_only)}: they need a federation this command starts (without --nats)")
        names = [name for name in names if name not in owned_only]
        lab = await Lab.join(spec, args.nats)
    else:
        say(f"starting the demo federation in the chaos layout ({len(spec.orgs)} organizations; a process per "
             "faulty part, two gateways) on a broker of its own…")
        lab = await Lab.start(spec, verbose=args.verbose)
    outcomes = []
    try:
        for name in names:
            outcome = await scenarios.run(lab, scenarios.SCENARIOS[name], questions, users, clients=args.clients,
                                          deadline_ms=args.deadline_ms or spec.federation.deadline_ms,
                                          before_s=args.before, hold_s=args.hold, after_s=args.after, say=say)
            outcomes.append(outcome)
            say(f"  {len(outcome.queries)} queries, {len(outcome.violations)} violations, recovery "
                 + (f"{outcome.recovery_s:.1f} s" if outcome.recovery_s is not None else "never"))
    finally:
        await lab.stop()
    print(scenarios.report(outcomes))
    return 0 if not any(o.violations for o in outcomes) else 4


async def cmd_load(args) -> int:
    from nodes.chaos import load

    levels = _counts(args.clients)
    spec = _spec(args, load=True)  # each client asks as one person, back to back: within limits made for that
    questions, users = _asking(args, spec)
    async with contextlib.AsyncExitStack() as stack:
        url = await _federation(args, spec, stack)
        asked = "an extractive answer every " + str(args.answer_every) if args.answer_every else "evidence only"
        say(f"warming up ({max(levels)} clients, 2 s); questions ask for {asked}, deadline "
             f"{args.deadline_ms or spec.federation.deadline_ms} ms")
        options = dict(deadline_ms=args.deadline_ms, answer_every=args.answer_every)
        await load.load(spec, url, questions, users, clients=max(levels), seconds=2.0, **options)
        results = []
        for clients in levels:
            say(f"{clients} clients for {args.seconds:.0f} s…")
            results.append(await load.load(spec, url, questions, users, clients=clients, seconds=args.seconds, **options))
        if args.soak:
            names = await load.processes(url, socket.gethostname())
            before = {pid: load.rss_mb(pid) for pid in names}
            say(f"soak: {max(levels)} clients for {args.soak:.0f} s, memory of {len(names)} processes sampled before and after…")
            soaked = await load.load(spec, url, questions, users, clients=max(levels), seconds=args.soak, **options)
            after = {pid: load.rss_mb(pid) for pid in names}
            results.append(soaked)
    print(load.load_report(results))
    if args.soak:
        print(load.memory_report(names, before, after, len(soaked.queries)))
    return 4 if any(r.lost for r in results) else 0


async def cmd_flood(args) -> int:
    from nodes.chaos import flood

    if args.count < 1:
        raise SpecError(f"--count {args.count}: expected a positive number of messages")
    spec = _spec(args)
    if spec.identity is None:
        raise SpecError(f"{spec.source} has no [identity] table: a flood by one signed-in user needs identities")
    flooder, honest = sign_in(spec, args.as_user), sign_in(spec, args.honest)
    async with contextlib.AsyncExitStack() as stack:
        url = await _federation(args, spec, stack)
        say(f"flooding fed.ask with {args.count} messages as {args.as_user} while {args.honest} asks every 200 ms…")
        report = await flood.run(url, flooder, honest, args.count, rate=max(args.rate, 0.0),
                                 deadline_ms=args.deadline_ms or spec.federation.deadline_ms)
    print(report.text())
    return 0 if report.by_deadline == report.asked else 4


async def _federation(args, spec: FederationSpec, stack: contextlib.AsyncExitStack) -> str:
    """The broker URL of the federation to act on: ``--nats``, or the demo started here (a process per
    organization and ``--gateways`` gateway processes), stopped when ``stack`` closes."""
    if args.nats:
        return args.nats
    units = [*one_per_org(spec), *gateway_units(args.gateways)]
    say(f"starting the demo federation: {len(spec.orgs)} organization processes and {args.gateways} gateway process(es)…")
    running = await stack.enter_async_context(launched(spec, units=units, verbose=False))
    return running.client_url


def _counts(text: str) -> list[int]:
    try:
        counts = [int(part) for part in text.split(",") if part.strip()]
    except ValueError:
        counts = []
    if not counts or min(counts) < 1:
        raise SpecError(f"--clients {text!r}: expected positive numbers separated by commas, e.g. 1,4,16")
    return counts
