"""The docs describe today's software (docs/*.md and README.md): no measurement logs — no
"before this stop" tables, no rows or runs named by a commit, no "History" sections —, no
table kept in two files, and no link or section reference to a page or section that is not
there. History goes to CHANGELOG.md, dated measurements to bench/results/."""

from __future__ import annotations

import os
import re
from collections import defaultdict
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCS = sorted((ROOT / "docs").glob("*.md"))
PAGES = [*DOCS, ROOT / "README.md"]

LOG_WORDING = re.compile(
    r"\bthis stop\b|\bprevious stop\b|\bthis round\b|(?:^|[.:(]\s*)before that\b", re.I | re.M
)
HISTORY_HEADING = re.compile(r"^#+\s.*\bhistory\b", re.I | re.M)
# A commit named by its hash: 7-40 hex digits holding a letter and a digit, standing alone
# (not part of a longer word or hex run, such as a sha256 digest, nor of a UUID).
COMMIT = re.compile(r"(?<![\w-])(?=[0-9a-f]*[a-f])(?=[0-9a-f]*[0-9])[0-9a-f]{7,40}(?![\w-])")
FENCE = re.compile(r"^ {0,3}(```|~~~).*?^ {0,3}\1[^\n]*$", re.M | re.S)
SEPARATOR = re.compile(r"^\s*\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)*\|?\s*$")
LINK = re.compile(r"\]\(([^)\s]+)\)")
SECTION_REF = re.compile(r"(?:docs/)?\b([\w-]+\.md)\)?,\s+\"([^\"]+)\"")


def _prose(text: str) -> str:
    """The text without its fenced code blocks (their lines kept, blank: line numbers hold)."""
    return FENCE.sub(lambda m: "\n" * m.group(0).count("\n"), text)


def _tables(text: str) -> list[tuple[int, list[str]]]:
    """Every markdown table of ``text``: (its first line's number, its lines, whitespace
    normalised) — a header row, its separator row and the rows under them."""
    lines = _prose(text).splitlines()
    found = []
    i = 0
    while i + 1 < len(lines):
        if lines[i].lstrip().startswith("|") and SEPARATOR.match(lines[i + 1]):
            j = i + 2
            while j < len(lines) and lines[j].lstrip().startswith("|"):
                j += 1
            found.append((i + 1, [" ".join(line.split()) for line in lines[i:j]]))
            i = j
        else:
            i += 1
    return found


def _cells(row: str) -> list[str]:
    return [cell.strip() for cell in row.strip().strip("|").split("|")]


def _slug(heading: str) -> str:
    """GitHub's anchor of a heading."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


def _sections(text: str) -> tuple[set[str], list[str]]:
    """The anchors of a page's headings, and the names a reference may quote: its headings and
    the bold leads of its paragraphs (``**Why the partition is exact.**``)."""
    prose = _prose(text)
    headings = [m.group(1).strip() for m in re.finditer(r"^#+\s+(.+)$", prose, re.M)]
    anchors = {_slug(h) for h in headings}
    names = [h.replace("`", "") for h in headings]
    names += [m.group(1) for m in re.finditer(r"\*\*([^*]+?)[.:—]?\*\*", prose)]
    return anchors, [" ".join(name.split()) for name in names]


def log_wording(text: str) -> list[str]:
    prose = _prose(text)
    return [m.group(0).strip() for m in LOG_WORDING.finditer(prose)] + [
        m.group(0) for m in HISTORY_HEADING.finditer(prose)
    ]


def commit_row_labels(text: str) -> list[str]:
    """Table rows named by a commit (the first cell holds a hash)."""
    return [row for _, table in _tables(text) for row in table[2:] if COMMIT.search(_cells(row)[0])]


def commits(text: str) -> list[str]:
    return COMMIT.findall(_prose(text))


def shared_tables(pages: dict[str, str]) -> list[str]:
    """Tables found in two places: the same table (header and rows), or the same measured row
    (a row with a figure) in tables of two files."""
    where_table: dict[tuple[str, ...], list[str]] = defaultdict(list)
    where_row: dict[str, set[str]] = defaultdict(set)
    for name, text in pages.items():
        for line, table in _tables(text):
            where_table[tuple(table)].append(f"{name}:{line}")
            for row in table[2:]:
                if len(_cells(row)) >= 3 and re.search(r"\d", row):
                    where_row[row].add(name)
    found = [f"{places}: {table[0]}" for table, places in where_table.items() if len(places) > 1]
    found += [f"{sorted(names)}: {row}" for row, names in where_row.items() if len(names) > 1]
    return found


def _sources() -> dict[Path, str]:
    """The project's Python files (hidden folders, such as a virtualenv, and builds left out)."""
    found = {}
    for folder, dirs, files in os.walk(ROOT):
        dirs[:] = [d for d in dirs if not d.startswith(".") and d not in {"build", "dist"}]
        for name in files:
            if name.endswith((".py", ".pyx")):
                path = Path(folder) / name
                found[path] = path.read_text(encoding="utf-8", errors="replace")
    return found


