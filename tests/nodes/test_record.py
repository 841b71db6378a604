"""An answer from a reference text quotes its record whole: the gateway fetches the passages of the best hit's
record that are not among the hits from the leaf that holds it (``want = "record"``), and the answer cites them
after the hits (:attr:`bus.asking.Answer.context`)."""

from __future__ import annotations

import json

from bus.client import ask
from bus.connection import connect
from bus.asking import AskRequest
from bus.messages import Query, RecordRef
from nodes.run.federation import launched
from nodes.run.spec import FederationSpec
from summarizer.answer import check, passage_number, record_of
from summarizer.sentences import quotable

# a patient handout, cut into several passages (max_chars = 300)
GOUT = [
    "What is gout? Gout is a form of arthritis in which uric acid crystals build up in a joint. It often starts in "
    "the big toe. An attack comes on quickly, usually at night, and the joint becomes red, hot and swollen.",
    "What causes gout? Uric acid is made when the body breaks down purines, found in red meat and seafood. Beer and "
    "drinks sweetened with fructose raise uric acid too. Some diuretics and kidney disease keep it from leaving.",
    "What are the symptoms of gout? The joint is so tender that a bed sheet on it hurts. Pain is worst in the first "
    "twelve to twenty-four hours. Discomfort can linger for days or weeks after the worst pain subsides.",
    "How is gout treated? Anti-inflammatory drugs such as naproxen, colchicine or a steroid ease an attack. "
    "Allopurinol or febuxostat lowers uric acid and prevents attacks. Drinking water and less alcohol help as well.",
    "What is the outlook for gout? With treatment most people keep their attacks under control. Without it, tophi "
    "can form under the skin and the joints can be damaged for good. Kidney stones may form as well.",
]
OTHERS = {
    "migraine": "What is migraine? Migraine is a headache that throbs on one side of the head. Light and noise make "
                "it worse, and nausea is common. Triptans taken early can stop an attack.",
    "asthma": "What is asthma? Asthma narrows the airways and makes breathing hard. Wheezing and coughing at night "
              "are common. An inhaled steroid taken every day prevents attacks.",
}


