// neardup inspector: the largest duplicate groups, and why each member is a duplicate of its
// representative (the trustable LCS region, highlighted in both texts).
//
// Page content is only ever written with textContent / createTextNode, never as HTML: pages
// are untrusted input. The server sends each text already cut into {text, mark} segments, so
// no offset arithmetic happens here (Python counts code points, JavaScript UTF-16 units).
"use strict";

(function () {
  const TOKEN_KEY = "neardup.token";
  const $ = (id) => document.getElementById(id);
  // The API sits beside /inspector/, also behind a path prefix (an ingress rewriting paths).
  const BASE = location.pathname.replace(/\/inspector(\/.*)?$/, "");

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

  function textPane(title, segments) {
    const pre = el("pre", { class: "text" });
    for (const seg of segments) {
      pre.appendChild(seg.mark ? el("mark", { class: "tlcs" }, seg.text) : document.createTextNode(seg.text));
    }
    return el("div", { class: "side" }, el("h3", {}, title), pre);
  }

  async function showGroups() {
    $("group-view").hidden = true;
    status("loading groups…");
    const data = await api("/api/groups?size=50");
    const tbody = $("groups").querySelector("tbody");
    tbody.replaceChildren();
    $("summary").textContent =
      "index " + data.index + " · " + (data.grouped_documents ?? "?") + " grouped documents · " +
      (data.group_count ?? "?") + " groups (pages without duplicates included)";
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
    $("groups-view").hidden = false;
    status(data.groups.length ? "" : "no group with two or more members yet");
  }

  async function showGroup(id) {
    $("groups-view").hidden = true;
    status("comparing the members with the representative…");
    const data = await api("/api/groups/" + encodeURIComponent(id) + "/explain?members=50");
    const rep = data.representative;
    $("group-title").textContent = "Group " + data.id + " · " + data.size + " members · representative: " + label(rep);
    const box = $("members");
    box.replaceChildren();
    for (const m of data.members) {
      const doc = m.document;
      const v = m.verdict || {};
      const head = el("div", { class: "member-head" },
        el("strong", {}, label(doc)),
        m.error
          ? el("span", { class: "error" }, "verifier error: " + m.error)
          : el("span", { class: "verdict " + (v.similar ? "similar" : "not-similar") },
              v.similar ? "duplicate" : "not similar on re-check"),
        v.reason ? el("span", { class: "reason", title: "why the verifier decided so" }, "reason: " + v.reason) : null,
        el("span", { class: "score" }, "resemble " + fmt(v.resemble)),
        el("span", { class: "score" }, "contain " + fmt(v.contain)),
        el("span", { class: "score" }, "TLCS " + (v.tlcs ?? "–") + " chars"),
        el("span", { class: "score" }, "stored: resemble " + fmt(doc.resemble) + ", contain " + fmt(doc.contain)),
        doc.url ? urlNode(doc.url) : null);
      const pair = el("div", { class: "pair" },
        textPane("representative · " + rep.id, m.representative_segments),
        textPane("member · " + doc.id, m.member_segments));
      box.appendChild(el("article", { class: "member", dataset: { member: doc.id } }, head, pair));
    }
    // Bring each highlighted region into view inside its pane.
    for (const pre of box.querySelectorAll("pre.text")) {
      const mark = pre.querySelector("mark");
      if (mark) pre.scrollTop = Math.max(0, mark.offsetTop - pre.offsetTop - 40);
    }
    $("group-view").hidden = false;
    status(data.truncated ? "showing the first " + data.members.length + " members" : "");
  }

  async function route() {
    const m = location.hash.match(/^#\/groups\/(.+)$/);
    try {
      if (m) await showGroup(decodeURIComponent(m[1]));
      else await showGroups();
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
  window.addEventListener("hashchange", route);
  route();
})();
