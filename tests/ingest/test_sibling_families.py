"""Template siblings that the sibling rule parts, and a spelling-variant twin that is grouped
(issue 37: "One template, different pages").

Each page is one of a documentation site's, with its URL and ``site``; as plain text and as
HTML. A reader calls every page of a function family or of a statement family a page of its
own, and a page and its British-English variant the same page:

* a function family whose names differ by one letter (``XCOS``, ``XCOT``, ``XCOSH``, ...) and
  whose texts differ in the name and in the one word naming what it computes;
* statement pages that share one syntax block, a keyword table and an example listing every
  sibling's name;
* a twin of about 25 words whose UK text writes "dialogue box", "organise", "customise";
* a twin whose UK text names "Cell Content" where the US text names "Cell Contents";
* syntax diagrams' pages whose main content opens with the site's tagline before the heading;
* a method family whose identifiers differ in one digit, the same in each (``vec2``, ``vec3``).
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

import pytest
from support.sibling_families import (
    COLOR_US,
    KINDS,
    MEMBERS,
    OPTIONS,
    TOOLBAR_PAGE,
    TOOLBARS,
    book,
    book_section,
    class_members,
    conversions,
    functions,
    gallery,
    in_chrome,
    indexes,
    man_page,
    member_index,
    operators,
    page,
    statements,
    symbol_indexes,
    syntax_diagrams,
    toolbars,
    twin,
    unlocated,
    vector_methods,
    word_forms_twin,
)

import neardup
from neardup.ingest.pairs import compare_documents


def _groups(pages: list[dict[str, Any]], **options: Any) -> list[set[str]]:
    """The groups of 2+ pages that ``neardup.dedup`` gives (``options``: its own)."""
    members: dict[str, set[str]] = {}
    for g in neardup.dedup(pages, **options):
        assert g.id is not None and g.dup_group is not None
        members.setdefault(g.dup_group, set()).add(g.id)
    return [m for m in members.values() if len(m) > 1]


# --- a function family: one-letter names ----------------------------------------------------






@pytest.mark.parametrize("kind", KINDS)
def test_a_function_family_with_one_letter_names_is_not_similar(kind: str) -> None:
    pages = {p["id"]: p for p in functions(kind)}
    for a, b in [("XCOS", "XCOT"), ("XCOS", "XCOSH"), ("XSIN", "XSINH")]:
        verdict = compare_documents(pages[a], pages[b])
        assert not verdict.similar, (a, b, verdict.reason)


@pytest.mark.parametrize("kind", KINDS)
def test_a_function_family_with_one_letter_names_forms_no_group(kind: str) -> None:
    assert _groups(functions(kind)) == []


# --- statement pages sharing a syntax block -------------------------------------------------






@pytest.mark.parametrize("kind", KINDS)
def test_statement_pages_sharing_a_syntax_block_are_not_similar(kind: str) -> None:
    pages = {p["id"]: p for p in statements(kind)}
    for a, b in [("DefBool", "DefCur"), ("DefDate", "DefDbl"), ("DefInt", "DefLng")]:
        verdict = compare_documents(pages[a], pages[b])
        assert not verdict.similar, (a, b, verdict.reason)


@pytest.mark.parametrize("kind", KINDS)
def test_statement_pages_sharing_a_syntax_block_form_no_group(kind: str) -> None:
    assert _groups(statements(kind)) == []


# --- a short spelling-variant twin ----------------------------------------------------------


def test_the_twin_is_a_short_page_in_two_spellings() -> None:
    us, gb = (p["text"] for p in twin("text"))
    assert 20 <= len(us.split()) <= 30 and us != gb
    assert "dialogue box" in gb and "organise" in gb and "customise" in gb


@pytest.mark.parametrize("kind", KINDS)
def test_a_short_spelling_variant_twin_is_similar(kind: str) -> None:
    verdict = compare_documents(*twin(kind))
    assert verdict.similar, verdict.reason


@pytest.mark.parametrize("kind", KINDS)
def test_a_short_spelling_variant_twin_is_grouped(kind: str) -> None:
    pages = twin(kind)
    assert _groups(pages) == [{p["id"] for p in pages}]


# --- a twin naming one thing in two forms of its word ------------------------------------------


@pytest.mark.parametrize("kind", KINDS)
def test_a_twin_naming_one_thing_in_two_forms_of_its_word_is_grouped(kind: str) -> None:
    """"Cell Contents" (en-US) and "Cell Content" (en-GB): one thing, not two."""
    pages = word_forms_twin(kind)
    assert _groups(pages) == [{p["id"] for p in pages}]


# --- a book's section pages whose own text is their heading -----------------------------------


@pytest.mark.parametrize("kind", KINDS)
def test_section_pages_whose_own_text_is_their_heading_form_no_group(kind: str) -> None:
    """mdBook's pages of a book's sections ("Appendices", "Glossary") hold the book's table of
    contents and their heading. As HTML the book's name heads the menu bar first: each page is
    named by its own heading. As text every line of the contents is on every page, and is
    chrome though the sections' pages have no long line of their own (their base); the
    pipeline's rule in memory, the pages arriving in shuffled orders (the site's page count,
    and so what is on half of its pages, growing as they come), gives the same partition."""
    pages, sections = book(kind)
    assert len(sections) == 4
    assert _groups(pages) == []
    for partition in _live_partitions(pages, 20, random.Random(11)):
        assert partition == {frozenset([p["id"]]) for p in pages}
    assert _groups([book_section(c) for c in ("Appendices", "Lexical structure", "Scopes")]) == []


# --- conversion functions: mixed-case names one letter apart ----------------------------------


@pytest.mark.parametrize("kind", KINDS)
def test_functions_whose_mixed_case_names_differ_by_a_letter_form_no_group(kind: str) -> None:
    pages = {p["id"]: p for p in conversions(kind)}
    verdict = compare_documents(pages["CLng"], pages["CSng"])
    assert not verdict.similar, verdict.reason
    assert _groups(list(pages.values())) == []


# --- operator pages: names that differ in a symbol ------------------------------------------






@pytest.mark.parametrize("kind", KINDS)
def test_operator_pages_whose_names_differ_in_a_symbol_form_no_group(kind: str) -> None:
    assert _groups(operators(kind)) == []


# --- pages naming another thing of one kind -----------------------------------------------






@pytest.mark.parametrize("kind", KINDS)
def test_pages_of_one_name_about_different_things_form_no_group(kind: str) -> None:
    """Four pages named "Index" that each name another kind of index, twice."""
    assert _groups(indexes(kind)) == []


# --- one toolbar under two modules: lines of each page's own ---------------------------------


@pytest.mark.parametrize("kind", KINDS)
def test_one_toolbar_under_two_modules_each_listing_its_own_buttons_forms_no_group(
        kind: str) -> None:
    calc, impress = toolbars(kind)
    verdict = compare_documents(calc, impress)
    assert not verdict.similar and verdict.reason == "subject-differs"
    assert _groups([calc, impress]) == []
    # Calc's page with its opening sentence reworded, or with a paragraph added, is Calc's page
    module, _, own = TOOLBARS[0]
    reworded = page("reworded", "calc/main0214b.html", TOOLBAR_PAGE.format(
        intro="Pictures in a spreadsheet get this toolbar of their own.", own="\n\n".join(own)),
        kind)
    longer = calc | {"id": "longer"}
    longer[kind] = calc[kind].replace("Crop\n", "Frame\n\nDraws a frame around the picture."
                                      "\n\nCrop\n") if kind == "text" else calc[kind].replace(
        "<pre>Crop</pre>", "<pre>Frame</pre><p>Draws a frame around the picture.</p>"
                           "<pre>Crop</pre>")
    assert longer[kind] != calc[kind]
    assert _groups([calc, impress, reworded, longer]) == [{f"{module}/image_bar", "reworded",
                                                          "longer"}]


# --- pages without content: told by their title ---------------------------------------------



def test_pages_without_content_are_told_apart_by_their_title() -> None:
    pages = [gallery(t) for t in ("Calc Screenshots", "Filter Screenshots", "Sample Files",
                                   "Video Tutorials")]
    assert _groups(pages) == []
    same = gallery("Calc Screenshots") | {"id": "again"}
    assert _groups([pages[0], same]) == [{"Calc Screenshots", "again"}]


# --- index pages whose own text is their links -----------------------------------------------


@pytest.mark.parametrize("kind", KINDS)
def test_index_pages_of_one_member_each_form_no_group(kind: str) -> None:
    pages = [member_index(*m, kind) for m in MEMBERS]
    assert _groups(pages) == []
    again = member_index(*MEMBERS[0], kind) | {"id": "again"}
    assert _groups([pages[0], again]) == [{"globals_f", "again"}]
    # members of one header, whose names share a part: two pages all the same
    one_header = [member_index("p", "PARSERS_EXPORT", "LibDefs.hpp", kind),
                  member_index("v", "VALIDATORS_EXPORT", "LibDefs.hpp", kind)]
    assert _groups(one_header) == []


# --- index pages titled by their family, the title chrome by count ---------------------------


@pytest.mark.parametrize("kind", KINDS)
def test_member_index_pages_whose_family_title_is_chrome_form_no_group(kind: str) -> None:
    """A letter's page of all members holds its functions page line for line; as a text dump,
    each family's title is on a third of the site's pages, chrome by count (T = 3), and the
    page's name all the same: "Class Members" and "Class Members - Functions" are two pages."""
    pages = class_members(kind)
    assert _groups(pages, chrome_min_pages=3) == []
    # a copy of a page, its title included, is the page
    again = pages[0] | {"id": "again", "url": pages[0]["url"].replace(".html", "-copy.html")}
    assert _groups([*pages, again], chrome_min_pages=3) == [{"functions_b", "again"}]


