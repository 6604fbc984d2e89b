"""Template siblings that the sibling rule parts, and a spelling-variant twin that is grouped
(issue 37: "One template, different pages").

Each page is one of a documentation site's, with its URL and ``site``; as plain text and as
HTML. A reader calls every page of a function family or of a statement family a page of its
own, and a page and its British-English variant the same page:

* a function family whose names differ by one letter (``XCOS``, ``XCOT``, ``XCOSH``, ...) and
  whose texts differ in the name and in the one word naming what it computes;
* statement pages that share one syntax block, a keyword table and an example listing every
  sibling's name;
* a twin of about 25 words whose UK text writes "dialogue box", "organise", "customise".
"""

from __future__ import annotations

import html
import random
from typing import Any

import pytest
from neardup.ingest.pairs import compare_documents

import neardup

SITE = "help.example.org"
KINDS = ["text", "html"]


def _page(doc_id: str, path: str, text: str, kind: str) -> dict[str, Any]:
    page: dict[str, Any] = {"id": doc_id, "url": f"https://{SITE}/{path}", "site": SITE}
    if kind == "text":
        page["text"] = text
        return page
    # The first block is the title and heading; a block that ends a sentence is a paragraph,
    # the others (syntax, tables, code) are preformatted.
    title, *blocks = text.strip().split("\n\n")
    body = []
    for block in blocks:
        if block.rstrip().endswith((".", ":")) and "\t" not in block:
            body.append(f"<p>{html.escape(' '.join(block.split()))}</p>")
        else:
            body.append(f"<pre>{html.escape(block)}</pre>")
    page["html"] = (f"<html><head><title>{html.escape(title)}</title></head><body><main>"
                    f"<h1>{html.escape(title)}</h1>{''.join(body)}</main></body></html>")
    return page


def _groups(pages: list[dict[str, Any]]) -> list[set[str]]:
    """The groups of 2+ pages that ``neardup.dedup`` gives."""
    members: dict[str, set[str]] = {}
    for g in neardup.dedup(pages):
        assert g.id is not None and g.dup_group is not None
        members.setdefault(g.dup_group, set()).add(g.id)
    return [m for m in members.values() if len(m) > 1]


# --- a function family: one-letter names ----------------------------------------------------

FUNCTIONS = [("XCOS", "cosine"), ("XCOT", "cotangent"), ("XCOSH", "hyperbolic cosine"),
             ("XSIN", "sine"), ("XSINH", "hyperbolic sine")]

FUNCTION_PAGE = """{name} function

Returns the {what} of a complex number.

{name}(Complex Number)

Complex Number is a complex number given as text in the form x+yi or x+yj, or a plain number
when it has no imaginary part. The result is returned as a text string in the same form, with
the imaginary unit of the argument.

={name}("4-3i") returns a complex number in text form.
={name}(2) returns a complex number in text form.

A cell that holds a number which is not a complex number text gives the error #VALUE!, and an
empty argument is read as zero.
"""


def _functions(kind: str) -> list[dict[str, Any]]:
    return [_page(name, f"calc/func_{name.lower()}.html",
                  FUNCTION_PAGE.format(name=name, what=what), kind)
            for name, what in FUNCTIONS]


@pytest.mark.parametrize("kind", KINDS)
def test_a_function_family_with_one_letter_names_is_not_similar(kind: str) -> None:
    pages = {p["id"]: p for p in _functions(kind)}
    for a, b in [("XCOS", "XCOT"), ("XCOS", "XCOSH"), ("XSIN", "XSINH")]:
        verdict = compare_documents(pages[a], pages[b])
        assert not verdict.similar, (a, b, verdict.reason)


@pytest.mark.parametrize("kind", KINDS)
def test_a_function_family_with_one_letter_names_forms_no_group(kind: str) -> None:
    assert _groups(_functions(kind)) == []


# --- statement pages sharing a syntax block -------------------------------------------------

STATEMENTS = [("DefBool", "Boolean", "bOK", "TRUE"), ("DefCur", "Currency", "cAmount", "12.50"),
              ("DefDate", "Date", "tStart", "Now()"), ("DefDbl", "Double", "dRatio", "3.75"),
              ("DefInt", "Integer", "iCount", "10"), ("DefLng", "Long", "lTotal", "100000"),
              ("DefObj", "Object", "oDoc", "ThisComponent"),
              ("DefVar", "Variant", "vAny", '"text"')]

STATEMENT_PAGE = ("""{name} Statement

If no type-declaration character or keyword is given, the {name} statement sets the default
data type of variables by a range of letters.

Defxxx Characterrange1[, Characterrange2[,...]]

Characterrange: letters that give the range of variables whose default data type you set.

xxx: the keyword of the default variable type:

Keyword\tDefault variable type
""" + "".join(f"{n}\t{k}\n" for n, k, _, _ in STATEMENTS) + """
' Prefix definitions for variable types:
""" + "".join(f"{n} {v[0]}\n" for n, _, v, _ in STATEMENTS) + """Sub Example{name}
    {var} = {value} ' {var} is an implicit {kind} variable
End Sub
""")


