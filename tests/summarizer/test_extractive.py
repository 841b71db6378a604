"""The router's extractive summary: real sentences, one cluster per topic, relevance decided first.

The passages are real sentences about three clearly different topics (anticoagulation for atrial
fibrillation, diabetic foot ulcers, asthma inhalers) plus hospital notices that bear on nothing,
embedded with the real model; every score is the real cosine with the question.
"""

from __future__ import annotations

import random

import numpy as np
import pytest

from bus.messages import Hit, Summary
from summarizer.extractive import MIN_SCORE, RESERVE_MS, cluster_count, estimate_tokens, summarize
from tests.helpers.timing import SLACK_MS

QUESTION = "How are the patients' atrial fibrillation, diabetic foot ulcers and asthma treated?"
#: Under the default floor (MIN_SCORE) some topical passages score too low; 0.2 keeps every topical one.
LOW_FLOOR = 0.2

NOTES = {
    "af": [
        ("Ana Ruiz", "2023-02-01", "MEDICATIONS:\nStarted warfarin 5 mg daily for atrial fibrillation with a target INR "
                                   "of 2 to 3.  Her CHA2DS2-VASc score is 4."),
        ("Bo Chen", "2023-03-11", "PLAN: Apixaban 5 mg twice daily was chosen over warfarin for stroke prevention in atrial "
                                  "fibrillation. Renal function is normal."),
        ("Bo Chen", "2023-04-11", "PLAN: Apixaban 5 mg twice daily was chosen over warfarin for stroke prevention in atrial "
                                  "fibrillation. Follow-up ECG next month."),
        ("Carl Diaz", "2023-01-20", "ASSESSMENT: Paroxysmal atrial fibrillation with rapid ventricular response. Anticoagulation "
                                    "with rivaroxaban 20 mg daily was started to prevent stroke."),
        ("Dana Evans", "2023-04-05", "Persistent atrial fibrillation, rate controlled with metoprolol. Anticoagulation with "
                                     "apixaban continues; no bleeding on apixaban so far."),
    ],
    "foot": [
        ("Eli Fox", "2023-02-14", "WOUND CARE: A diabetic foot ulcer on the plantar surface of the left foot was debrided. "
                                  "The ulcer measures 2 cm and offloading with a total contact cast was applied."),
        ("Fay Gold", "2023-03-02", "Diabetic foot ulcer of the right heel with surrounding cellulitis. Wound culture was sent "
                                   "and the ulcer is dressed daily with offloading footwear."),
        ("Gus Hale", "2023-05-09", "PLAN: Podiatry follows the neuropathic foot ulcer under the first metatarsal head. "
                                   "Offloading boot and weekly debridement of the ulcer continue."),
        ("Hana Ito", "2023-01-28", "Chronic diabetic foot ulcer with osteomyelitis of the toe on imaging. Vascular surgery "
                                   "consulted for foot perfusion before amputation of the toe."),
    ],
    "asthma": [
        ("Ivy Jones", "2023-02-22", "ASTHMA: Uses an albuterol inhaler several times a week for wheezing. Inhaler technique "
                                    "was reviewed with a spacer."),
        ("Jon Kim", "2023-03-30", "Moderate persistent asthma treated with a budesonide-formoterol inhaler twice daily. "
                                  "Asthma control test score improved after inhaler education."),
        ("Kai Lee", "2023-04-18", "PLAN: Step up asthma therapy to a fluticasone-salmeterol inhaler. Continue albuterol "
                                  "rescue inhaler as needed for asthma symptoms."),
    ],
    "noise": [
        ("Lia Moss", "2023-02-02", "The parking garage on level three will be closed for repainting next week."),
        ("Max Nunez", "2023-03-03", "Cafeteria menu for Friday: lentil soup, grilled cheese and apple pie."),
        ("Nia Owen", "2023-04-04", "The hospital choir rehearses on Tuesday evenings in the chapel."),
    ],
}


@pytest.fixture(scope="module")
def question_vector(embedder) -> np.ndarray:
    return embedder.embed_one(QUESTION)


@pytest.fixture(scope="module")
def hits(embedder, question_vector) -> list[Hit]:
    """Every note as a hit with its real vector and its real score, each topic on a leaf of its own."""
    rows = [(topic, n, patient, f"{patient}, {date}. {text}")
            for topic, notes in NOTES.items() for n, (patient, date, text) in enumerate(notes)]
    vectors = embedder.embed([text for *_, text in rows])
    return [Hit(id=f"note{n}", org="site", path=f"site.{topic}", score=float(vector @ question_vector), text=text,
                patient=patient, vector=vector.astype("<f4").tobytes())
            for (topic, n, patient, text), vector in zip(rows, vectors)]


