// doom.schedule dashboard: a little plain JavaScript, no build step.
// 1. <time data-local datetime="..."> shows in the reader's own time zone.
// 2. The events page follows /events/stream (server-sent events) and adds rows live.
// 3. A form marked data-once sends once: a double click on "Run now" must not run it twice.
// Texts come from the page (translated there); dates follow the page's <html lang>.
"use strict";

function localTimes(root) {
  const lang = document.documentElement.lang || undefined;
  const fmt = new Intl.DateTimeFormat(lang, { dateStyle: "medium", timeStyle: "medium" });
  for (const el of root.querySelectorAll("time[data-local]")) {
    const when = new Date(el.getAttribute("datetime"));
    if (!isNaN(when)) {
      el.textContent = fmt.format(when);
      el.title = when.toISOString();
    }
  }
}

function cell(text, kind) {
  const td = document.createElement("td");
  if (!kind) { td.textContent = text; return td; }
  const inner = document.createElement(kind === "badge" ? "span" : "code");
  if (kind === "badge") { inner.className = "badge"; }
  inner.textContent = text;
  td.appendChild(inner);
  return td;
}

// the alert's title as the alert channel says it, then the event's type as a badge
function titled(ev) {
  const td = cell(ev.type, "badge");
  td.prepend(document.createTextNode(ev.title + " "));
  return td;
}

function follow(feed) {
  const state = document.getElementById("feed-state");
  const source = new EventSource(feed.dataset.stream);
  source.addEventListener("open", () => { state.textContent = state.dataset.live; });
  source.addEventListener("error", () => { state.textContent = state.dataset.reconnecting; });
  source.addEventListener("pack", (msg) => {
    const ev = JSON.parse(msg.data);
    const tr = document.createElement("tr");
    tr.className = "fresh ev-" + ev.type;
    const details = ev.shown.map(([k, v]) => k + "=" + v).join(" ");
    tr.append(cell(ev.server), titled(ev), cell(ev.task_id, "code"),
              cell(ev.game_time === null ? "\u2013" : String(ev.game_time)), cell(details));
    feed.prepend(tr);
  });
}

function sendOnce(root) {
  for (const form of root.querySelectorAll("form[data-once]")) {
    form.addEventListener("submit", (e) => {
      if (form.dataset.sent) { e.preventDefault(); return; }
      form.dataset.sent = "1";
      for (const button of form.querySelectorAll("button")) { button.disabled = true; }
    });
  }
}

document.addEventListener("DOMContentLoaded", () => {
  localTimes(document);
  sendOnce(document);
  const feed = document.getElementById("feed");
  if (feed && feed.dataset.stream) { follow(feed); }
});
