"""neardup.ingest.pairs: pairs of pages in, verdicts out (the verifier on each page's main content)."""

from __future__ import annotations

import random

import pytest

from neardup.ingest.errors import DocumentError, EmptyDocument
from neardup.ingest.extract import document_texts
from neardup.ingest.pairs import compare_documents, verified_text
from neardup.ingest.records import validate_page
from neardup.verifier.compare import compare
from neardup.verifier.config import VerifyConfig
from neardup.verifier.verdict import Verdict

WORDS = (
    "river harbour council budget school winter market railway museum festival library "
    "hospital election bridge garden factory village coast"
).split()


def _body(seed: int, sentences: int = 60) -> str:
    rng = random.Random(seed)
    return "\n".join(
        " ".join(rng.choice(WORDS) for _ in range(rng.randint(6, 18))).capitalize() + "."
        for _ in range(sentences)
    )


def _html(body: str, chrome: str = "") -> str:
    paragraphs = "".join(f"<p>{line}</p>" for line in body.split("\n"))
    nav = f"<nav>{chrome}</nav>" if chrome else ""
    return f"<html><body>{nav}<main><article>{paragraphs}</article></main></body></html>"


def test_an_html_page_and_its_text_are_one_page() -> None:
    body = _body(1)
    v = compare_documents({"html": _html(body)}, {"text": body})
    assert isinstance(v, Verdict) and v.similar and v.resemble > 0.95


def test_the_verifier_compares_the_main_content() -> None:
    a = {"html": _html(_body(2), chrome=" ".join(f"<a href='/{w}'>{w}</a>" for w in WORDS * 3))}
    b = {"html": _html(_body(2))}
    assert verified_text(a) == document_texts(a).content.strip() != document_texts(a).text.strip()
    config = VerifyConfig.profile("precise")
    assert compare_documents(a, b, config) == compare(verified_text(a), verified_text(b), config)


def test_a_validated_page_is_taken_as_it_is() -> None:
    doc = {"id": "x", "text": _body(3)}
    page = validate_page(doc)
    assert verified_text(page) == verified_text(doc)
    assert compare_documents(page, {"text": _body(4)}) == compare_documents(doc, {"text": _body(4)})


@pytest.mark.parametrize(
    ("page", "error"),
    [({"text": ""}, EmptyDocument), ({"text": 3}, DocumentError), ({"url": "u"}, DocumentError)],
)
def test_a_bad_page_is_a_document_error(page: dict[str, object], error: type[Exception]) -> None:
    with pytest.raises(error):
        compare_documents(page, {"text": _body(5)})
