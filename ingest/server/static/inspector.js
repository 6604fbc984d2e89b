// neardup inspector: an overview of the index (pages by state, groups by size, duplicates per
// site), the largest duplicate groups page by page, why each member is a duplicate of its
// representative (the trustable LCS region, highlighted in both texts, which scroll together),
// and what became of any page, found by id, URL or words.
//
// Page content is only ever written with textContent / createTextNode, never as HTML: pages
// are untrusted input. The server sends each text already cut into {text, mark} segments, so
// no offset arithmetic happens here (Python counts code points, JavaScript UTF-16 units).
// No inline script, handler or style: everything is wired here and styled by classes in
// inspector.css, so a Content-Security-Policy of 'self' holds.
"use strict";

(function () {
  const TOKEN_KEY = "neardup.token";
  const PAGE = 20; // groups or pages per page of a list
  const SVG = "http://www.w3.org/2000/svg";
  const $ = (id) => document.getElementById(id);
  // The API sits beside /inspector/, also behind a path prefix (an ingress rewriting paths).
  const BASE = location.pathname.replace(/\/inspector(\/.*)?$/, "");
  const VIEWS = ["groups-view", "group-view", "page-view", "find-view"];

  function el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v === null || v === undefined) continue;
      if (k === "class") node.className = v;
      else if (k === "dataset") Object.assign(node.dataset, v);
      else node.setAttribute(k, v);
    }
    for (const c of children) {
      if (c === null || c === undefined) continue;
      node.appendChild(typeof c === "string" ? document.createTextNode(c) : c);
    }
    return node;
  }

  function svg(tag, attrs, text) {
    const node = document.createElementNS(SVG, tag);
    for (const [k, v] of Object.entries(attrs || {})) node.setAttribute(k, String(v));
    if (text !== undefined) node.textContent = String(text);
    return node;
  }

  function show(view) {
    for (const v of VIEWS) $(v).hidden = v !== view;
  }

  function status(text, isError) {
    const s = $("status");
    s.textContent = text || "";
    s.classList.toggle("error", Boolean(isError));
  }

  class Unauthorized extends Error {}

  async function api(path) {
    const headers = { Accept: "application/json" };
    const token = sessionStorage.getItem(TOKEN_KEY);
    if (token) headers.Authorization = "Bearer " + token;
    const res = await fetch(BASE + path, { headers });
    if (res.status === 401) throw new Unauthorized("a token is needed");
    let body = null;
    try { body = await res.json(); } catch (e) { /* not JSON */ }
    if (!res.ok) {
      const reason = body && body.error ? body.error.reason : res.statusText;
      throw new Error(res.status + ": " + reason);
    }
    return body;
  }

  function fmt(x) {
    return typeof x === "number" ? x.toFixed(3) : "–";
  }

  function label(doc) {
    return doc.title || doc.url || doc.id;
  }

  // A page's url is untrusted input: only http(s) URLs become links (a javascript: or data:
  // URL would run in this page's origin when clicked); anything else is shown as text.
  function safeHref(url) {
    if (typeof url !== "string") return null;
    try {
      const parsed = new URL(url, location.href);
      return parsed.protocol === "http:" || parsed.protocol === "https:" ? parsed.href : null;
    } catch (e) {
      return null;
    }
  }

  function urlNode(url) {
    const href = safeHref(url);
    return href
      ? el("a", { href, rel: "noopener noreferrer", target: "_blank" }, url)
      : el("span", { class: "url" }, url);
  }

  function pageLink(id, text) {
    return el("a", { href: "#/pages/" + encodeURIComponent(id) }, text || id);
  }

  function groupLink(id, text) {
    return el("a", { href: "#/groups/" + encodeURIComponent(id) }, text || id);
  }

  function stateBadge(state) {
    return el("span", { class: "badge state-" + (state || "unknown") }, state || "?");
  }

  // -- pagination -------------------------------------------------------------------------

  function pager(nav, offset, shown, total, go) {
    // a pager's buttons, made once: previous, where the shown rows are, next
    if (!nav.querySelector(".prev")) {
      nav.append(el("button", { type: "button", class: "prev" }, "\u2039 previous"),
                 el("span", { class: "where" }),
                 el("button", { type: "button", class: "next" }, "next \u203a"));
    }
    const prev = nav.querySelector(".prev");
    const next = nav.querySelector(".next");
    const last = offset + shown;
    nav.querySelector(".where").textContent = shown
      ? (offset + 1) + "–" + last + (total !== null ? " of " + total : "")
      : "";
    prev.disabled = offset <= 0;
    next.disabled = total !== null ? last >= total : shown < PAGE;
    prev.onclick = () => go(Math.max(0, offset - PAGE));
    next.onclick = () => go(offset + PAGE);
    nav.hidden = offset === 0 && next.disabled;
  }

  // -- charts (SVG, drawn here: no chart library) -------------------------------------------

  function columnChart(box, points, xTitle, yTitle) {
    // points: [{label, value}] as vertical bars with their value on top
    box.replaceChildren();
    if (!points.length) { box.appendChild(el("p", { class: "muted" }, "nothing grouped yet")); return; }
    const W = 460, H = 220, left = 44, bottom = 40, top = 18, right = 10;
    const max = Math.max(...points.map((p) => p.value));
    const step = (W - left - right) / points.length;
    const bar = Math.max(2, Math.min(48, step * 0.7));
    const chart = svg("svg", { viewBox: "0 0 " + W + " " + H, width: W, height: H, role: "img",
      "aria-label": yTitle + " by " + xTitle, class: "chart-svg" });
    const scale = (v) => (H - bottom - top) * (v / max);
    chart.appendChild(svg("line", { x1: left, y1: H - bottom, x2: W - right, y2: H - bottom, class: "axis" }));
    chart.appendChild(svg("line", { x1: left, y1: top, x2: left, y2: H - bottom, class: "axis" }));
    chart.appendChild(svg("text", { x: left - 6, y: top + 4, class: "tick", "text-anchor": "end" }, max));
    chart.appendChild(svg("text", { x: left - 6, y: H - bottom, class: "tick", "text-anchor": "end" }, 0));
    points.forEach((p, i) => {
      const x = left + i * step + (step - bar) / 2;
      const h = Math.max(1, scale(p.value));
      const g = svg("g", { class: "bar", "data-label": p.label, "data-value": p.value });
      const rect = svg("rect", { x, y: H - bottom - h, width: bar, height: h });
      rect.appendChild(svg("title", {}, p.value + " " + yTitle + " of " + p.label + " " + xTitle));
      g.appendChild(rect);
      g.appendChild(svg("text", { x: x + bar / 2, y: H - bottom - h - 4, class: "value", "text-anchor": "middle" }, p.value));
      g.appendChild(svg("text", { x: x + bar / 2, y: H - bottom + 14, class: "tick", "text-anchor": "middle" }, p.label));
      chart.appendChild(g);
    });
    chart.appendChild(svg("text", { x: (W + left) / 2, y: H - 6, class: "axis-title", "text-anchor": "middle" }, xTitle));
    box.appendChild(chart);
  }

  function barChart(box, points, unit) {
    // points: [{label, value}] as horizontal bars, labelled on the left
    box.replaceChildren();
    if (!points.length) { box.appendChild(el("p", { class: "muted" }, "no duplicates yet")); return; }
    const W = 460, row = 22, left = 170, right = 40;
    const H = points.length * row + 8;
    const max = Math.max(...points.map((p) => p.value));
    const chart = svg("svg", { viewBox: "0 0 " + W + " " + H, width: W, height: H, role: "img",
      "aria-label": unit + " per site", class: "chart-svg" });
    points.forEach((p, i) => {
      const y = 4 + i * row;
      const w = Math.max(1, (W - left - right) * (p.value / max));
      const g = svg("g", { class: "bar", "data-label": p.label, "data-value": p.value });
      const name = p.label.length > 26 ? p.label.slice(0, 25) + "…" : p.label;
      g.appendChild(svg("text", { x: left - 6, y: y + 14, class: "tick", "text-anchor": "end" }, name));
      const rect = svg("rect", { x: left, y, width: w, height: row - 6 });
      rect.appendChild(svg("title", {}, p.label + ": " + p.value + " " + unit));
      g.appendChild(rect);
      g.appendChild(svg("text", { x: left + w + 4, y: y + 14, class: "value" }, p.value));
      chart.appendChild(g);
    });
    box.appendChild(chart);
  }

  // -- views --------------------------------------------------------------------------------

  async function showOverview(offset) {
    status("loading groups…");
    const [data, ov] = await Promise.all([
      api("/api/groups?size=" + PAGE + "&offset=" + offset),
      api("/api/overview"),
    ]);
    const multi = ov.size_histogram.filter((b) => b.size > 1);
    const multiGroups = multi.reduce((n, b) => n + b.groups, 0);
    $("summary").textContent =
      "index " + data.index + " · " + (data.grouped_documents ?? "?") + " grouped documents · " +
      (data.group_count ?? "?") + " groups (pages without duplicates included)" +
      (data.settled === false ? " · repairs pending: groups may still change" : "");
    columnChart($("size-chart"), ov.size_histogram.map((b) => ({ label: String(b.size), value: b.groups })),
      "pages per group", "groups");
    barChart($("site-chart"), ov.duplicates_by_site.map((s) => ({ label: s.site, value: s.duplicates })),
      "duplicates");
    const states = $("state-counts");
    states.replaceChildren();
    const counts = Object.assign({ pending: 0, error: 0, grouped: 0 }, ov.status);
    for (const [state, n] of Object.entries(counts)) {
      states.appendChild(el("li", { dataset: { state } },
        el("a", { href: "#/find?state=" + state }, state), " " + n));
    }
    states.appendChild(el("li", { dataset: { state: "short" } },
      el("a", { href: "#/find?state=short" }, "too short to fingerprint"), " (list)"));
    const tbody = $("groups").querySelector("tbody");
    tbody.replaceChildren();
    for (const g of data.groups) {
      const href = "#/groups/" + encodeURIComponent(g.id);
      const row = el("tr", { class: "group-row", dataset: { group: g.id } },
        el("td", { class: "size" }, String(g.size)),
        el("td", {}, el("a", { href }, g.title || g.url || g.id)),
        el("td", {}, g.site || ""),
        el("td", { class: "snippet" }, g.snippet || ""));
      row.addEventListener("click", (ev) => {
        if (ev.target.tagName !== "A") location.hash = href;
      });
      tbody.appendChild(row);
    }
    pager($("groups-pager"), offset, data.groups.length, multiGroups,
      (o) => { location.hash = "#/?offset=" + o; });
    show("groups-view");
    status(data.groups.length ? "" : (ov.exists ? "no group with two or more members yet"
      : "index " + data.index + " does not exist yet: ingest pages first"));
  }

  function rate(name, value, threshold) {
    if (typeof value !== "number") return null;
    const text = name + " " + fmt(value);
    if (typeof threshold !== "number") return el("span", { class: "score" }, text);
    const ok = value >= threshold;
    return el("span", { class: "score " + (ok ? "pass" : "fail"), title: ok ? "passes the threshold" : "below the threshold" },
      text + " ", el("span", { class: "threshold" }, (ok ? "≥ " : "< ") + threshold.toFixed(3)));
  }

  function textPane(title, segments) {
    const pre = el("pre", { class: "text" });
    for (const seg of segments) {
      pre.appendChild(seg.mark ? el("mark", { class: "tlcs" }, seg.text) : document.createTextNode(seg.text));
    }
    return el("div", { class: "side" }, el("h3", {}, title), pre);
  }

  // The two texts of a pair scroll together: aligned on their highlighted regions (the same
  // text on both sides), or in proportion when a side has none.
  function syncPanes(a, b) {
    let driver = null;
    const anchor = (pre) => {
      const mark = pre.querySelector("mark");
      return mark ? mark.offsetTop - pre.offsetTop : null;
    };
    const follow = (from, to) => () => {
      if (driver && driver !== from) { driver = null; return; }
      driver = from;
      const fa = anchor(from), ta = anchor(to);
      let top;
      if (fa !== null && ta !== null) top = ta + (from.scrollTop - fa);
      else {
        const range = from.scrollHeight - from.clientHeight;
        top = range > 0 ? (from.scrollTop / range) * (to.scrollHeight - to.clientHeight) : 0;
      }
      top = Math.max(0, Math.min(top, to.scrollHeight - to.clientHeight));
      if (Math.abs(to.scrollTop - top) < 1) { driver = null; return; }
      to.scrollTop = top;
    };
    a.addEventListener("scroll", follow(a, b));
    b.addEventListener("scroll", follow(b, a));
  }

  async function showGroup(id) {
    status("comparing the members with the representative…");
    const data = await api("/api/groups/" + encodeURIComponent(id) + "/explain?members=50");
    const rep = data.representative;
    const t = data.thresholds || {};
    $("group-title").textContent = "Group " + data.id + " · " + data.size + " members · representative: " + label(rep);
    const box = $("members");
    box.replaceChildren();
    for (const m of data.members) {
      const doc = m.document;
      const v = m.verdict || {};
      const rates = t.decision === "content"
        ? [rate("word resemble", v.word_resemble, t.word_resemble),
           rate("core resemble", v.core_resemble, t.core_resemble),
           rate("word contain", v.word_contain, t.word_contain),
           rate("TLCS resemble", v.resemble), rate("contain", v.contain)]
        : [rate("resemble", v.resemble, t.resemble), rate("contain", v.contain, t.contain)];
      const head = el("div", { class: "member-head" },
        el("strong", {}, pageLink(doc.id, label(doc))),
        m.error
          ? el("span", { class: "error" }, "verifier error: " + m.error)
          : el("span", { class: "verdict " + (v.similar ? "similar" : "not-similar") },
              v.similar ? "duplicate" : "not similar on re-check"),
        v.reason ? el("span", { class: "reason", title: "why the verifier decided so" }, "reason: " + v.reason) : null,
        ...rates,
        el("span", { class: "score" }, "TLCS " + (v.tlcs ?? "–") + " chars"),
        el("span", { class: "score stored" }, "stored: resemble " + fmt(doc.resemble) + ", contain " + fmt(doc.contain)),
        doc.url ? urlNode(doc.url) : null);
      const left = textPane("representative · " + rep.id, m.representative_segments);
      const right = textPane("member · " + doc.id, m.member_segments);
      box.appendChild(el("article", { class: "member", dataset: { member: doc.id } }, head,
        el("div", { class: "pair" }, left, right)));
    }
    show("group-view");
    // Bring each highlighted region into view, then let each pair scroll together.
    for (const pair of box.querySelectorAll(".pair")) {
      const [a, b] = pair.querySelectorAll("pre.text");
      for (const pre of [a, b]) {
        const mark = pre.querySelector("mark");
        if (mark) pre.scrollTop = Math.max(0, mark.offsetTop - pre.offsetTop - 40);
      }
      syncPanes(a, b);
    }
    status(data.truncated ? "showing the first " + data.members.length + " members" : "");
  }

  function field(dl, name, value) {
    if (value === null || value === undefined || value === "") return;
    dl.appendChild(el("dt", {}, name));
    dl.appendChild(el("dd", {}, value));
  }

  async function showPage(id) {
    status("loading the page…");
    const doc = await api("/documents/" + encodeURIComponent(id));
    $("page-title").textContent = label(doc);
    const st = $("page-state");
    st.querySelector(".badge").replaceWith(stateBadge(doc.state));
    st.querySelector(".why").textContent = doc.explanation;
    const dl = $("page-fields");
    dl.replaceChildren();
    field(dl, "id", doc.id);
    if (doc.url) field(dl, "url", urlNode(doc.url));
    field(dl, "site", doc.site);
    if (doc.dup_group) field(dl, "group", groupLink(doc.dup_group));
    if (doc.dup_of) field(dl, "verified against", pageLink(doc.dup_of));
    if (typeof doc.resemble === "number") field(dl, "resemble / contain", fmt(doc.resemble) + " / " + fmt(doc.contain));
    field(dl, "status", doc.status);
    field(dl, "error", doc.error);
    field(dl, "length", doc.length + " characters, " + doc.fingerprint_count + " fingerprints");
    field(dl, "ingested", doc.ingested_at);
    field(dl, "grouped", doc.grouped_at);
    $("page-snippet").textContent = doc.snippet || "";
    show("page-view");
    status("");
  }

  async function showFind(params) {
    const q = params.get("q") || "";
    const state = params.get("state") || "";
    const offset = Math.max(0, parseInt(params.get("offset") || "0", 10) || 0);
    $("lookup-q").value = q;
    $("lookup-state").value = state;
    status("looking up…");
    const query = new URLSearchParams({ size: String(PAGE), offset: String(offset) });
    if (q) query.set("q", q);
    if (state) query.set("state", state);
    const data = await api("/api/pages?" + query.toString());
    $("find-title").textContent = (q ? "Pages for “" + q + "”" : "Pages") +
      (state ? " · state " + state : "") + " · " + data.total + " found";
    const tbody = $("found").querySelector("tbody");
    tbody.replaceChildren();
    for (const p of data.pages) {
      tbody.appendChild(el("tr", { class: "page-row", dataset: { page: p.id } },
        el("td", {}, pageLink(p.id, label(p)), el("div", { class: "muted" }, p.id)),
        el("td", {}, stateBadge(p.state), el("div", { class: "why" }, p.explanation)),
        el("td", {}, p.dup_group ? groupLink(p.dup_group) : "–"),
        el("td", { class: "snippet" }, p.snippet || "")));
    }
    pager($("find-pager"), offset, data.pages.length, data.total, (o) => {
      const next = new URLSearchParams(params);
      next.set("offset", String(o));
      location.hash = "#/find?" + next.toString();
    });
    show("find-view");
    status(data.total ? "" : "no page found");
  }

  async function route() {
    const hash = location.hash || "#/";
    const group = hash.match(/^#\/groups\/(.+)$/);
    const page = hash.match(/^#\/pages\/(.+)$/);
    const find = hash.match(/^#\/find\?(.*)$/);
    const home = hash.match(/^#\/(\?(.*))?$/);
    try {
      if (group) await showGroup(decodeURIComponent(group[1]));
      else if (page) await showPage(decodeURIComponent(page[1]));
      else if (find) await showFind(new URLSearchParams(find[1]));
      else {
        const params = new URLSearchParams(home && home[2] ? home[2] : "");
        await showOverview(Math.max(0, parseInt(params.get("offset") || "0", 10) || 0));
      }
    } catch (err) {
      if (err instanceof Unauthorized) {
        $("token-form").hidden = false;
        status("enter the service token to continue", true);
      } else {
        status(String(err.message || err), true);
      }
    }
  }

  $("token-form").addEventListener("submit", (ev) => {
    ev.preventDefault();
    sessionStorage.setItem(TOKEN_KEY, $("token").value);
    $("token-form").hidden = true;
    route();
  });
  $("lookup").addEventListener("submit", (ev) => {
    ev.preventDefault();
    const params = new URLSearchParams();
    const q = $("lookup-q").value.trim();
    const state = $("lookup-state").value;
    if (q) params.set("q", q);
    if (state) params.set("state", state);
    if (!q && !state) return;
    location.hash = "#/find?" + params.toString();
  });
  window.addEventListener("hashchange", route);
  route();
})();
