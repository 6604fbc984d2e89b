"""The inspector in a real headless Chromium (Debian's, driven by playwright).

The page is opened against a running ``neardup serve`` with grouped pages behind it: it asks
for the token, lists the largest groups, opens one and shows the trustable LCS region
highlighted in both texts. Screenshots go to tests/artifacts/ (kept by CI as artefacts).
A page whose text is markup must show as text and run nothing; a ``javascript:`` URL stored
as a page's url is no link; the page runs under its Content-Security-Policy without a violation.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator
from typing import Any

import pytest
from test_server import (  # noqa: F401 - fixtures shared with the server tests
    IN_CI,
    ROOT,
    Stack,
    grouped,
    labelled,
    stack,
)

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
        reason = f"needs {CHROMIUM} and the playwright package (scripts/browser.sh install)"
        if IN_CI:
            pytest.fail(reason, pytrace=False)
        pytest.skip(reason)
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_FLAGS)
        yield chromium
        chromium.close()


@pytest.fixture(scope="module")
def hostile_group(stack: Stack) -> str:  # noqa: F811
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
    stack: Stack,  # noqa: F811
    grouped: dict[str, dict[str, Any]],  # noqa: F811
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
