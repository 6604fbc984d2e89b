"""The inspector in a real headless Chromium (Debian's, driven by playwright).

The page is opened against a running ``neardup serve`` with grouped pages behind it: it asks
for the token, lists the largest groups, opens one and shows the trustable LCS region
highlighted in both texts. Screenshots go to tests/artifacts/ (kept by CI as artefacts).
A page whose text is markup must show as text and run nothing; a ``javascript:`` URL stored
as a page's url is no link; the page runs under its Content-Security-Policy without a violation.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from support.ci import IN_CI, unavailable
from support.server import Stack
from support.wait import wait_for
from support.workers import ROOT

ARTIFACTS = ROOT / "tests" / "artifacts"
CHROMIUM = os.environ.get("CHROMIUM_PATH", "/usr/bin/chromium")
CHROMIUM_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]

ARTICLE = "\n".join(
    [
        "The harbour authority confirmed on Monday that the northern pier will close in March.",
        "Repairs to the sea wall are expected to take eleven weeks and cost four million euros.",
        "Ferries to the islands will leave from the southern berth until the work is finished.",
        "Fishing boats may still unload at the old quay, but only between six and ten o'clock.",
        "The mayor said the closure was overdue after two storms damaged the pier last winter.",
        "Shop owners on the waterfront worry that fewer visitors will come during the spring.",
        "A temporary footbridge will connect the car park with the ferry terminal from April.",
        "Residents can send questions to the harbour office by post or at the town hall desk.",
    ]
)
HOSTILE = '<img src=x onerror="window.__xss=1"><script>window.__xss=2</script>'
HOSTILE_URL = "javascript:window.__xss=3"


def _browser_ready() -> bool:
    try:
        import playwright  # noqa: F401
    except ImportError:
        return False
    return os.access(CHROMIUM, os.X_OK)


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    if not _browser_ready() and IN_CI:
        subprocess.run([str(ROOT / "scripts" / "browser.sh"), "install"], check=False, timeout=900)
    if not _browser_ready():
        unavailable(f"needs {CHROMIUM} and the playwright package (scripts/browser.sh install)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_FLAGS)
        yield chromium
        chromium.close()


@pytest.fixture(scope="module")
def hostile_group(stack: Stack) -> str:
    """Two near-duplicate pages whose text carries markup; returns their group id."""
    docs = [
        {"id": "xss-rep", "title": HOSTILE, "text": f"Harbour news\n{HOSTILE}\n{ARTICLE}\nAbout us"},
        {"id": "xss-member", "text": f"Menu | Home | Ports\n{ARTICLE}\n{HOSTILE}\n(c) Coast Post",
         "url": HOSTILE_URL},
    ]  # fmt: skip
    with stack.http() as http:
        for doc in docs:
            assert http.post("/documents", json=doc).status_code in (200, 201)
    found = stack.wait_grouped([d["id"] for d in docs])
    stack.refresh()
    assert found["xss-member"]["dup_group"] == found["xss-rep"]["dup_group"] == "xss-rep", (
        found,
        stack.tail_logs(),
    )
    return "xss-rep"


def test_inspector_lists_groups_and_highlights_the_trustable_region(
    browser: Any,
    stack: Stack,
    grouped: dict[str, dict[str, Any]],
    hostile_group: str,
) -> None:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    sizes: dict[str, int] = {}
    for doc in grouped.values():
        sizes[doc["dup_group"]] = sizes.get(doc["dup_group"], 0) + 1
    largest = max(sizes.values())

    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.on("console", lambda msg: errors.append(msg.text) if "Content Security Policy"
            in msg.text else None)
    response = page.goto(f"{stack.url}/inspector/")
    assert response is not None
    headers = response.headers
    assert "script-src 'self'" in headers["content-security-policy"]
    assert "frame-ancestors 'none'" in headers["content-security-policy"]
    assert headers["x-frame-options"] == "DENY" and headers["x-content-type-options"] == "nosniff"

    # the API needs the token: the page asks for it
    page.wait_for_selector("#token-form:not([hidden])")
    page.fill("#token", stack.token or "")
    page.click("#token-form button")

    rows = page.locator("tr.group-row")
    rows.first.wait_for()
    assert int(rows.first.locator("td.size").inner_text()) == largest
    assert "grouped documents" in page.inner_text("#summary")
    page.screenshot(path=str(ARTIFACTS / "inspector-groups.png"), full_page=True)

    group_id = rows.first.get_attribute("data-group")
    rows.first.locator("td.size").click()
    page.wait_for_url(f"**/inspector/#/groups/{group_id}")
    members = page.locator("article.member")
    members.first.wait_for()
    assert members.count() == sizes[group_id] - 1
    first = members.first
    assert "duplicate" in first.locator(".verdict").inner_text()
    # Every verdict says why: the reason of the re-check is on the member's line.
    reason = first.locator(".reason").inner_text()
    assert reason.startswith("reason: ") and reason.split(": ", 1)[1] in (
        "exact", "content-similar", "tlcs-resemble", "contain"
    )
    marks = first.locator("mark.tlcs")
    assert marks.count() == 2  # the region, once in each text
    for i in range(2):
        assert marks.nth(i).is_visible()
        assert len(marks.nth(i).inner_text()) > 50
    page.screenshot(path=str(ARTIFACTS / "inspector-group.png"), full_page=False)

    # page text is shown as text and never run
    page.goto(f"{stack.url}/inspector/#/groups/{hostile_group}")
    page.locator("article.member[data-member='xss-member'] mark.tlcs").first.wait_for()
    assert page.evaluate("window.__xss") is None
    assert page.locator("article.member img").count() == 0
    assert page.locator("main script").count() == 0
    texts = page.locator("article.member pre.text").all_inner_texts()
    assert any(HOSTILE in t for t in texts)
    assert HOSTILE in page.inner_text("#group-title")
    # the javascript: url is shown, as text, and is no link
    member = page.locator("article.member[data-member='xss-member']")
    assert member.locator("a[href^='javascript']").count() == 0
    assert member.locator("span.url").inner_text() == HOSTILE_URL
    member.locator("span.url").click()
    assert page.evaluate("window.__xss") is None
    page.screenshot(path=str(ARTIFACTS / "inspector-hostile-page.png"))
    assert errors == []
    page.close()
    for name in ("groups", "group", "hostile-page"):
        assert (ARTIFACTS / f"inspector-{name}.png").stat().st_size > 5_000


# -- the overview, lookup, page states, synced panes and pagination ---------------------------

REFERENCES = Path(__file__).parent / "screenshots"
UPDATE = os.environ.get("NEARDUP_UPDATE_SCREENSHOTS") == "1"
RIVER = "\n".join(
    f"Section {n}: The river authority said the inland towns along the {w} bank will get new "
    f"flood walls by {1990 + n}, and the ferry between {w} quay and the old mill keeps running."
    for n, w in enumerate(["north", "south", "east", "west", "upper", "lower"] * 6)
)
RIVER_MEMBER = RIVER.replace("Section 17: The river", "Section 17: Their river")
SHORT = "Hello there, see you soon."
PENDING = "\n".join(f"Line {n} of a page nobody has verified yet, about lighthouse {n}." for n in range(12))


def compare_screenshot(shot: bytes, name: str) -> None:
    """``shot`` against the reference ``screenshots/NAME.png``: the same size, and at most 0.5 %
    of the pixels differing noticeably (anti-aliasing may vary by a shade). The shot is kept in
    tests/artifacts/ (with a difference image when they differ). NEARDUP_UPDATE_SCREENSHOTS=1
    writes the references instead."""
    import io

    from PIL import Image, ImageChops

    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    (ARTIFACTS / f"{name}.png").write_bytes(shot)
    reference = REFERENCES / f"{name}.png"
    if UPDATE:
        REFERENCES.mkdir(parents=True, exist_ok=True)
        reference.write_bytes(shot)
        return
    assert reference.is_file(), f"no reference {reference} (NEARDUP_UPDATE_SCREENSHOTS=1 makes it)"
    got = Image.open(io.BytesIO(shot)).convert("RGB")
    want = Image.open(reference).convert("RGB")
    assert got.size == want.size, f"{name}: {got.size} != reference {want.size}"
    diff = ImageChops.difference(got, want)
    mask = diff.convert("L").point(lambda v: 255 if v > 40 else 0)
    changed = mask.histogram()[255]
    share = changed / (got.size[0] * got.size[1])
    if share > 0.005:
        diff.save(ARTIFACTS / f"{name}.diff.png")
    assert share <= 0.005, f"{name}: {share:.2%} of the pixels differ from {reference}"


@pytest.fixture(scope="module")
def inspector_pages(stack: Stack, grouped: dict[str, dict[str, Any]],
                    hostile_group: str) -> dict[str, dict[str, Any]]:
    """More pages behind the inspector: a long English pair, short pages (two copies and one
    alone), 24 pairs of identical notices (more groups than a page of the list holds) and a
    page left pending (accepted by ``neardup ingest`` on a queue no worker consumes). Returns
    every page the stack holds, grouped, by id (the pending one excepted)."""
    docs = [
        {"id": "river-rep", "text": f"River news | Home | Ports\n{RIVER}\n(c) River Post", "site": "river.example"},
        {"id": "river-member", "text": f"Menu | Towns\n{RIVER_MEMBER}\nAbout the gazette", "site": "gazette.example"},
        {"id": "short-a", "text": SHORT, "url": "https://short.example/a", "site": "short.example"},
        {"id": "short-b", "text": SHORT, "site": "copies.example"},
        {"id": "short-c", "text": "Goodbye for now."},
    ]  # fmt: skip
    for n in range(24):
        for side in ("a", "b"):
            docs.append({"id": f"notice-{n:02d}-{side}", "text": f"Notice number {n}: the office is closed.",
                         "site": f"notices-{side}.example"})  # fmt: skip
    with stack.http() as http:
        r = http.post("/documents", content="\n".join(json.dumps(d) for d in docs))
        assert r.status_code == 200 and not r.json()["errors"], r.text
    found = stack.wait_grouped([d["id"] for d in docs] + ["xss-rep", "xss-member"])
    pending = subprocess.run(
        [sys.executable, "-m", "neardup.ingest.cli", "ingest", "-", "--no-progress"],
        input=json.dumps({"id": "waiting-page", "text": PENDING}) + "\n",
        env=dict(os.environ, OPENSEARCH_URL=stack.opensearch_url, NEARDUP_INDEX=stack.index,
                 CELERY_BROKER_URL=stack.broker_url, NEARDUP_QUEUE=f"{stack.queue}.nobody"),
        cwd=ROOT, capture_output=True, text=True, timeout=120,
    )
    assert pending.returncode == 0, pending.stderr
    stack.refresh()
    # a written batch stays pending (accepted, not yet searchable) until the pages index's own
    # refresh has shown it, up to 3 s (docs/workers.md, step 7): wait for the waiting page alone
    with stack.http() as http:
        wait_for(lambda: http.get("/api/overview").json()["status"].get("pending"),
                 "the written pages to leave the pending state", 30, until=lambda n: n == 1)
    assert found["river-member"]["dup_group"] == "river-rep", found["river-member"]
    assert found["short-b"]["dup_group"] == "short-a" and found["short-c"]["dup_group"] == "short-c"
    return {**grouped, **found}


def test_inspector_overview_lookup_states_and_synced_panes(
    browser: Any, stack: Stack, inspector_pages: dict[str, dict[str, Any]]
) -> None:
    from collections import Counter

    from playwright.sync_api import expect

    sizes = Counter(d["dup_group"] for d in inspector_pages.values())
    histogram = sorted(Counter(sizes.values()).items())
    duplicates = Counter(d.get("site") or "(no site)" for d in inspector_pages.values()
                         if d.get("dup_of"))  # fmt: skip
    multi = sum(n for size, n in histogram if size > 1)
    assert multi > 20  # more groups than one page of the list

    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.goto(f"{stack.url}/inspector/")
    page.evaluate(f"sessionStorage.setItem('neardup.token', {json.dumps(stack.token)})")
    page.reload()

    # the group-size histogram and the duplicates-per-site chart, drawn as SVG from the index
    page.locator("#size-chart svg g.bar").first.wait_for()
    bars = page.locator("#size-chart svg g.bar")
    drawn = [(int(bars.nth(i).get_attribute("data-label") or 0),
              int(bars.nth(i).get_attribute("data-value") or 0)) for i in range(bars.count())]  # fmt: skip
    assert drawn == histogram
    sites = page.locator("#site-chart svg g.bar")
    drawn_sites = {sites.nth(i).get_attribute("data-label"): int(sites.nth(i).get_attribute("data-value") or 0)
                   for i in range(sites.count())}  # fmt: skip
    assert drawn_sites == dict(duplicates.most_common(20))
    counts = page.locator("#state-counts li[data-state='pending']").inner_text()
    assert counts.endswith(" 1")
    compare_screenshot(page.locator("#overview").screenshot(), "inspector-overview")
    compare_screenshot(page.locator("#groups").screenshot(), "inspector-group-list")

    # pagination: 20 groups a page, the rest on the next
    assert page.locator("tr.group-row").count() == 20
    assert page.locator("#groups-pager .where").inner_text() == f"1–20 of {multi}"
    page.click("#groups-pager .next")
    page.wait_for_url("**/inspector/#/?offset=20")
    expect(page.locator("#groups-pager .where")).to_have_text(f"21–{multi} of {multi}")
    assert page.locator("tr.group-row").count() == multi - 20
    assert page.locator("#groups-pager .next").is_disabled()

    # lookup by URL, then the page's state: too short to fingerprint, grouped with its copy
    page.fill("#lookup-q", "https://short.example/a")
    page.click("#lookup button")
    page.locator("#find-view:not([hidden]) tr.page-row").first.wait_for()
    assert page.locator("tr.page-row").first.get_attribute("data-page") == "short-a"
    page.fill("#lookup-q", "short-c")  # by id
    page.click("#lookup button")
    expect(page.locator("tr.page-row").first).to_have_attribute("data-page", "short-c")
    row = page.locator("tr.page-row").first
    assert row.locator(".badge").inner_text() == "too-short"
    row.locator("a").first.click()
    page.wait_for_url("**/inspector/#/pages/short-c")
    page.locator("#page-view:not([hidden])").wait_for()
    state = page.inner_text("#page-state")
    assert "too short to fingerprint" in state and "exact copies" in state
    compare_screenshot(page.locator("#page-state").screenshot(), "inspector-page-too-short")

    # the pending page, listed by state, says it waits for a worker
    page.select_option("#lookup-state", "pending")
    page.fill("#lookup-q", "")
    page.click("#lookup button")
    expect(page.locator("tr.page-row").first).to_have_attribute("data-page", "waiting-page")
    assert page.locator("tr.page-row").count() == 1
    assert "waiting for a verification worker" in page.locator("tr.page-row .why").inner_text()
    # by words
    page.select_option("#lookup-state", "")
    page.fill("#lookup-q", "flood walls")
    page.click("#lookup button")
    expect(page.locator("tr.page-row").first).to_have_attribute("data-page", re.compile("^river-"))
    assert {r.get_attribute("data-page") for r in page.locator("tr.page-row").all()} == {
        "river-rep", "river-member"}

    # a group: thresholds beside the rates, word-aligned highlights, panes scrolling together
    page.goto(f"{stack.url}/inspector/#/groups/river-rep")
    member = page.locator("article.member[data-member='river-member']")
    member.wait_for()
    assert member.locator(".score.pass .threshold").first.inner_text().startswith("≥ 0.")
    assert "word resemble" in member.locator(".member-head").inner_text()
    cut = page.evaluate("""() => {
        const bad = [];
        for (const mark of document.querySelectorAll("article.member mark.tlcs")) {
            const before = mark.previousSibling ? mark.previousSibling.textContent.slice(-1) : "";
            const after = mark.nextSibling ? mark.nextSibling.textContent.slice(0, 1) : "";
            const t = mark.textContent;
            if (!/[A-Za-z0-9]/.test(t)) bad.push("sliver: " + JSON.stringify(t));
            if (/[A-Za-z0-9]/.test(before) && /[A-Za-z0-9]/.test(t[0])) bad.push("starts mid-word: " + t.slice(0, 20));
            if (/[A-Za-z0-9]/.test(after) && /[A-Za-z0-9]/.test(t.slice(-1))) bad.push("ends mid-word: " + t.slice(-20));
        }
        return bad;
    }""")
    assert cut == []
    left, right = member.locator("pre.text").nth(0), member.locator("pre.text").nth(1)
    assert left.evaluate("p => p.scrollHeight > p.clientHeight")  # long enough to scroll
    compare_screenshot(member.screenshot(), "inspector-group-pair")
    before = right.evaluate("p => p.scrollTop")
    left.evaluate("p => { p.scrollTop = p.scrollTop + 200; }")
    expect(right).not_to_have_js_property("scrollTop", before)  # the other pane followed
    moved = right.evaluate("p => p.scrollTop") - before
    assert abs(moved - 200) <= 2  # the same text on both sides: aligned on the region
    assert errors == []
    page.close()


def test_get_document_says_why_a_page_is_not_grouped(
    stack: Stack, inspector_pages: dict[str, dict[str, Any]]
) -> None:
    with stack.http() as http:
        short = http.get("/documents/short-c").json()
        copy = http.get("/documents/short-b").json()
        waiting = http.get("/documents/waiting-page").json()
        river = http.get("/documents/river-member").json()
        found = http.get("/api/pages", params={"state": "short", "size": 100}).json()
    assert short["state"] == "too-short" and short["fingerprint_count"] == 0
    assert short["explanation"].startswith("too short to fingerprint: fewer than ")
    assert "never with near-duplicates" in short["explanation"]
    assert copy["state"] == "too-short" and "its group holds 2 identical pages" in copy["explanation"]
    assert waiting["state"] == "pending" and "neardup worker" in waiting["explanation"]
    assert river["state"] == "duplicate" and river["fingerprint_count"] > 0
    assert river["explanation"] == "near-duplicate in group river-rep of 2 pages, verified against river-rep"
    short_ids = {p["id"] for p in found["pages"]}
    assert {"short-a", "short-b", "short-c", "notice-00-a"} <= short_ids
    assert "river-rep" not in short_ids and found["total"] == 3 + 48
