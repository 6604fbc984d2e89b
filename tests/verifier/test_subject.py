"""The template-sibling rule's word test (:mod:`neardup.verifier.subject`)."""

from __future__ import annotations

import hashlib
import math
from collections import Counter

import pytest
import regex
from hypothesis import given, settings
from hypothesis import strategies as st

from neardup.verifier.subject import (
    _TOKEN,
    _WORD,
    HEAD_WORDS,
    MIN_REPEATS,
    REPEAT_WORDS,
    _form,
    _forms_of,
    _near_pattern,
    identifier_words,
    is_identifier,
    name_differs,
    named_things,
    own_differs,
    own_lines,
    spelling_variants,
    subject_differs,
    subject_words,
)

FG = ("Fill with FG Color. The Fill with FG Color command fills the selection with the FG "
      "color of the toolbox. Edit, Fill with FG Color.")


def test_the_subject_at_the_head_that_the_other_page_lacks() -> None:
    bg = FG.replace("FG", "BG")
    assert subject_words(FG, bg) == ["fg"]
    assert subject_words(bg, FG) == ["bg"]
    assert subject_differs(FG, bg)


def test_spelling_variants_and_typos_are_the_same_word() -> None:
    gb = FG.replace("Color", "Colour").replace("color", "colour")
    assert not subject_differs(FG, gb)
    dialog = "Unit Editor dialog. The dialog shows units; close the dialog; dialog help. " * 2
    assert not subject_differs(dialog, dialog.replace("dialog", "dialogue"))
    typo = "Harbour closes. The harbour authority said the harbour and the harbour pier close."
    assert not subject_differs(typo, typo.replace("harbour", "hrabour", 2))


def test_a_link_to_a_sibling_does_not_make_it_the_pages_subject() -> None:
    # Generated manuals name the previous and next page: once, against four times and more.
    bg = FG.replace("FG", "BG") + " Previous: Fill with FG Color."
    fg = FG + " Next: Fill with BG Color."
    assert subject_words(FG.replace("FG", "BG"), fg) == ["bg"]
    assert subject_differs(fg, bg)
    # ... but pages that name each other's subject as often are about both.
    assert not subject_differs(fg + " BG" * MIN_REPEATS, bg + " FG" * MIN_REPEATS)


def test_words_must_open_the_page_and_recur() -> None:
    body = "The layer is changed by the command, and the boundary of the layer is kept. " * 3
    once = "Fill with FG Color. " + body
    assert not subject_differs(once, once.replace("FG", "BG"))  # FG only once
    late = body + "Zebra zebra zebra zebra."
    assert not subject_differs(late, body + "Lion lion lion lion.")  # not at the head


def test_latin_words_inside_chinese_text() -> None:
    a = "照plien照的说明，plien照片。plien与plien相同。" * 2
    assert subject_words(a, a) == []
    assert subject_words(a, a.replace("plien", "brok")) == ["plien"]
    assert subject_words("中文页面，没有拉丁字母。" * 4, "另一个页面。") == []
    # a Chinese page of 100 characters is no short page: its Latin head word must recur 4 times
    long_zh = "Linux系统的安装说明，Linux版本。" + "这是一个关于操作系统安装步骤的详细说明文字。" * 4
    assert subject_words(long_zh, long_zh.replace("Linux", "Windows")) == []
    assert subject_words(long_zh + "Linux，Linux。", long_zh.replace("Linux", "Windows")) == [
        "linux"]


def _reference_subject_words(a: str, b: str) -> list[str]:
    """The rule written plainly: every near count by the fuzzy whole-word search."""
    words = [w.casefold() for w in _WORD.findall(a)]
    counts = Counter(words)
    size = len(words) + sum(regex.match(r"[\p{Han}\p{Hiragana}\p{Katakana}\p{Hangul}]", c)
                            is not None for c in a)
    need = min(MIN_REPEATS, max(2, math.ceil(size / REPEAT_WORDS)))
    head = [w for w in dict.fromkeys(words[:HEAD_WORDS]) if counts[w] >= need]
    other = Counter(w.casefold() for w in _WORD.findall(b))
    # a word written as an identifier wherever it occurs counts only as itself
    idents = {w.casefold() for w in _WORD.findall(a)} - {
        w.casefold() for w in _WORD.findall(a) if not is_identifier(w)}
    return [w for w in head
            if (len(w) >= 3 or w in idents)
            and (other[w] if len(w) < 4 or w in idents else len(_near_pattern(w).findall(b)))
            * MIN_REPEATS <= counts[w]]


