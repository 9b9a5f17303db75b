// doom.schedule dashboard: a little plain JavaScript, no build step.
// 1. The events page follows /events/stream (server-sent events) and adds rows live.
// 2. A form marked data-once sends once: a double click on "Run now" must not run it twice.
// 3. A form marked data-kinds shows only the fieldsets of the chosen kind (without the script
//    it shows them all, each saying its kind); a hidden one is disabled, so it sends nothing.
// Texts and times come from the server (translated there, in the reader's chosen time zone).
"use strict";

function cell(text, kind) {
  const td = document.createElement("td");
  if (!kind) { td.textContent = text; return td; }
  const inner = document.createElement("code");
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
    // a narrow page shows each cell under its column's name, as the rows from the server do
    const names = feed.closest("table").querySelectorAll("thead th");
    tr.querySelectorAll("td").forEach((td, i) => { td.dataset.label = names[i].textContent; });
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

function kindFields(root) {
  for (const form of root.querySelectorAll("form[data-kinds]")) {
    const kind = form.querySelector("select[name=kind]");
    const show = () => {
      for (const set of form.querySelectorAll("fieldset[data-kind]")) {
        set.hidden = set.disabled = set.dataset.kind !== kind.value;
      }
    };
    kind.addEventListener("change", show);
    show();
  }
}

document.addEventListener("DOMContentLoaded", () => {
  sendOnce(document);
  kindFields(document);
  const feed = document.getElementById("feed");
  if (feed && feed.dataset.stream) { follow(feed); }
});