def _statements(kind: str) -> list[dict[str, Any]]:
    return [_page(name, f"basic/{name.lower()}.html",
                  STATEMENT_PAGE.format(name=name, kind=what, var=var, value=value), kind)
            for name, what, var, value in STATEMENTS]


@pytest.mark.parametrize("kind", KINDS)
def test_statement_pages_sharing_a_syntax_block_are_not_similar(kind: str) -> None:
    pages = {p["id"]: p for p in _statements(kind)}
    for a, b in [("DefBool", "DefCur"), ("DefDate", "DefDbl"), ("DefInt", "DefLng")]:
        verdict = compare_documents(pages[a], pages[b])
        assert not verdict.similar, (a, b, verdict.reason)


@pytest.mark.parametrize("kind", KINDS)
def test_statement_pages_sharing_a_syntax_block_form_no_group(kind: str) -> None:
    assert _groups(_statements(kind)) == []


# --- a short spelling-variant twin ----------------------------------------------------------

US = """Customize

Opens the Customize dialog, where you organize the menus and toolbars and customize the
shortcut keys.

Choose Tools - Customize to open this dialog.
"""


def _british(text: str) -> str:
    return (text.replace("Customize", "Customise").replace("customize", "customise")
            .replace("organize", "organise").replace("dialog", "dialogue box"))


def _twin(kind: str) -> list[dict[str, Any]]:
    return [_page(f"{variant}/customize.html", f"{variant}/text/shared/customize.html", text,
                  kind)
            for variant, text in (("en-US", US), ("en-GB", _british(US)))]


def test_the_twin_is_a_short_page_in_two_spellings() -> None:
    us, gb = (p["text"] for p in _twin("text"))
    assert 20 <= len(us.split()) <= 30 and us != gb
    assert "dialogue box" in gb and "organise" in gb and "customise" in gb


@pytest.mark.parametrize("kind", KINDS)
def test_a_short_spelling_variant_twin_is_similar(kind: str) -> None:
    verdict = compare_documents(*_twin(kind))
    assert verdict.similar, verdict.reason


@pytest.mark.parametrize("kind", KINDS)
def test_a_short_spelling_variant_twin_is_grouped(kind: str) -> None:
    pages = _twin(kind)
    assert _groups(pages) == [{p["id"] for p in pages}]


# --- conversion functions: mixed-case names one letter apart ----------------------------------

CONVERSIONS = [("CLng", "a long integer", "Long"), ("CSng", "data type Single", "Single"),
               ("CInt", "an integer", "Integer"), ("CDbl", "data type Double", "Double")]

CONVERSION_PAGE = """{name} Function

Converts any string or numeric expression to {what}.

Syntax:

{name} (Expression As Variant) As {kind}

Return value:

{kind}

Parameters:

Expression: Any string or numeric expression that you want to convert. To convert a string
expression, the number must be entered using a dot as the decimal point and a comma as the
thousands separator (for instance 123,456.78), which may differ from your language settings.

Error codes:

5 Invalid procedure call

Example:

Sub ExampleConvert
    MsgBox {name}(1234.5678)
    MsgBox {name}("1234.5678")
End Sub
"""


def _conversions(kind: str) -> list[dict[str, Any]]:
    return [_page(name, f"basic/{name.lower()}.html",
                  CONVERSION_PAGE.format(name=name, what=what, kind=k), kind)
            for name, what, k in CONVERSIONS]


@pytest.mark.parametrize("kind", KINDS)
def test_functions_whose_mixed_case_names_differ_by_a_letter_form_no_group(kind: str) -> None:
    pages = {p["id"]: p for p in _conversions(kind)}
    verdict = compare_documents(pages["CLng"], pages["CSng"])
    assert not verdict.similar, verdict.reason
    assert _groups(list(pages.values())) == []


# --- operator pages: names that differ in a symbol ------------------------------------------

OPERATORS = [("+", "Adds or combines two expressions", "Sum"), ("/", "Divides two values",
                                                                  "Quotient"),
             ("-", "Subtracts two values", "Difference"), ("*", "Multiplies two values",
                                                          "Product")]

OPERATOR_PAGE = """"{op}" Operator

{what}.

Syntax:

Result = Expression1 {op} Expression2

Parameters:

Result: Any numerical expression that contains the result of the operation.

Expression1, Expression2: Any numerical expressions that you want to combine with the operator.
The expressions are evaluated from left to right, and a string that holds a number is converted
before the operation.

Example:

Sub Example{name}
    Print 8 {op} 4
    Print 8 {op} 2
End Sub
"""


def _operators(kind: str) -> list[dict[str, Any]]:
    return [_page(name, f"basic/op_{name.lower()}.html",
                  OPERATOR_PAGE.format(op=op, what=what, name=name), kind)
            for op, what, name in OPERATORS]