_VOCABULARY = ["color", "colour", "colr", "fill", "fg", "bg", "layer", "layers", "selection",
               "selektion", "the", "of", "harbour", "harbor", "pier", "Ünit", "unit", "12",
               "XCOS", "XCOT", "xcos", "DefBool", "DefCool"]


@given(st.lists(st.sampled_from(_VOCABULARY), min_size=4, max_size=60),
       st.lists(st.sampled_from(_VOCABULARY), min_size=0, max_size=60),
       st.sampled_from([" ", ", ", "-", ". ", "\n"]))
@settings(max_examples=300, deadline=None)
def test_the_shortcut_on_exact_counts_decides_as_the_fuzzy_search(
    a: list[str], b: list[str], sep: str
) -> None:
    # The fuzzy search runs only when the exact occurrences are too few: the words found are
    # the same as when it runs for every word.
    ta, tb = sep.join(a), sep.join(b)
    assert subject_words(ta, tb) == _reference_subject_words(ta, tb)


def test_identifiers_are_never_spelling_variants() -> None:
    xcos = "XCOS function. XCOS(x) returns the cosine of x. =XCOS(2). See XCOS."
    assert subject_words(xcos, xcos.replace("XCOS", "XCOT")) == ["xcos"]
    colour = "Colour dialog. The colour is set in the colour dialog; colour it."
    assert not subject_differs(colour, colour.replace("olour", "olor"))


def test_names_differ_by_a_substitution_that_tells_the_subject() -> None:
    assert name_differs("DefBool Statement\n\nThe DefBool statement.",
                        "DefCur Statement\n\nThe DefCur statement.")
    assert not name_differs("Customize\n\nOpens it.", "Customise\n\nOpens it.")
    assert not name_differs("Macro\n\nOpens it.", "Macro Dialog\n\nOpens it.")  # an addition
    # a typo in a name, used nowhere else in the page, is an edit, not another subject
    assert not name_differs("Table 1937 rows\n\nText.", "Table 1O37 rows\n\nText.")


def test_a_name_token_stands_for_one_token_of_the_other_name() -> None:
    # "arch" is in both names once as the package; the second "Arch" names the enum
    arch = "Uses of Enum lang3.arch.Processor.Arch\n\nArch is used by the Processor."
    kind = "Uses of Enum lang3.arch.Processor.Type\n\nType is used by the Processor."
    assert name_differs(arch, kind)
    assert not name_differs(arch, arch)


def test_identifiers_each_page_lacks() -> None:
    a = "package builder; @interface EqualsExclude {} see reflectionEquals, EqualsBuilder."
    b = "package builder; @interface HashCodeExclude {} see reflectionHashCode, HashCodeBuilder."
    assert identifier_words(a, b) == {"equalsexclude": 1, "reflectionequals": 1,
                                      "equalsbuilder": 1}
    assert subject_differs(a, b)
    # edits of one letter or two in a copy are typos, not other identifiers
    assert not subject_differs(a, a.replace("EqualsBuilder", "EqualsBuidler")
                               .replace("reflectionEquals", "reflectionEqals"))
    # a part replaced is another name, however long the identifier: two interfaces of one
    # family, each named once in its source listing
    header = "Licensed under the Apache License, Version 2.0. " * 6
    ints = header + "public interface FailableIntSupplier { int getAsInt() throws E; }"
    shorts = header + "public interface FailableShortSupplier { short getAsShort() throws E; }"
    assert subject_differs(ints, shorts)
    # ... while edits in every part of one name are typos of it
    edited = shorts.replace("FailableShortSupplier", "FailablShortSuplier")
    assert not subject_differs(edited.replace("getAsShort", "getAsShrot"), shorts)