def test_member_index_pages_arriving_in_any_order_form_no_group() -> None:
    """The titles become chrome while the pages arrive (the incremental rule, T = 3): the
    partition is ``dedup``'s, every page alone, in any order."""
    pages = class_members("text")
    for partition in _live_partitions(pages, 3, random.Random(7)):
        assert partition == {frozenset([p["id"]]) for p in pages}


# --- a twin whose translation renames identifiers -------------------------------------------



def test_a_twin_whose_translation_renames_identifiers_is_grouped() -> None:
    gb = COLOR_US.replace("COLOR", "COLOUR").replace("colors", "colours").replace(
        "color", "colour").replace("colourNumber", "colourNumber")
    assert "COLOUR(" in gb and "colourNumber" in gb
    pages = [page("en-US/color", "en-US/calc/color.html", COLOR_US, "text"),
             page("en-GB/color", "en-GB/calc/color.html", gb, "text")]
    assert compare_documents(*pages).similar
    assert _groups(pages) == [{"en-US/color", "en-GB/color"}]


# --- every mode, any order ----------------------------------------------------------------------

def _live_partitions(pages: list[dict[str, Any]], t: int, rng: random.Random,
                     orders: int = 3) -> Iterator[set[frozenset[str]]]:
    """The partition the pipeline's rule in memory
    (:class:`neardup.ingest.incremental.IncrementalDedup`, chrome threshold ``t``) gives the
    pages sent in each of ``orders`` shuffled orders."""
    from neardup.ingest.incremental import IncrementalDedup

    for _ in range(orders):
        order = pages[:]
        rng.shuffle(order)
        live = IncrementalDedup(chrome_min_pages=t)
        for doc in order:
            live.put(doc)
        yield _partition(live.groups())