def topic(ref) -> str:
    return ref.path.removeprefix("site.")


def by_ref(hits: list[Hit]) -> dict[tuple[str, str], Hit]:
    return {(hit.path, hit.id): hit for hit in hits}


def flat(text: str) -> str:
    return " ".join(text.split())


def without_time(summary: Summary) -> dict:
    return summary.model_dump(exclude={"took_ms"})


def test_the_scores_split_topics_from_noise(hits):
    """The premise of the other tests: every topical note clears the low floor, no notice does."""
    assert all(hit.score >= LOW_FLOOR for hit in hits if topic(hit) != "noise")
    assert all(hit.score < LOW_FLOOR for hit in hits if topic(hit) == "noise")
    assert any(LOW_FLOOR <= hit.score < MIN_SCORE for hit in hits), "the default floor must leave some topical note out"


def test_every_sentence_is_quoted_from_each_of_its_sources_and_cites_every_copy(hits, question_vector):
    summary = summarize(question_vector, hits, path="site", question=QUESTION, min_score=LOW_FLOOR)
    assert summary.status == "successful" and summary.method == "extractive" and summary.sentences
    where = by_ref(hits)
    for sentence in summary.sentences:
        cluster = summary.clusters[sentence.cluster]
        holders = [ref for ref in cluster.sources if flat(sentence.text) in flat(where[ref.path, ref.id].text)]
        assert sentence.sources[0] == cluster.sources[0], "the representative is the first source"
        assert sorted(map(tuple, (r.model_dump().values() for r in sentence.sources))) == \
            sorted(map(tuple, (r.model_dump().values() for r in holders))), sentence.text
        assert not sentence.text.startswith(where[sentence.sources[0].path, sentence.sources[0].id].patient), \
            "the name-and-date prefix is never quoted"
    apixaban = [s for s in summary.sentences if s.text.startswith("PLAN: Apixaban 5 mg twice daily")]
    assert apixaban and all(len(s.sources) == 2 for s in apixaban), "a copied-forward sentence lists both notes"


def test_each_topic_has_a_sentence_when_the_budget_pays_for_three_clusters(hits, question_vector):
    for budget in (3 * 35, 200):
        summary = summarize(question_vector, hits, path="site", question=QUESTION, budget_tokens=budget, min_score=LOW_FLOOR)
        assert len(summary.clusters) == cluster_count(budget, summary.relevant)
        assert {topic(s.sources[0]) for s in summary.sentences} == {"af", "foot", "asthma"}, (budget, summary.sentences)
        assert sum(estimate_tokens(s.text) for s in summary.sentences) <= budget


def test_clusters_are_topics_ordered_by_their_representative(hits, question_vector):
    summary = summarize(question_vector, hits, path="site", budget_tokens=3 * 35, min_score=LOW_FLOOR)
    assert len(summary.clusters) == 3
    assert all(len({topic(ref) for ref in cluster.sources}) == 1 for cluster in summary.clusters), summary.clusters
    where = by_ref(hits)
    scores = [where[c.sources[0].path, c.sources[0].id].score for c in summary.clusters]
    assert scores == sorted(scores, reverse=True)
    assert [s.cluster for s in summary.sentences] == sorted(s.cluster for s in summary.sentences)


def test_no_sentence_or_cluster_holds_a_passage_under_the_floor(hits, question_vector):
    summary = summarize(question_vector, hits, path="site", question=QUESTION)  # the default floor, MIN_SCORE
    below = {(hit.path, hit.id) for hit in hits if hit.score < MIN_SCORE}
    assert summary.passages == len(hits) and summary.relevant == len(hits) - len(below)
    assert summary.sentences
    for sentence in summary.sentences:
        assert not {(ref.path, ref.id) for ref in sentence.sources} & below, sentence
    assert not {(ref.path, ref.id) for cluster in summary.clusters for ref in cluster.sources} & below
    assert sum(len(cluster.sources) for cluster in summary.clusters) == summary.relevant


def test_a_tiny_budget_gives_one_sentence(hits, question_vector):
    summary = summarize(question_vector, hits, path="site", question=QUESTION, budget_tokens=10, min_score=LOW_FLOOR)
    assert len(summary.sentences) == 1 and len(summary.clusters) == 1
    assert len(summary.clusters[0].sources) == summary.relevant


def test_nothing_relevant_says_nothing(hits, question_vector):
    noise = [hit for hit in hits if topic(hit) == "noise"]
    summary = summarize(question_vector, noise, path="site", min_score=LOW_FLOOR)
    assert summary.status == "insufficient" and summary.method == "extractive" and summary.path == "site"
    assert summary.sentences == [] and summary.clusters == []
    assert (summary.passages, summary.relevant) == (len(noise), 0)
    assert summarize(question_vector, [], path="site").status == "insufficient"


