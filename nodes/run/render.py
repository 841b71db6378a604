"""Plain-text rendering of answers and of the live federation, for the terminal."""

from __future__ import annotations

import textwrap

from bus.client import Node
from bus.messages import Summary
from bus.asking import Answer, AnswerInfo, OrgResult, folded_heading
from summarizer.answer import record_of


def org_line(event: OrgResult) -> str:
    """One line for an organization's streamed result."""
    cov = event.result.coverage if event.result else None
    parts = f"{cov.successful}/{cov.total} units" if cov else (event.report.error.reason if event.report.error else "")
    return f"  · {event.org:<14} {event.report.status:<11} {event.report.hits:>3} hits  {event.report.took_ms:7.1f} ms  {parts}"


def answer_info_line(info: AnswerInfo) -> str:
    """How the answer was made, in a few words."""
    if info.method == "llm":
        said = "written by the LLM from the passages, every sentence cited and checked"
        if info.confidence is not None:
            said += f", confidence {info.confidence:.2f}"
        if info.dropped:
            said += f", {info.dropped} sentence(s) their citations did not bear out left out"
        return f"({said})"
    if info.status == "fallback":
        return f"(extractive: sentences quoted from the passages; the LLM's answer was not used: {info.reason})"
    if info.status == "timed_out":
        return f"(no answer: {info.reason})"
    if info.status == "insufficient":
        return f"({info.reason})" if info.reason else ""
    return "(extractive: sentences quoted word for word from the passages they cite)"


def summary_lines(summary: Summary, answer: Answer, width: int) -> list[str]:
    """A router's summary: what it read, then its sentences with the hits (``[n]``) or passages they come from."""
    place = {(hit.path, hit.id): n for n, hit in enumerate(answer.cited(), 1)}
    head = (f"Summary of {summary.path} ({summary.method}, {summary.status}; "
            f"{summary.relevant} of {summary.passages} passages relevant")
    head += f", confidence {summary.confidence:.2f})" if summary.confidence is not None else ")"
    lines = [head]
    if summary.error:
        lines.append(f"   {summary.error.reason}")
    for sentence in summary.sentences:
        cited = ", ".join(f"[{place[(r.path, r.id)]}]" if (r.path, r.id) in place
                          else r.id if r.id.startswith(r.path) else f"{r.path}/{r.id}" for r in sentence.sources)
        about = f"{', '.join(sentence.patients)}: " if sentence.patients else ""
        lines += textwrap.wrap(f"{about}{sentence.text} ({cited})", width, initial_indent="   - ", subsequent_indent="     ")
    for n, cluster in enumerate(summary.clusters, 1):
        if cluster.keywords:
            lines.append(f"   cluster {n}: {', '.join(cluster.keywords)} ({len(cluster.sources)} passages)")
    return lines


def summary_says_something(summary: Summary, answer: str) -> bool:
    """Whether a summary is worth a paragraph under an ``answer`` (folded): it says something, or why it does not —
    unless it read no passage at all, or was withdrawn for the reason the answer already gives."""
    if summary.sentences:
        return True
    if summary.passages == 0 and summary.error is None:
        return False
    return not (summary.error is not None and summary.error.type == "ungrounded" and summary.error.reason.casefold() in answer)


def answer_text(answer: Answer, width: int = 100, snippet_chars: int = 220, streamed: bool = False) -> str:
    """A readable report: the answer, the routers' summaries, the hits, then coverage and every node that did not succeed.

    Args:
        streamed: the answer's sentences were already printed as they were written (only how it was
            made is said again).
    """
    lines = [f"Q: {answer.question}"]
    if answer.read_as:
        lines.append(f"   read as the records spell it: {answer.respelled()}")
    if answer.patients:
        where = "; ".join(f"{name}: {', '.join(answer.names[name])}" for name in answer.patients if name in answer.names)
        lines.append(f"   patient filter: {', '.join(answer.patients)}" + (f" (held by {where})" if where else " (no records)"))
    if answer.error:
        lines.append(f"   ERROR {answer.error.type}: {answer.error.reason}")
    info = answer.answer_info
    if answer.answer and not (streamed and info is not None and info.method == "llm"):
        lines.append("")
        for n, line in enumerate(answer.answer.splitlines()):
            lines += textwrap.wrap(line, width, initial_indent="A: " if n == 0 else "   ", subsequent_indent="   ")
    said = (answer.answer or "").casefold()
    if info is not None and answer_info_line(info) and not (info.status == "insufficient" and info.reason.casefold() in said):
        lines += textwrap.wrap(answer_info_line(info), width, initial_indent="   ", subsequent_indent="    ")
    if answer.absent and not answer.closest:  # said under the answer, which answers only the rest of the question
        lines.append(f"   (no record mentions {' or '.join(answer.absent)})")
    for summary in answer.summaries:
        if summary_says_something(summary, said):
            lines += ["", *summary_lines(summary, answer, width)]
    lines.append("")
    falls_short = answer.falls_short()
    if falls_short and answer.hits:
        lines.append(f"Closest records — {falls_short}:")
    for n, hit in enumerate(answer.cited(), 1):
        if n == len(answer.hits) + 1:
            lines.append(f"The rest of the record the answer quotes ({record_of(hit)}):")
        snippet = " ".join(hit.text.split()) if not hit.withheld else "(this organization releases only summaries to you)"
        if len(snippet) > snippet_chars:
            snippet = snippet[: snippet_chars - 1] + "…"
        lines.append(f"[{n}] {hit.score:.3f}  {hit.path}  {hit.id}")
        lines += textwrap.wrap(snippet, width, initial_indent="     ", subsequent_indent="     ")
        if hit.duplicates:
            copies = ", ".join(f"{ref.path} {ref.id}" for ref in hit.duplicates)
            lines += textwrap.wrap(f"{folded_heading(answer.per_patient)}: {copies}", width, initial_indent="     ",
                                   subsequent_indent="       ")
    if not answer.hits and not answer.error:
        lines.append("   (no passages found)")
    cov = answer.coverage
    # whose passages are listed: every unit may have answered (coverage) and none held a passage worth listing
    orgs = ", ".join(sorted({h.org for h in answer.hits}))
    lines += ["", f"took {answer.took_ms:.1f} ms · coverage {cov.successful}/{cov.total} units"
              f"{' · PARTIAL' if answer.partial else ''}{' · TIMED OUT' if answer.timed_out else ''}"
              + (f" · {'closest records' if falls_short else 'passages'} from: {orgs}" if orgs else "")]
    for subject, report in sorted(answer.nodes.items()):
        if report.status not in ("successful", "partial"):
            reason = f" ({report.error.type}: {report.error.reason})" if report.error else ""
            lines.append(f"   {subject}: {report.status}{reason}")
    return "\n".join(lines)


def status_text(nodes: list[Node], absent: dict[str, str] | None = None) -> str:
    """The live tree: one line per node instance, indented by depth, with its counters; then what is missing."""
    lines = [] if nodes else ["no fedrag nodes answered on this bus"]
    for node in nodes:
        depth = node.path.count(".") + (1 if node.path else 0)
        counters = ", ".join(f"{k}={v}" for k, v in sorted(node.counters.items()))
        extra = f" passages={node.info.metadata.get('passages')}" if node.role == "leaf" else ""
        lines.append(f"{'  ' * depth}{node.path or '(gateway)'} [{node.role}] {node.subject}"
                     f" requests={node.requests} errors={node.errors}{extra}"
                     f"{'  ' + counters if counters else ''}")
    for subject, by in (absent or {}).items():
        lines.append(f"MISSING {subject} (expected by {by})")
    return "\n".join(lines)