def test_two_tokens_side_by_side_are_the_token_written_as_one() -> None:
    """LibreOffice's "Integrating new UNO components" in en-US and en-GB: two links' texts with a
    space between them in one, none in the other. The other page writing our identifier as two
    tokens side by side, or holding it in one token, uses it; an identifier that the other page
    names once in two words but ours uses throughout is still ours."""
    text = ("Programmers can write and integrate their own UNO components. See also LINKS for "
            "the Add-Ins of Calc. ") * 2
    us, gb = text.replace("LINKS", "Add-Ins Add-Ins"), text.replace("LINKS", "Add-InsAdd-Ins")
    assert identifier_words(us, gb) == identifier_words(gb, us) == {}
    assert not subject_differs(us, gb)
    source = "Licensed to the Apache Software Foundation. " * 4
    plain = source + "public class ContextedException extends Exception {} " * 8
    runtime = source + "public class ContextedRuntimeException extends RuntimeException {} " * 8
    assert identifier_words(plain, runtime + "a Contexted Exception") == {"contextedexception": 8}
    assert subject_differs(plain, runtime + "a Contexted Exception")


@pytest.mark.timeout(60)  # a guard: a fuzzy regular expression took minutes on these pages
def test_long_tokens_are_compared_by_their_edit_distance() -> None:
    """SQLite's release notes end with the SHA3-256 hashes of that release's files: 64-digit
    tokens, within 16 edits of each other as typos of a long token go. Each release's hashes
    are its own; one digit changed in a copy is a typo."""
    def release(n: int) -> str:
        notes = "Add support for the NULLS FIRST and NULLS LAST syntax in ORDER BY clauses. " * 3
        hashes = "\n".join(hashlib.sha3_256(f"{n}-{i}".encode()).hexdigest() for i in range(8))
        return f"SQLite Release 3.30\n\n{notes}\n\nHashes:\n\n{hashes}"

    one, two = release(0), release(1)
    assert len(identifier_words(one, two)) == len(identifier_words(two, one)) == 8
    assert subject_differs(one, two)
    digit = hashlib.sha3_256(b"0-3").hexdigest()
    edited = one.replace(digit, digit[:10] + ("1" if digit[10] != "1" else "2") + digit[11:])
    assert edited != one and not subject_differs(one, edited)


def test_on_a_short_page_one_identifier_each_is_its_subject() -> None:
    """Two index pages of one member each (23 words): the member, named once, is all that each
    page has of its own; on a longer page one identifier renamed once is an edit."""
    intro = ("Lib: File Members\n\nLib 3.2.4\n\nHere is a list of all file members with links "
             "to the files they belong to:\n\n")
    p = intro + "- p -\n\nPARSERS_EXPORT : LibDefs.hpp"
    v = intro + "- v -\n\nVALIDATORS_EXPORT : LibDefs.hpp"
    assert identifier_words(p, v) == {"parsers_export": 1}
    assert subject_differs(p, v)
    # a typo of the member is the same page
    assert not subject_differs(p, p.replace("PARSERS_EXPORT", "PARSER_EXPORT"))
    # a page of more than 25 words: one identifier each, used once, is an edit
    text = " ".join(["Each of the pages of this guide documents one option and its values."] * 3)
    assert not subject_differs(text + " See PARSERS_EXPORT.", text + " See VALIDATORS_EXPORT.")


def test_spelling_variants_are_written_in_one_spelling() -> None:
    us, gb = "Organize the colors in the dialog.", "Organise the colours in the dialogue."
    assert spelling_variants(us, gb) == (us, us)
    assert spelling_variants(us, us) is None
    assert spelling_variants("The COLOUR key.", "The COLOR key.") is None  # capitals: kept


def _forms_one_by_one(text: str) -> tuple[Counter[str], frozenset[str], dict[str, tuple[str, ...]],
                                          Counter[str]]:
    """What ``_forms_of`` computes, each token as written through ``_form`` in turn."""
    counts: Counter[str] = Counter()
    words: Counter[str] = Counter()
    shapes: dict[str, bool] = {}
    parts: dict[str, tuple[str, ...]] = {}
    for t, n in Counter(_TOKEN.findall(text)).items():
        f, ident, p, ws = _form(t)
        counts[f] += n
        shapes[f] = shapes.get(f, True) and ident
        if len(p) > len(parts.get(f, (f,))):
            parts[f] = p
        for w in ws:
            words[w] += n
    return counts, frozenset(f for f, ident in shapes.items() if ident), parts, words