def _partition(groups: dict[str, str]) -> set[frozenset[str]]:
    members: dict[str, set[str]] = {}
    for doc_id, group in groups.items():
        members.setdefault(group, set()).add(doc_id)
    return {frozenset(m) for m in members.values()}


@pytest.mark.parametrize("kind", [*KINDS, "text-unlocated"])
def test_the_incremental_rule_gives_dedups_partition_in_any_order(kind: str) -> None:
    """The pipeline's rule in memory (:class:`neardup.ingest.incremental.IncrementalDedup`),
    pages arriving in shuffled orders: the partition of ``neardup.dedup``. ``text-unlocated``:
    plain text in the site's chrome without URLs, of one site once the chrome is counted (a
    page's site changes as lines become chrome)."""
    unlocated_text = kind == "text-unlocated"
    kind = "text" if unlocated_text else kind
    pages = (functions(kind) + statements(kind) + conversions(kind) + operators(kind)
             + indexes(kind) + toolbars(kind) + twin(kind))
    if unlocated_text:
        pages = unlocated(in_chrome(pages))
    t = 5 if unlocated_text else 20  # the default: the pages of the other kinds carry no chrome
    expected = {g.id: g.dup_group for g in neardup.dedup(pages, chrome_min_pages=t)}
    assert _partition(expected) == (
        {frozenset([p["id"]]) for p in pages[:-2]} | {frozenset(p["id"] for p in pages[-2:])})
    for partition in _live_partitions(pages, t, random.Random(37)):
        assert partition == _partition(expected)


# --- man pages: every section an h1 ------------------------------------------------------------

def test_man_pages_whose_sections_are_h1_are_named_by_their_title() -> None:
    """``mandoc -Thtml`` makes each section's heading an ``h1``: the page's name is its title
    ("OPT_TIMEOUT(3)"), not its first section's ("NAME", which every page carries)."""
    pages = [man_page(*option) for option in OPTIONS]
    assert not compare_documents(*pages).similar
    assert _groups(pages) == []
    again = pages[0] | {"id": "again"}
    assert _groups([pages[0], again]) == [{"OPT_TIMEOUT", "again"}]


