// The index page's script: one row per recording from #data, sorted by a click on a
// column's head and filtered as one types. Nothing is fetched.
"use strict";
(function () {
  const data = JSON.parse(document.getElementById("data").textContent);
  const table = document.getElementById("index");
  const body = table.tBodies[0];
  const filter = document.getElementById("filter");
  document.getElementById("title").textContent = data.title;
  const length = (s) => {
    if (s === null || s === undefined) return "";
    const t = Math.round(s), h = Math.floor(t / 3600), m = Math.floor(t / 60) % 60, sec = t % 60;
    return (h > 0 ? h + ":" + String(m).padStart(2, "0") : String(m)) + ":" + String(sec).padStart(2, "0");
  };
  const rows = data.rows.map((r) => {
    const tr = document.createElement("tr");
    const file = tr.insertCell();
    if (r.page) {
      const a = document.createElement("a");
      a.href = r.page.split("/").map(encodeURIComponent).join("/");
      a.textContent = r.path;
      file.append(a);
    } else {
      file.textContent = r.path;
    }
    tr.insertCell().textContent = r.format;
    tr.insertCell().textContent = r.map;
    tr.insertCell().textContent = r.date;
    tr.insertCell().textContent = length(r.seconds);
    const players = tr.insertCell();
    players.textContent = r.players.length + (r.players.length ? ": " + r.players.join(", ") : "");
    const err = tr.insertCell();
    err.textContent = r.error || "";
    if (r.error) err.className = "error";
    const text = [r.path, r.format, r.map, r.date, r.players.join(" "), r.error || ""].join("\n").toLowerCase();
    return { row: r, tr, text };
  });
  for (const r of rows) body.append(r.tr);

  const shown = document.getElementById("shown");
  function applyFilter() {
    const words = filter.value.toLowerCase().split(/\s+/).filter(Boolean);
    let n = 0;
    for (const r of rows) {
      const keep = words.every((w) => r.text.includes(w));
      r.tr.hidden = !keep;
      if (keep) n++;
    }
    shown.textContent = n + " of " + rows.length + " recordings";
  }
  filter.addEventListener("input", applyFilter);

  let sortKey = null, ascending = true;
  const value = (r, key) => {
    const v = r.row[key];
    if (key === "players") return r.row.players.length;
    if (key === "seconds") return v === null ? -1 : v;
    return v === null || v === undefined ? "" : String(v).toLowerCase();
  };
  function sortBy(key) {
    ascending = sortKey === key ? !ascending : true;
    sortKey = key;
    rows.sort((a, b) => {
      const x = value(a, key), y = value(b, key);
      const c = x < y ? -1 : x > y ? 1 : a.row.path < b.row.path ? -1 : 1;
      return ascending ? c : -c;
    });
    for (const r of rows) body.append(r.tr);
    for (const th of table.tHead.rows[0].cells) {
      th.classList.toggle("asc", th.dataset.key === key && ascending);
      th.classList.toggle("desc", th.dataset.key === key && !ascending);
    }
  }
  for (const th of table.tHead.rows[0].cells) th.addEventListener("click", () => sortBy(th.dataset.key));
  applyFilter();
  // For scripts and tests: the rows, and the paths shown in their order.
  window.demokitIndex = {
    data,
    filter: (text) => { filter.value = text; applyFilter(); },
    sortBy,
    visible: () => rows.filter((r) => !r.tr.hidden).map((r) => r.row.path),
  };
})();