def test_the_summary_does_not_depend_on_the_order_hits_arrive_in(hits, question_vector):
    first = summarize(question_vector, hits, path="site", question=QUESTION, min_score=LOW_FLOOR)
    for seed in range(4):
        shuffled = random.Random(seed).sample(hits, len(hits))
        again = summarize(question_vector, shuffled, path="site", question=QUESTION, min_score=LOW_FLOOR)
        assert without_time(again) == without_time(first)


def test_keywords_name_the_topic_and_no_patient(hits, question_vector):
    summary = summarize(question_vector, hits, path="site", budget_tokens=3 * 35, min_score=LOW_FLOOR)
    foot = [c for c in summary.clusters if topic(c.sources[0]) == "foot"]
    assert len(foot) == 1 and {"ulcer", "foot"} & set(foot[0].keywords), foot
    names = {word.lower() for hit in hits for word in hit.patient.split()}
    for budget in (3 * 35, 200, 400):  # more clusters, fewer passages each: a name would weigh more
        summary = summarize(question_vector, hits, path="site", budget_tokens=budget, min_score=LOW_FLOOR)
        keywords = [keyword for cluster in summary.clusters for keyword in cluster.keywords]
        assert all(1 <= len(c.keywords) <= 5 for c in summary.clusters)
        assert not names & set(keywords) and not any(keyword.isdigit() for keyword in keywords), keywords


@pytest.mark.parametrize("budget", [20, 35, 45, 60, 80, 105, 140, 200])
def test_the_summary_keeps_to_its_budget(hits, question_vector, budget):
    summary = summarize(question_vector, hits, path="site", budget_tokens=budget, min_score=LOW_FLOOR)
    spent = sum(estimate_tokens(s.text) for s in summary.sentences)
    assert len(summary.clusters) == cluster_count(budget, summary.relevant)
    assert spent <= budget or len(summary.sentences) == 1, (spent, summary.sentences)


def test_hits_without_vectors_are_counted_but_not_clustered(hits, question_vector):
    relevant = [hit for hit in hits if hit.score >= LOW_FLOOR]
    bare = relevant[0].model_copy(update={"vector": None})
    summary = summarize(question_vector, [bare, *relevant[1:]], path="site", min_score=LOW_FLOOR)
    assert summary.status == "successful" and summary.relevant == len(relevant)
    placed = {(ref.path, ref.id) for cluster in summary.clusters for ref in cluster.sources}
    assert (bare.path, bare.id) not in placed and len(placed) == len(relevant) - 1

    none = summarize(question_vector, [h.model_copy(update={"vector": None}) for h in relevant], path="site",
                     min_score=LOW_FLOOR)
    assert none.status == "failed" and none.error.type == "no_vectors" and none.sentences == []


def test_a_passage_with_nothing_quotable_hands_over_to_the_next_nearest(hits, question_vector):
    """A representative made only of its name-and-date prefix cannot be quoted: the next passage speaks."""
    foot = [hit for hit in hits if topic(hit) == "foot"]
    empty = foot[0].model_copy(update={"text": "Eli Fox, 2023-02-14.", "id": "empty"})
    summary = summarize(question_vector, [empty, *foot], path="site", budget_tokens=10, min_score=LOW_FLOOR)
    assert len(summary.sentences) == 1 and summary.sentences[0].sources[0].id != "empty"


@pytest.mark.timing
def test_it_is_fast_enough_for_a_deadline(hits, question_vector):
    many = [hit.model_copy(update={"id": f"{hit.id}.{n}", "score": hit.score - n * 1e-4}) for n in range(7) for hit in hits]
    summary = summarize(question_vector, many, path="site", question=QUESTION, min_score=LOW_FLOOR)
    assert summary.passages == len(many) >= 100 and summary.status == "successful"
    # the reserve a router keeps for a summary of about a hundred passages (~50 ms on a loaded 2-core machine)
    assert summary.took_ms <= RESERVE_MS + SLACK_MS, summary.took_ms


def test_passages_without_a_word_to_weigh_are_still_quoted(embedder, question_vector):
    texts = ["Eli Fox, 2023-02-14. It was 12 of 15 on 3 of 4.", "Fay Gold, 2023-03-02. Then it was 14 of 15."]
    vectors = embedder.embed(texts)
    hits = [Hit(id=f"n{n}", org="site", path="site.x", score=0.5, text=text, patient=text.split(",")[0],
                vector=vector.astype("<f4").tobytes()) for n, (text, vector) in enumerate(zip(texts, vectors))]
    summary = summarize(question_vector, hits, path="site", question=QUESTION)
    assert summary.status == "successful" and summary.sentences
    assert all(cluster.keywords == [] for cluster in summary.clusters)