@pytest.mark.parametrize("kind", KINDS)
def test_operator_pages_whose_names_differ_in_a_symbol_form_no_group(kind: str) -> None:
    assert _groups(_operators(kind)) == []


# --- pages naming another thing of one kind -----------------------------------------------

INDEXES = ["Illustration Index", "Index of Tables", "Alphabetical Index", "Table of Objects"]

INDEX_PAGE = """Index

The following options are available when you select the {name} as the index type.

Choose Insert - Table of Contents and Index - Type tab (when {name} is the selected type).

Type and Title

Specify the type and title of the index. Select the type of index that you want to insert or
edit. The options available on this tab depend on the index type that you select. If the cursor
is in an index when you open the dialog, you can then edit that index.

Title

Enter a title for the selected index.

Protected against manual changes

Prevents the contents of the index from being changed. Manual changes that you make to an
index are lost when the index is refreshed. If you want the cursor to scroll through a
protected area, choose Tools - Options - Writer - Formatting Aids, and then select the Enable
cursor check box in the Protected Areas section.
"""


def _indexes(kind: str) -> list[dict[str, Any]]:
    return [_page(name, f"writer/index_{i}.html", INDEX_PAGE.format(name=name), kind)
            for i, name in enumerate(INDEXES)]


@pytest.mark.parametrize("kind", KINDS)
def test_pages_of_one_name_about_different_things_form_no_group(kind: str) -> None:
    """Four pages named "Index" that each name another kind of index, twice."""
    assert _groups(_indexes(kind)) == []


# --- pages without content: told by their title ---------------------------------------------

def _gallery(title: str) -> dict[str, Any]:
    nav = "".join(f'<li><a href="/{i}.html">Chapter {i}</a></li>' for i in range(12))
    return {"id": title, "url": f"https://{SITE}/media/{title.lower().replace(' ', '_')}.html",
            "site": SITE,
            "html": f"<html><head><title>{title}</title></head><body><header><p>Office Help"
                    f"</p></header><nav><ul>{nav}</ul></nav><div id='display'>"
                    f"<p><img src='a.png'></p></div><footer><p>Help content, version 7.4. "
                    f"Licensed under the Mozilla Public License.</p></footer></body></html>"}


def test_pages_without_content_are_told_apart_by_their_title() -> None:
    pages = [_gallery(t) for t in ("Calc Screenshots", "Filter Screenshots", "Sample Files",
                                   "Video Tutorials")]
    assert _groups(pages) == []
    same = _gallery("Calc Screenshots") | {"id": "again"}
    assert _groups([pages[0], same]) == [{"Calc Screenshots", "again"}]


# --- a twin whose translation renames identifiers -------------------------------------------

COLOR_US = """COLOR

Returns a numeric value calculated by a combination of three colors (red, green and blue) and
the alpha channel, in the RGBA color system. The result depends on the color system used by
your computer.

Syntax

COLOR(Red; Green; Blue [; Alpha])

Example

=COLOR(255;255;255;1) returns 4294967295.

=COLOR(0;0;255;0) returns 255, and the colorNumber of a cell is read the same way.
"""


def test_a_twin_whose_translation_renames_identifiers_is_grouped() -> None:
    gb = COLOR_US.replace("COLOR", "COLOUR").replace("colors", "colours").replace(
        "color", "colour").replace("colourNumber", "colourNumber")
    assert "COLOUR(" in gb and "colourNumber" in gb
    pages = [_page("en-US/color", "en-US/calc/color.html", COLOR_US, "text"),
             _page("en-GB/color", "en-GB/calc/color.html", gb, "text")]
    assert compare_documents(*pages).similar
    assert _groups(pages) == [{"en-US/color", "en-GB/color"}]


# --- every mode, any order ----------------------------------------------------------------------

def _partition(groups: dict[str, str]) -> set[frozenset[str]]:
    members: dict[str, set[str]] = {}
    for doc_id, group in groups.items():
        members.setdefault(group, set()).add(doc_id)
    return {frozenset(m) for m in members.values()}


@pytest.mark.parametrize("kind", KINDS)
def test_the_incremental_rule_gives_dedups_partition_in_any_order(kind: str) -> None:
    """The pipeline's rule in memory (:class:`neardup.ingest.incremental.IncrementalDedup`),
    pages arriving in shuffled orders: the partition of ``neardup.dedup``."""
    from neardup.ingest.incremental import IncrementalDedup

    pages = _functions(kind) + _statements(kind) + _twin(kind)
    expected = {g.id: g.dup_group for g in neardup.dedup(pages)}
    assert _partition(expected) == (
        {frozenset([p["id"]]) for p in pages[:-2]} | {frozenset(p["id"] for p in pages[-2:])})
    rng = random.Random(37)
    for _ in range(3):
        order = pages[:]
        rng.shuffle(order)
        live = IncrementalDedup()
        for page in order:
            live.put(page)
        assert _partition(live.groups()) == _partition(expected)