TRICKY = "aAbBzZ_ 0123456789ßẞİıǅǄǆΣσςﬁ\u0301\u0307ŉ漢かカ한éÉ-.,;:'’x"


@settings(max_examples=300, deadline=None)
@given(st.text(st.sampled_from(TRICKY), max_size=60) | st.text(max_size=60))
def test_a_texts_forms_are_its_tokens_forms_counted(text: str) -> None:
    """``_forms_of`` counts prose words in C and looks at the other tokens one by one: the
    same tokens, identifiers, parts and words as each token's form taken in turn (titlecase
    letters, "ß" folding to two letters, "İ" to a letter and a mark, one-letter words)."""
    counts, idents, parts, words = _forms_of.__wrapped__(text)
    want = _forms_one_by_one(text)
    assert (counts, idents, parts, dict(words)) == (want[0], want[1], want[2], dict(want[3]))


def test_a_name_written_with_a_hyphen_is_the_same_name() -> None:
    """A twin's name that writes a compound with hyphens ("Y-Error", "Dragging-and-Dropping")
    is the other's name, though one spelling joins its words into one token."""
    body = ("\n\nThe error bars of the chart show the uncertainty of each data point. Choose "
            "the kind of error bars and the range they cover. The bars are drawn for each "
            "data series of the chart.")
    us, uk = "X/Y Error Bars" + body, "X/Y-Error Bars" + body
    assert not subject_differs(us, uk) and not subject_differs(uk, us)
    drag = ("\n\nYou can move or copy objects within a document by dragging and dropping them. "
            "Drop the object where you want it.")
    assert not subject_differs("Dragging and Dropping Within a Document" + drag,
                               "Dragging-and-Dropping Within a Document" + drag)
    # a name that adds two words stays another name
    assert subject_differs("Error Bars" + body, "Y Error Bars Settings" + body)


ROW = ("Select\n\nSelects the row that contains the cursor.\n\nChoose Table - Select - Row.\n\n"
       "This option is only available if the cursor is in a table.")
COLUMN = ("Select\n\nSelects the column that contains the cursor. This option is only available "
          "if the cursor is in a table.\n\nChoose Table - Select - Column.")


def test_a_short_page_names_its_subject_twice() -> None:
    # 26 words: "row" twice is once every REPEAT_WORDS words; four uses are not to be had.
    assert subject_words(ROW, COLUMN) == ["row"]
    assert subject_words(COLUMN, ROW) == ["column"]
    assert subject_differs(ROW, COLUMN)
    # a longer page still asks MIN_REPEATS uses of its head word
    long_row = ROW + " Data cells of a table hold the values you type." * 8
    assert not subject_words(long_row, COLUMN)


def test_two_letters_of_prose_are_no_subject() -> None:
    us = ("AutoCorrect has been activated\n\nAn URL has been detected and a hyperlink attribute "
          "has been set\n\nAutoCorrect has modified your text. A string has been detected as an "
          "URL and is now shown as a hyperlink.\n\nChoose Tools - AutoCorrect - Options tab.")
    gb = us.replace("An URL", "A URL").replace("an URL", "a URL")
    assert not subject_differs(us, gb)
    # ... while two capitals are an identifier, whatever their length
    assert subject_words(FG, FG.replace("FG", "BG")) == ["fg"]


def test_an_acronym_opening_a_name_makes_an_identifier() -> None:
    # Doxygen's letter index of variables: one member a page, the rest the template.
    code = "Class Members - Variables\n\nXerces-C++ 3.2.4\n\n- c -\n\ncode : DOMException"
    ext = "Class Members - Variables\n\nXerces-C++ 3.2.4\n\n- e -\n\nextCh : XMLTransService::TransRec"
    assert is_identifier("DOMException") and is_identifier("QName")
    assert not is_identifier("URLs") and not is_identifier("IDs")
    assert identifier_words(code, ext) == {"domexception": 1}
    assert subject_differs(code, ext)


