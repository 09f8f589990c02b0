"""checks: what a weak model's description fails, and a good one passes."""

from __future__ import annotations

from metaserver.agents.llm.checks import cut_off, grounded, repetitive


def test_repetition_is_a_sentence_said_twice_or_a_run_said_thrice() -> None:
    assert repetitive("Returns the mean. Returns the mean.")
    assert repetitive("the value of the value of the value of the value of it")
    assert not repetitive("Returns the mean of the values. Raises on an empty list.")


def test_a_text_is_cut_when_it_stops_open_near_the_limit_or_after_sentences() -> None:
    assert cut_off("x" * 950, 1024)
    assert cut_off("Computes the sum. Then it retur", 1024)
    assert not cut_off("Computes the sum", 1024)  # one short phrase: a label, not a cut
    assert not cut_off("Computes the sum (in place).", 1024)


def test_grounded_means_a_word_of_the_docs_or_a_parameter_name() -> None:
    sources = ["pkg:StandardScaler.transform", "Standardize features by removing the mean."]
    assert grounded("Scales the features to zero mean.", sources)
    assert grounded("Transforms data.", sources)  # by its name's parts
    assert not grounded("Opens the pod bay doors.", sources)
    assert grounded("Sum of a and b.", ["pkg:add", "Add two integers."], ["a", "b"])
    assert grounded("Anything at all.", [""])  # nothing to ground in: no verdict