def write(folder) -> FederationSpec:
    """Two organizations of reference texts; the other one holds a different handout under the same record id."""
    units = {
        "clinic_a.handouts": [{"id": "gout", "text": " ".join(GOUT)}, {"id": "migraine", "text": OTHERS["migraine"]}],
        "clinic_b.handouts": [{"id": "gout", "text": "Gout diet sheet. Cherries may lower uric acid a little."},
                              {"id": "asthma", "text": OTHERS["asthma"]}],
    }
    lines = ["[federation]", 'state_dir = "state"', "deadline_ms = 15000", ""]
    for path, records in units.items():
        (folder / f"{path}.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
        org, unit = path.split(".")
        lines += [f"[orgs.{org}.units.{unit}]", f'data = "{path}.jsonl"', "max_chars = 300", ""]
    (folder / "handouts.toml").write_text("\n".join(lines))
    return FederationSpec.load(folder / "handouts.toml")


async def test_an_answer_from_a_reference_text_quotes_its_whole_record(tmp_path, nats_server, embedder):
    spec = write(tmp_path)
    async with launched(spec, nats_server.url, processes=False, verbose=False,
                        embedder_factory=lambda: embedder) as running:
        nc = await connect(running.url, "record-test")
        nodes = {node.path: node for org in ("clinic_a", "clinic_b") for node in running.federation.nodes(org)}
        try:
            before = {path: node.counters["queries"] for path, node in nodes.items()}
            answer = await ask(nc, AskRequest(question="How is gout treated?", k=2, summarize="extractive"))
            asked = {path: node.counters["queries"] - before[path] for path, node in nodes.items()}
            everything = await ask(nc, AskRequest(question="How is gout treated?", k=20, summarize="extractive"))
            plain = await ask(nc, AskRequest(question="How is gout treated?", k=2))
        finally:
            await nc.drain()
    assert asked == {"clinic_a": 3, "clinic_b": 3, "clinic_a.handouts": 2, "clinic_b.handouts": 1}, \
        "words counted, the search, then the record: every organization's router checks it (and spends the " \
        "proof for it), only the leaf that holds it reads (a leaf counts the first pass apart)"
    best = answer.hits[0]
    assert best.path == "clinic_a.handouts" and record_of(best) == "gout", answer.hits
    assert len(answer.hits) == 2 and answer.context, "the hits hold only some of the record: the rest is fetched"
    assert all(hit.path == best.path and record_of(hit) == "gout" for hit in answer.context), \
        "only the best hit's record, from its own leaf (not clinic_b's sheet under the same id)"
    hits, context = {(hit.path, hit.id) for hit in answer.hits}, {(hit.path, hit.id) for hit in answer.context}
    record = {(hit.path, hit.id) for hit in everything.hits if hit.path == best.path and record_of(hit) == "gout"}
    assert len(record) > 2 and {p for p in hits if p in record} | context == record and not hits & context, \
        "every passage of the record, once"
    assert [passage_number(hit.id) for hit in answer.context] == sorted(passage_number(hit.id) for hit in answer.context)
    assert check(answer.answer, answer.cited()) == [], answer.answer
    assert f"[{len(answer.hits) + 1}]" in answer.answer, "the answer cites the fetched passages after the hits"
    said = [sentence for text in GOUT for sentence in quotable(text)]
    positions = [answer.answer.find(sentence) for sentence in said]
    assert -1 not in positions and positions == sorted(positions), "the record as it reads, every sentence in order"
    assert everything.context == [] and check(everything.answer, everything.cited()) == [], \
        "with every passage among the hits there is nothing to fetch"
    assert plain.context == [] and plain.answer is None, "no answer asked, no record fetched"


async def test_a_record_naming_what_is_asked_only_in_passing_is_quoted_from_where_it_names_it(tmp_path, nats_server,
                                                                                             embedder):
    spec = write(tmp_path)
    async with launched(spec, nats_server.url, processes=False, verbose=False,
                        embedder_factory=lambda: embedder) as running:
        nc = await connect(running.url, "record-test")
        try:
            stones = await ask(nc, AskRequest(question="What is the link between gout and kidney stones?", k=3,
                                              summarize="extractive"))
            gout = await ask(nc, AskRequest(question="What is gout?", k=3, summarize="extractive"))
        finally:
            await nc.drain()
    assert record_of(stones.hits[0]) == "gout" and check(stones.answer, stones.cited()) == [], stones.answer
    assert "Kidney stones may form as well." in stones.answer, stones.answer
    assert "Gout is a form of arthritis" not in stones.answer, \
        "the gout handout names kidney stones only in its last passage: what it opens with does not answer"
    assert gout.answer.startswith("What is gout? [1] Gout is a form of arthritis"), \
        "a record about what is asked is quoted from its start"
    assert "Kidney stones may form as well." in gout.answer and "Gout diet sheet" not in gout.answer, \
        "the best hit's record, whole, and not another organization's record of the same id"


def test_a_record_query_names_records_and_only_it_does():
    vector = b"\x00\x00\x80\x3f" + b"\x00" * 12  # the unit vector (1, 0, 0, 0)
    gout = [RecordRef(path="clinic_a.handouts", id="gout")]
    Query(question="q", embedding=vector, model="m", want="record", records=gout)
    for fields in ({"want": "record"}, {"records": gout}, {"want": "stats", "records": gout}):
        try:
            Query(question="q", embedding=vector, model="m", **fields)
        except ValueError as exc:
            assert "want = 'record'" in str(exc)
        else:
            raise AssertionError(f"accepted {fields}")


async def test_reference_texts_do_not_answer_for_a_thing_the_writer_has_that_no_record_names(tmp_path, nats_server,
                                                                                            embedder):
    """Pseudogout is not gout: the handouts' advice on beer and uric acid does not answer it, and the answer says so
    instead of quoting them; asked of gout, the same words are answered (nodes.concepts.grounding)."""
    spec = write(tmp_path)
    async with launched(spec, nats_server.url, processes=False, verbose=False,
                        embedder_factory=lambda: embedder) as running:
        nc = await connect(running.url, "record-test")
        try:
            other = await ask(nc, AskRequest(question="I was just diagnosed with pseudogout. Should I stop drinking beer?",
                                             k=3, summarize="extractive"))
            gout = await ask(nc, AskRequest(question="I was just diagnosed with gout. Should I stop drinking beer?",
                                            k=3, summarize="extractive"))
            walks = await ask(nc, AskRequest(question="I have gout and take long walks. Should I stop drinking beer?",
                                             k=3, summarize="extractive"))
        finally:
            await nc.drain()
    assert other.closest and other.absent == ["pseudogout"] and other.answer_info.status == "insufficient", other.answer
    assert "uric acid" not in other.answer and "pseudogout" in other.answer, other.answer
    assert other.hits, "the closest records are still shown, titled so"
    assert not gout.closest and gout.answer_info.status == "successful" and "Beer" in gout.answer, gout.answer
    assert walks.absent == ["long walks"] and not walks.closest and "Beer" in walks.answer, \
        "everyday words no record holds are only not found"