def test_routers_of_one_process_summarizing_their_first_question_at_once_do_not_fail_importing_scikit_learn():
    """Two threads importing scikit-learn for the first time at once failed ("cannot import name 'clone' from partially
    initialized module 'sklearn.base'"): the demo's two summarizing routers in one process, on their first question.
    Each fresh interpreter here clusters and weighs words in six threads at once, as two routers' summaries do."""
    import subprocess
    import sys

    script = """
import threading
import numpy as np
from summarizer import extractive
failed = []
ready = threading.Barrier(6)
def run(seed):
    ready.wait()
    rows = np.random.default_rng(seed).normal(size=(6, 8)).astype("float32")
    try:
        if seed % 2:
            extractive._Words([])
        else:
            extractive._kmeans(rows, 3)
    except Exception as exc:
        failed.append(repr(exc))
threads = [threading.Thread(target=run, args=(n,)) for n in range(6)]
[t.start() for t in threads]
[t.join() for t in threads]
print(failed)
"""
    for _ in range(4):
        done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
        assert done.returncode == 0 and done.stdout.strip() == "[]", (done.stdout, done.stderr[-2000:])


def test_a_sentence_too_long_to_quote_whole_is_quoted_in_parts_after_a_dose():
    """"Which patients have gastroparesis?" was refused on the case study: its one note saying "the patient has diabetic
    gastroparesis" wrote it after "200 mg b.i.d.", which does not end a sentence when cut for passages ("Dr. Smith"), so
    one sentence of 420 characters was shortened before the words that said it."""
    from summarizer.sentences import ELLIPSIS, MAX_SENTENCE_CHARS, quotable

    long_one = ("Hiroshi Lopez. Neurology felt that the only necessary intervention at that time would be to increase her "
                "Lamictal to 150 mg in the morning and 100 mg in the evening with gradual increase of the dosage until she "
                "was on 200 mg b.i.d. Regarding the hypoglycemia, the patient has diabetic gastroparesis and was being fed "
                "on J-tube intermittent feedings throughout the night.")
    said = quotable(long_one, "Hiroshi Lopez")
    assert said[-1].startswith("Regarding the hypoglycemia") and "gastroparesis" in said[-1]
    assert said[0].endswith("200 mg b.i.d.") and not any(s.endswith(ELLIPSIS) for s in said)
    listed = ("Medications: Lasix 40 mg 1-1/2 tabs p.o. per day; acetazolamide 250 mg one p.o. per day, lisinopril 20 mg. "
              "one p.o. twice per day, potassium chloride 20 mEq one p.o. daily, metformin 500 mg one p.o. twice daily with "
              "meals, atorvastatin 40 mg one p.o. at bedtime, levothyroxine 50 mcg one p.o. every morning, and aspirin 81 mg "
              "one p.o. daily.")
    assert len(listed) > MAX_SENTENCE_CHARS and not any(s.startswith(("per day", "one p.o.")) for s in quotable(listed)), \
        "not cut within a dose"
    short_one = "She takes metformin 500 mg b.i.d. Dr. Smith follows her."
    assert len(short_one) <= MAX_SENTENCE_CHARS and quotable(short_one) == [short_one], "cut only where too long"


def test_words_are_weighed_as_scikit_learns_sublinear_tf_idf_weighs_them():
    """The summary's TF-IDF is computed in plain arrays; it must weigh as scikit-learn's ``TfidfVectorizer`` with
    ``sublinear_tf`` (a word's repeats, its rarity, unit rows), passages and new sentences alike."""
    from sklearn.feature_extraction.text import TfidfVectorizer

    from summarizer import extractive

    hits = [Hit(id=f"n{n}", org="site", path="site.x", score=0.5, text=text, patient=patient)
            for n, (patient, _, text) in enumerate(note for notes in NOTES.values() for note in notes)]
    hits.append(Hit(id="plain", org="site", path="site.x", score=0.5, text="It was 12 of 15 on 3 of 4."))
    words = extractive._Words(hits)
    reference = TfidfVectorizer(analyzer=words._words, sublinear_tf=True)
    expected = reference.fit_transform([hit.text for hit in hits]).toarray()
    assert words.terms.tolist() == reference.get_feature_names_out().tolist()
    assert "ana" not in words.terms and "warfarin" in words.terms  # patients' names and stop words are left out
    np.testing.assert_allclose(words.passages, expected, atol=1e-12)
    said = ["Warfarin warfarin and apixaban for atrial fibrillation.", "Nothing here is known.", QUESTION]
    np.testing.assert_allclose(words.rows(said), reference.transform(said).toarray(), atol=1e-12)
    assert not words.rows(["Nothing here is known."]).any()