# --- pages of unknown site: HTML judged by its template ---------------------------------------

def test_html_pages_without_url_of_one_template_are_judged_as_one_site() -> None:
    """Without a URL or ``site``, HTML pages that link one style sheet are of one template
    (``page_template``): the sibling rules part the families and join the spelling twin."""
    families = [functions("html"), statements("html"), operators("html")]
    for family in families:
        assert _groups(unlocated(family)) == []
    pages = {p["id"]: p for p in unlocated(functions("html"))}
    assert not compare_documents(pages["XCOS"], pages["XCOT"]).similar
    us, gb = unlocated(twin("html"))
    assert compare_documents(us, gb).similar
    assert _groups([us, gb]) == [{us["id"], gb["id"]}]


def test_pages_of_two_templates_without_url_keep_the_verifiers_verdict() -> None:
    """One page of the family under another site's style sheet is of no site in common with
    the others: the verifier's verdict stands (the pair is similar, as between two sites)."""
    pages = {p["id"]: p for p in unlocated(functions("html"))}
    other = pages["XCOT"] | {"html": pages["XCOT"]["html"].replace("help.css", "theme.css")}
    assert compare_documents(pages["XCOS"], other).similar


def _text_unlocated() -> list[dict[str, Any]]:
    """Plain-text pages of one site in its chrome, without URL or ``site``."""
    return unlocated(in_chrome(functions("text") + statements("text") + operators("text")
                               + twin("text")))


def test_text_pages_without_url_that_carry_the_inputs_chrome_are_judged_as_one_site() -> None:
    """Chrome counting counts pages of unknown site as one site; those that carry its chrome
    (here on 5 pages or more) are of that site for the sibling rules too."""
    pages = _text_unlocated()
    assert _groups(pages, chrome_min_pages=5) == [{p["id"] for p in pages[-2:]}]  # the twin
    # no line on 20 pages (the default): no chrome to tell the pages' site by, the verifier's
    # verdict stands
    bare = unlocated(functions("text"))
    assert _groups(bare) == [{p["id"] for p in bare}]


# --- syntax diagrams: the heading after the site's tagline --------------------------------------


@pytest.mark.parametrize("kind", KINDS)
def test_pages_whose_content_opens_with_the_sites_tagline_are_named_by_their_heading(
        kind: str) -> None:
    """SQLite's syntax diagrams: as HTML the main content opens with the header's tagline
    ("Small. Fast. Reliable."), which named every page; the heading (``h1``) names it now."""
    pages = {p["id"]: p for p in syntax_diagrams(kind)}
    for a, b in [("join-constraint", "join-operator"), ("ordering-term", "frame-spec")]:
        verdict = compare_documents(pages[a], pages[b])
        assert not verdict.similar, (a, b, verdict.reason)
    assert _groups(list(pages.values())) == []


# --- a method family: one digit through every identifier -------------------------------------


@pytest.mark.parametrize("kind", KINDS)
def test_one_edit_through_every_identifier_is_a_rename_not_typos(kind: str) -> None:
    """gi-docgen's ``get_arg_vec2`` / ``get_arg_vec3`` / ``get_arg_vec4``: each identifier the
    other page lacks is one edit from the other's (a typo, alone), but the same edit runs
    through all of them."""
    pages = vector_methods(kind)
    assert not compare_documents(pages[0], pages[1]).similar
    assert _groups(pages) == []
    # a copy with the digit edited once is still the same page
    copy = dict(pages[0], id="copy", url=pages[0]["url"] + "?copy")
    field = "text" if kind == "text" else "html"
    copy[field] = copy[field].replace("graphene_vec2_t", "graphene_vec3_t", 1)
    assert compare_documents(pages[0], copy).similar


# --- index pages by first character: the same words, named by a symbol ------------------------


@pytest.mark.parametrize("kind", KINDS)
def test_index_pages_of_the_same_words_named_by_a_symbol_form_no_group(kind: str) -> None:
    """Haddock's index pages of "+", "-", ..., "X": the same module names under each, so the
    verifier's words are the same (reason ``exact``); their names and symbols differ. One text
    under two names is still one page."""
    pages = symbol_indexes(kind)
    verdict = compare_documents(pages[0], pages[1])
    assert not verdict.similar and verdict.reason == "subject-differs"
    assert _groups(pages) == []
    copy = dict(pages[0], id="copy", url=pages[0]["url"] + "?copy")
    assert compare_documents(pages[0], copy).reason == "exact"