def _index_page(name: str) -> str:
    return (f"Index\n\nThe following options are available when you select the {name} as the "
            f"index type.\n\nChoose Insert - Table of Contents and Index - Type tab (when {name} "
            "is the selected type).\n\nType and Title\n\nSpecify the type and title of the index."
            "\n\nDisplay\n\nSelect the part of the caption, based on the caption text "
            '"Illustration 24: The Sun", where "Illustration 24" was generated.\n\nReference '
            "Text\n\nIllustration 24: The Sun\n\nCategory and Number\n\nIllustration 24")


def test_a_thing_named_at_the_head_is_the_subject_though_an_example_uses_the_word() -> None:
    # Writer's index types: every one of these pages shows the caption "Illustration 24".
    illustrations, tables = _index_page("Illustration Index"), _index_page("Index of Tables")
    assert named_things(illustrations, tables) == ["illustration"]
    assert named_things(tables, illustrations) == ["tables"]
    assert subject_differs(illustrations, tables)
    # deeper in the page, the word used as often elsewhere is no subject: a UK page renaming an
    # argument of one function among many ("POWER(Base; Exponent)" / "POWER(Base; Power)")
    functions = ("Functions\n\nThis category contains the mathematical functions of Calc, "
                 "from ABS to TRUNC, each with its syntax and an example of its use. "
                 + "EXP returns e raised to the power of a number, a power. " * 3)
    us = functions + "POWER(Base; Exponent) returns Base raised to the power of Exponent."
    gb = functions + "POWER(Base; Power) returns Base raised to the power of Power."
    assert named_things(gb, us) == []


_BAR = ("Image Bar\n\nLibreOffice 7.4 Help\n\nModule\nContents\nIndex\nImage Bar\n\n{intro}\n\n"
        "Image Filter Bar\n\nThis icon on the Image bar opens the Image Filter bar, where you can "
        "use various filters on the selected picture.\n\nFilter\n\nCrop\n\nAllows to crop the "
        "display of an inserted picture. Only the display gets cropped.\n\nCrop\n\n{more}"
        "Help content debug info:")


def test_pages_with_lines_of_their_own_part() -> None:
    # One toolbar's page in two modules of a help site: each module lists its own buttons.
    calc = _BAR.format(intro="The Image bar is displayed when you insert or select an image in a "
                             "sheet.",
                       more="Anchor\n\nAllows you to switch between anchoring options.\n\n"
                            "Bring to Front\n\nMoves the selected object to the top of the "
                            "stacking order.\n\n")
    impress = _BAR.format(intro="Use the Image bar to set the color, contrast, and brightness "
                                "options for the selected graphic object.", more="")
    # the other rules see one template: no subject word, no name or named thing of its own
    assert not subject_words(calc, impress) and not subject_words(impress, calc)
    assert not (named_things(calc, impress) and named_things(impress, calc))
    assert len(own_lines(calc, impress)) == 3 and len(own_lines(impress, calc)) == 1
    assert own_differs(calc, impress) and subject_differs(calc, impress)


def test_a_line_reworded_in_place_or_lines_added_on_one_side_stay_one_page() -> None:
    us = _BAR.format(intro="Use the Image bar to set the color options for the selected object.",
                     more="")
    # the UK page rewords its opening sentence: one own line each, after the same line
    gb = _BAR.format(intro="This toolbar lets you alter how a chosen picture appears on screen.",
                     more="")
    assert len(own_lines(us, gb)) == len(own_lines(gb, us)) == 1
    assert not own_differs(us, gb) and not subject_differs(us, gb)
    # a copy with paragraphs added: only one page has lines of its own
    longer = us + ("\n\nThe filters work on a copy of the picture, and the original file is "
                   "never changed.\n\nYou can undo each filter from the Edit menu.")
    assert own_lines(us, longer) == [] and len(own_lines(longer, us)) == 2
    assert not own_differs(us, longer) and not own_differs(longer, us)
    # a sentence split across two lines, or with a word changed, is no line of its own
    split = us.replace("the selected object.", "the\nselected object.")
    assert own_lines(split, us) == own_lines(us, split) == []