def broken_section_references(texts: dict[Path, str]) -> list[str]:
    """Quoted section references (``docs/workers.md, "Changes"``) to a section the page lacks:
    a heading that starts with the name, or a paragraph's bold lead."""
    found = []
    for path, text in texts.items():
        for m in SECTION_REF.finditer(_prose(text) if path.suffix == ".md" else text):
            page, section = ROOT / "docs" / m.group(1), " ".join(m.group(2).split())
            if not page.exists():
                continue  # another file's name (README.md of a folder): the link check's
            names = _sections(page.read_text(encoding="utf-8"))[1]
            if not any(name.startswith(section) for name in names):
                found.append(f'{path.name}: {m.group(1)}, "{section}": no such section')
    return found


def broken_links(pages: dict[Path, str]) -> list[str]:
    """Relative links to a file that is not there or to a heading its page lacks, and quoted
    section references to a section the page lacks."""
    found = []
    for path, text in pages.items():
        for m in LINK.finditer(_prose(text)):
            target, _, fragment = m.group(1).partition("#")
            if re.match(r"[a-z][a-z0-9+.-]*:", target):  # https:, mailto:
                continue
            file = (path.parent / target).resolve() if target else path
            if not file.exists():
                found.append(f"{path.name}: {m.group(1)}: no such file")
            elif fragment and file.suffix == ".md":
                if fragment not in _sections(file.read_text(encoding="utf-8"))[0]:
                    found.append(f"{path.name}: {m.group(1)}: no such heading")
    return found + broken_section_references(pages)


@pytest.fixture(scope="module")
def texts() -> dict[Path, str]:
    assert len(DOCS) >= 10, "docs/ lost its pages"
    return {path: path.read_text(encoding="utf-8") for path in PAGES}


def test_no_measurement_log_wording(texts: dict[Path, str]) -> None:
    found = {p.name: log_wording(t) for p, t in texts.items() if log_wording(t)}
    assert not found, f"history goes to CHANGELOG.md, old runs to bench/results/: {found}"


def test_no_commit_hashes(texts: dict[Path, str]) -> None:
    rows = {p.name: commit_row_labels(t) for p, t in texts.items() if commit_row_labels(t)}
    assert not rows, f"table rows named by a commit: {rows}"
    found = {p.name: commits(t) for p, t in texts.items() if commits(t)}
    assert not found, f"commits named in the docs (name the date and bench/results/): {found}"


def test_no_table_in_two_places(texts: dict[Path, str]) -> None:
    found = shared_tables({p.name: t for p, t in texts.items()})
    assert not found, "a table lives in the file that owns its topic; link to it:\n" + "\n".join(
        found
    )


def test_links_and_section_references_resolve(texts: dict[Path, str]) -> None:
    found = broken_links(texts)
    assert not found, "\n".join(found)


def test_the_code_names_sections_the_docs_have() -> None:
    sources = _sources()
    assert len(sources) >= 100, "the project's sources were not found"
    found = broken_section_references(sources)
    assert not found, "\n".join(found)


# The checks find what they are for (a check that finds nothing on any input proves nothing).

LOG_PAGE = """# Scale

**Before this stop: one index**

| pages | ratio |
|---|---|
| 30,000 | 0.34× |
| pipeline, 4008a54 | 0.31× |

Before that (one index): 0.29×.

## History: the guard
"""


def test_the_checks_find_a_measurement_log() -> None:
    assert len(log_wording(LOG_PAGE)) == 3  # "this stop", "Before that", the History heading
    assert commit_row_labels(LOG_PAGE) == ["| pipeline, 4008a54 | 0.31× |"]
    assert commits("measured at `c5f2862`, see a9505e2.") == ["c5f2862", "a9505e2"]


def test_the_checks_leave_alone_what_is_not_a_commit() -> None:
    text = (
        "sha256:" + "0123456789abcdef" * 4 + ", `urn:uuid:2685e416-...`, 1000000 pages, "
        "the word succeeded, a decade, a cafe, `s6-x10-y2-z50-m7-r16`, the batch before that one\n"
    )
    assert commits(text) == [] and log_wording(text) == []
    assert commits('```\n{"commit": "4008a54"}\n```\n') == []  # a code block's example


def test_the_checks_find_a_shared_table_and_a_broken_link(tmp_path: Path) -> None:
    table = "| pages | s | ratio |\n|---|---|---|\n| 30,000 | 39.4 | 0.31× |\n| 300,000 | 407.2 | 0.30× |\n"
    assert len(shared_tables({"a.md": table, "b.md": "Text.\n\n" + table})) == 3
    assert shared_tables({"a.md": table, "b.md": "| n | r |\n|---|---|\n| 1 | 2 |\n"}) == []
    page = tmp_path / "a.md"
    page.write_text("# A\n\n## Two words\n\n**Why so.** Because.\n", encoding="utf-8")
    good = {page: "[x](a.md#two-words) [y](#two-words)"}
    bad = {page: "[x](a.md#three-words) [y](missing.md)"}
    assert broken_links(good) == [] and len(broken_links(bad)) == 2
    code = Path("x.py")
    assert broken_section_references({code: 'see docs/workers.md, "Changes"'}) == []
    missing = f'see docs/{"workers"}.md, "No such part"'  # not a reference of this file's
    assert len(broken_section_references({code: missing})) == 1