def test_one_own_line_each_at_different_places_part() -> None:
    head = "Menu\n\nChoose a command from the list below.\n\n"
    a = head + "Opens a new document window.\n\nHelp\n\nAbout"
    b = head + "Help\n\nAbout\n\nShows the licence of the product."
    assert len(own_lines(a, b)) == len(own_lines(b, a)) == 1
    assert own_differs(a, b)
    # and where one page's own line opens it while the other's does not
    assert own_differs("Saves the current file to disk.\nHelp\nAbout",
                       "Help\nAbout\nPrints the current page on paper.")


def test_own_lines_stop_at_the_limit_and_within_the_comparisons(monkeypatch: pytest.MonkeyPatch) -> None:
    import neardup.verifier.subject as subject

    template = "\n".join(f"Entry {i} of the shared template list." for i in range(20))
    a = template + "\n" + "\n".join(f"Alpha {w} reads the first page only." for w in "bcdef")
    b = template + "\n" + "\n".join(f"Omega {w} writes another text entirely." for w in "bcdef")
    assert own_lines(a, b) == [20, 21, 22, 23, 24]
    assert own_lines(a, b, limit=3) == [20, 21, 22]
    # each line is compared with b's five lines that a lacks and then with all of b's passages:
    # a budget for the first two lines only leaves the others to b
    monkeypatch.setattr(subject, "OWN_COMPARISONS", 2 * (5 + 25))
    assert own_lines(a, b) == [20, 21]


_VALIDITY = ("Validity of Cell {x}\n\nDefines what data are valid for the selected cells. "
             "Using Cell {x} Validity: select the cells, choose Data - Validity and select the "
             "Criteria tab. If you select Stop as the action, invalid entries are not accepted "
             "and the previous cell {y} retained. Select Warning to display a {box} in which "
             "the entry can be accepted.")


def test_another_form_of_a_word_names_the_same_thing() -> None:
    # Calc's help in en-US and en-GB: "Cell Contents" / "Cell Content", "Document Begin" /
    # "Beginning of Document". The forms of one word (their Snowball stem) are one subject; two
    # words are two.
    us = _VALIDITY.format(x="Contents", y="contents are", box="dialog")
    gb = _VALIDITY.format(x="Content", y="content is", box="dialogue box")
    assert named_things(us, gb) == ["contents"] and named_things(gb, us) == ["content"]
    assert not subject_differs(us, gb)
    formats = _VALIDITY.format(x="Formats", y="formats are", box="dialog")
    assert named_things(us, formats) == ["contents"]
    assert subject_differs(us, formats)
    begin = ("Begin moves to the first page. Click Begin, or press Ctrl+Home: the Begin "
             "command and the Begin icon move the cursor to the start of the document.")
    beginning = begin.replace("Begin", "Beginning")
    assert subject_words(begin, beginning) == []
    assert not subject_differs(begin, beginning)
    end = begin.replace("Begin", "End")
    assert subject_differs(begin, end)


def test_index_pages_named_by_a_symbol_or_a_letter_differ() -> None:
    """Haddock's index of a library by first character: "(Index - +)", "(Index - -)", "(Index -
    X)". Each page lists other entries under the same module names, so their words can be the
    same; the names differ by a symbol or a single character each."""
    def index(mark: str) -> str:
        return (f"lens-5.0.1: Lenses, Folds and Traversals (Index - {mark})\n\nIndex - {mark}\n\n"
                + "Control.Lens.Fold, Control.Lens, Control.Lens.Operators\n\n" * 3)

    for one, two in [("+", "-"), ("#", "^"), (".", ":"), ("+", "X"), ("A", "B")]:
        assert name_differs(index(one), index(two)), (one, two)
        assert subject_differs(index(one), index(two)), (one, two)
    assert not name_differs(index("+"), index("+"))
    # a word for a symbol is not a mark: "Find & Replace" / "Find and Replace" is one page
    assert not name_differs("Find & Replace\n\nFinds text.", "Find and Replace\n\nFinds text.")
