// The report page's script: reads the data the library wrote into #data, fills the
// tables and lists, and draws the tees over the map picture at the playback time the
// slider, the keys or the play button pick. The map can be zoomed (wheel, pinch, + and -)
// and panned (drag), and the view can follow a player. Nothing is fetched: everything is
// in the page.
"use strict";
(function () {
  const data = JSON.parse(document.getElementById("data").textContent);
  const first = data.first_tick ?? 0;
  const last = data.last_tick ?? first;
  const rate = data.tick_rate > 0 ? data.tick_rate : 50;
  const step = Math.max(1, data.step || 1);
  // A tee is drawn while its last position is at most this many ticks old: a player
  // away for longer (dead, spectating, gone) is not drawn, and no motion is made up
  // across such a gap.
  const gap = Math.max(3 * step, Math.round(rate / 2));
  // Nor across a jump longer than this (world units per kept position): a teleport or a
  // respawn is drawn as one, not as a slide. The picture breaks its paths alike.
  const jump = (data.format === "source" ? 600 : 12 * 32) * step;
  const view = data.view;
  const W = view.width, H = view.height;
  const $ = (id) => document.getElementById(id);
  const el = (tag, cls, text) => {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = text;
    return e;
  };
  // A player's name as shown: "player 3" for one the recording names not (yet).
  const nameOf = (name, id) =>
    name && name !== "#" + id ? name : id !== null && id !== undefined ? "player " + id : "?";

  // Cameras (SourceTV, GOTV): listed, not drawn.
  const cameras = new Set();
  for (const p of data.players) if (p.camera) cameras.add(p.client_id);
  for (const s of data.stints) if (s.camera) cameras.add(s.client_id);

  // Positions, undone from their deltas; `joined[i]` says whether the tee moves from
  // position i to i + 1 (no gap, no jump), so that it is drawn between them.
  const players = data.players.filter((p) => !cameras.has(p.client_id)).map((p) => {
    const n = p.track.tick.length;
    const t = new Float64Array(n), x = new Float64Array(n), y = new Float64Array(n);
    const joined = new Uint8Array(n);
    let at = 0, ax = 0, ay = 0;
    for (let i = 0; i < n; i++) {
      at += p.track.tick[i]; ax += p.track.x[i]; ay += p.track.y[i];
      t[i] = at; x[i] = ax; y[i] = ay;
      if (i > 0) {
        joined[i - 1] = t[i] - t[i - 1] <= gap && Math.abs(x[i] - x[i - 1]) <= jump &&
          Math.abs(y[i] - y[i - 1]) <= jump ? 1 : 0;
      }
    }
    return { id: p.client_id, name: nameOf(p.name, p.client_id), color: p.color, t, x, y, joined, path: null };
  });
  const byId = new Map(players.map((p) => [p.id, p]));

  // The index of the last position at or before `tick`, or -1 (a binary search: a page
  // holds up to 200 000 positions).
  function lastAt(p, tick) {
    let lo = 0, hi = p.t.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (p.t[mid] <= tick) lo = mid + 1; else hi = mid;
    }
    return lo - 1;
  }
  // Where `p` is at the (fractional) `tick`: between the positions before and after it,
  // or at the one before when the tee does not move on to the next; null when it is away.
  function where(p, tick) {
    const i = lastAt(p, tick);
    if (i < 0) return null;
    if (i + 1 < p.t.length && p.joined[i]) {
      const f = (tick - p.t[i]) / (p.t[i + 1] - p.t[i]);
      return { i, f, x: p.x[i] + f * (p.x[i + 1] - p.x[i]), y: p.y[i] + f * (p.y[i + 1] - p.y[i]) };
    }
    if (tick - p.t[i] > gap) return null;
    return { i, f: 0, x: p.x[i], y: p.y[i] };
  }
  // The first item of `ticks` (sorted) after `tick`.
  function after(ticks, tick) {
    let lo = 0, hi = ticks.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (ticks[mid] <= tick) lo = mid + 1; else hi = mid;
    }
    return lo;
  }

  const clock = (tick) => {
    const s = Math.max(0, (tick - first) / rate);
    const h = Math.floor(s / 3600), m = Math.floor(s / 60) % 60, sec = Math.floor(s) % 60;
    const mm = h > 0 ? String(m).padStart(2, "0") : String(m);
    return (h > 0 ? h + ":" : "") + mm + ":" + String(sec).padStart(2, "0");
  };

  // Header and facts.
  $("title").textContent = data.title;
  $("note").textContent = data.note || "";
  // The map's tile colours, named (the picture carries no legend of its own).
  for (const t of data.tiles || []) {
    const item = document.createElement("span");
    item.className = "tile";
    const sw = document.createElement("span");
    sw.className = "swatch";
    sw.style.background = t.color;
    item.append(sw, " " + t.name);
    $("tiles").append(item);
  }
  document.title = (data.file ? data.file + " – " : "") + data.title;
  const facts = $("facts").tBodies[0];
  const fact = (k, v) => {
    const tr = facts.insertRow();
    tr.insertCell().textContent = k;
    const td = tr.insertCell();
    td.textContent = v;
    if (v.length > 40) td.title = v;
  };
  fact("file", data.file || "(from memory)");
  fact("format", data.format);
  if (data.summary) {
    for (const [k, v] of Object.entries(data.summary)) {
      if (v === null || typeof v === "object" || k === "format") continue;
      fact(k, String(v));
    }
  }
  fact("ticks", first + "–" + last + " (" + clock(last) + " at " + rate.toFixed(1) + " per second)");
  fact("positions", data.samples_kept + " of " + data.samples_read +
    (data.step > 1 ? " (every " + data.step + " ticks)" : ""));
  if (data.error) fact("error", data.error);

  // Players: a click on a row follows that player.
  const ptable = $("players").tBodies[0];
  const followSelect = $("follow");
  const rows = [];
  for (const s of data.stints) {
    const tr = ptable.insertRow();
    tr.dataset.clientId = s.client_id;
    const p = byId.get(s.client_id);
    const mark = tr.insertCell();
    if (cameras.has(s.client_id)) {
      mark.append(el("span", "tag", "camera"));
      tr.classList.add("camera");
    } else {
      const sw = el("span", "swatch");
      sw.style.background = p ? p.color : "transparent";
      mark.append(sw);
    }
    const team = s.team_name ?? (s.team === null || s.team === undefined ? "" : "team " + s.team);
    for (const v of [s.client_id, nameOf(s.name, s.client_id), s.clan, team, clock(s.first_tick), s.left ? clock(s.last_tick) : "end"]) {
      tr.insertCell().textContent = String(v);
    }
    if (p) tr.addEventListener("click", () => follow(following === p.id ? null : p.id));
    rows.push(tr);
  }
  for (const p of players) {
    const short = p.name.length > 28 ? p.name.slice(0, 27) + "…" : p.name;
    const o = el("option", null, short + " (" + p.id + ")");
    o.title = p.name;
    o.value = p.id;
    followSelect.append(o);
  }

  // Chat and events: lists in tick order, greyed out past the current tick, the current
  // line (the last at or before it) highlighted and scrolled to.
  const names = new Map();
  function describe(e) {
    const who = nameOf(e.name, e.client_id);
    const ms = (v) => {
      const s = v / 1000;
      return Math.floor(s / 60) + ":" + (s % 60).toFixed(2).padStart(5, "0");
    };
    const team = () => e.team_name || (e.team !== null && e.team !== undefined ? "team " + e.team : "a team");
    switch (e.kind) {
      case "join": return who + " joined";
      case "leave": return who + " left" + (e.text ? " (" + e.text + ")" : "");
      case "name": {
        const before = names.get(e.client_id);
        return (before && before !== e.name ? before : nameOf("", e.client_id)) + " is now " + who;
      }
      case "team": return who + " joined " + team();
      case "kill": {
        const weapon = e.weapon_name || (e.weapon !== null && e.weapon !== undefined ? "weapon " + e.weapon : "");
        if (e.victim === e.client_id || e.victim === null || e.victim === undefined) {
          // Teeworlds' own weapons for a death without a killer: the map, a self-kill, a
          // team change.
          if (e.weapon_name === "world") return who + " died (world)";
          if (e.weapon_name === "self") return who + " killed themselves";
          if (e.weapon_name === "game") return who + " died (team change)";
          return who + " killed themselves" + (weapon ? " with " + weapon : "");
        }
        return who + " killed " + nameOf(e.victim_name, e.victim) + (weapon ? " with " + weapon : "");
      }
      case "death": return who + " died";
      case "finish": return who + " finished in " + (e.time_ms !== null ? ms(e.time_ms) : "?");
      case "team_finish": return team() + " finished in " + (e.time_ms !== null ? ms(e.time_ms) : "?");
      case "vote_start": return "vote: " + (e.text || "");
      default: return e.kind.replace(/_/g, " ") + (e.client_id !== null && e.client_id !== undefined ? " " + who : "");
    }
  }
  // A list: its items sorted by tick, `ticks` to search, `shown` the visible ones.
  function makeLog(list, items, line) {
    const sorted = items.map((item, i) => [item, i]).sort((a, b) => a[0].tick - b[0].tick || a[1] - b[1]).map((a) => a[0]);
    const lis = [];
    const frag = document.createDocumentFragment();
    for (const item of sorted) {
      const li = el("li", "future");
      li.dataset.tick = item.tick;
      li.append(el("span", "when", clock(item.tick)));
      line(li, item);
      li.addEventListener("click", () => seek(item.tick));
      frag.append(li);
      lis.push(li);
    }
    list.append(frag);
    const log = { list, items: sorted, lis, ticks: sorted.map((i) => i.tick), past: 0, current: null };
    return log;
  }
  const chatLog = makeLog($("chat"), data.chat, (li, c) => {
    if (c.name) li.append(el("span", "who", c.name + ":"));
    else if (c.client_id < 0) li.append(el("span", "who", "***"));
    else li.append(el("span", "who", nameOf("", c.client_id) + ":"));
    li.append(document.createTextNode(c.text));
  });
  $("chat-count").textContent = "(" + data.chat.length + ")";
  // Each event's sentence, made in tick order (a rename names the name before it).
  const described = new Map();
  // The log's events and the game's own (Source: round_start, bomb_planted, ...), one list.
  const allEvents = data.events.concat((data.game_events || []).map((g) => ({ tick: g.tick, kind: g.kind, text: g.text, game: true })));
  const eventLog = makeLog($("events"), allEvents, (li, e) => {
    li.dataset.kind = e.kind;
    const text = e.game ? e.kind.replace(/_/g, " ") + (e.text ? " (" + e.text + ")" : "") : describe(e);
    described.set(e, text);
    li.append(document.createTextNode(text));
    if (e.kind === "name" || e.kind === "join") names.set(e.client_id, e.name);
  });
  $("event-count").textContent = "(" + allEvents.length + ")";
  const logs = [chatLog, eventLog];

  // Moves a log's greying and highlight to `tick`: only the lines between the old and
  // the new place are touched.
  function followLog(log, tick) {
    const past = after(log.ticks, tick);
    for (let i = Math.min(past, log.past); i < Math.max(past, log.past); i++) {
      log.lis[i].classList.toggle("future", i >= past);
    }
    log.past = past;
    let c = past - 1;
    while (c >= 0 && log.lis[c].hidden) c--;
    const li = c >= 0 ? log.lis[c] : null;
    if (li === log.current) return;
    if (log.current) log.current.classList.remove("current");
    log.current = li;
    if (!li) return;
    li.classList.add("current");
    const box = log.list;
    if (li.offsetTop < box.scrollTop || li.offsetTop + li.offsetHeight > box.scrollTop + box.clientHeight) {
      box.scrollTop = Math.max(0, li.offsetTop - box.clientHeight / 2);
    }
  }

  // The filter by kind: every kind the events have, with its count.
  const timelineTicks = [];
  const kinds = new Map();
  for (const e of allEvents) kinds.set(e.kind, (kinds.get(e.kind) || 0) + 1);
  // A game event's count is all of its name, of which the list holds at most 500.
  const counts = data.game_event_counts || {};
  const shownKinds = new Set(kinds.keys());
  for (const [kind, n] of kinds) {
    const label = el("label");
    const box = el("input");
    box.type = "checkbox";
    box.checked = true;
    box.dataset.kind = kind;
    box.addEventListener("change", () => {
      if (box.checked) shownKinds.add(kind); else shownKinds.delete(kind);
      for (const li of eventLog.lis) li.hidden = !shownKinds.has(li.dataset.kind);
      for (const t of timelineTicks) t.classList.toggle("off", !shownKinds.has(t.dataset.kind));
      for (const li of eventLog.lis) li.classList.remove("current");
      eventLog.current = null;
      followLog(eventLog, current);
    });
    const all = counts[kind] && counts[kind] > n ? n + " of " + counts[kind] : String(n);
    label.append(box, document.createTextNode(" " + kind.replace(/_/g, " ") + " (" + all + ")"));
    $("kinds").append(label);
  }

  // The timeline: events and markers as ticks on a bar (at most 500 events of a kind
  // drawn, so that rare kinds show among many).
  const timeline = $("timeline");
  const span = Math.max(1, last - first);
  const place = (tick) => (100 * (tick - first) / span) + "%";
  const seen = new Map();
  for (const e of allEvents) {
    const i = seen.get(e.kind) || 0;
    seen.set(e.kind, i + 1);
    if (i % Math.max(1, Math.ceil(kinds.get(e.kind) / 500))) continue;
    const t = el("div", "tick " + e.kind);
    t.style.left = place(e.tick);
    t.title = clock(e.tick) + " " + (described.get(e) || describe(e));
    t.dataset.kind = e.kind;
    timeline.append(t);
    timelineTicks.push(t);
  }
  for (const m of data.markers) {
    const t = el("div", "tick marker");
    t.style.left = place(m);
    t.title = "marker at " + clock(m);
    t.dataset.marker = m;
    timeline.append(t);
  }
  const now = el("div", "now");
  timeline.append(now);
  timeline.addEventListener("click", (ev) => {
    const r = timeline.getBoundingClientRect();
    seek(Math.round(first + span * (ev.clientX - r.left) / r.width));
  });

  // The view: the map picture and the tees over it, zoomed by `zoom` about the picture's
  // corner and moved by (`ox`, `oy`) canvas pixels; the canvas has the picture's size.
  const board = $("board");
  const picture = $("map");
  const canvas = $("tees");
  canvas.width = W;
  canvas.height = H;
  board.style.maxWidth = W + "px";
  const ctx = canvas.getContext("2d");
  const slider = $("slider");
  slider.min = first;
  slider.max = last;
  const MAX_ZOOM = 24;
  let zoom = 1, ox = 0, oy = 0;
  let following = null;
  let showPaths = false, showMarks = true;
  let current = first;
  let drawnNow = [];
  const marks = data.marks || [];
  const markTicks = marks.map((m) => m.tick);

  // Canvas pixels per CSS pixel of the board as shown.
  const cssScale = () => (board.clientWidth > 0 ? W / board.clientWidth : 1);
  function clampPan() {
    ox = Math.min(0, Math.max(W - zoom * W, ox));
    oy = Math.min(0, Math.max(H - zoom * H, oy));
  }
  // Zooms to `z` keeping canvas point (`cx`, `cy`) where it is.
  function zoomTo(z, cx = W / 2, cy = H / 2) {
    z = Math.min(MAX_ZOOM, Math.max(1, z));
    ox = cx - (cx - ox) * z / zoom;
    oy = cy - (cy - oy) * z / zoom;
    zoom = z;
    clampPan();
    draw();
  }
  function resetView() {
    zoom = 1; ox = 0; oy = 0;
    draw();
  }
  function follow(id) {
    following = id !== null && id !== undefined && byId.has(Number(id)) ? Number(id) : null;
    followSelect.value = following === null ? "" : String(following);
    for (const tr of rows) tr.classList.toggle("followed", following !== null && Number(tr.dataset.clientId) === following);
    draw();
  }

  // Each player's whole path in picture pixels, made once on first use.
  function pathOf(p) {
    if (p.path) return p.path;
    const path = new Path2D();
    for (let i = 0; i < p.t.length; i++) {
      const px = view.x0 + view.sx * p.x[i], py = view.y0 + view.sy * p.y[i];
      if (i > 0 && p.joined[i - 1]) path.lineTo(px, py); else path.moveTo(px, py);
    }
    p.path = path;
    return path;
  }

  function markShape(m, r) {
    const px = view.x0 + view.sx * m.x, py = view.y0 + view.sy * m.y;
    ctx.beginPath();
    switch (m.kind) {
      case "spawn": ctx.arc(px, py, r, 0, 2 * Math.PI); break;
      case "death":
        ctx.moveTo(px - r, py - r); ctx.lineTo(px + r, py + r);
        ctx.moveTo(px + r, py - r); ctx.lineTo(px - r, py + r);
        break;
      case "kill":
        ctx.moveTo(px, py - r); ctx.lineTo(px + r, py); ctx.lineTo(px, py + r); ctx.lineTo(px - r, py); ctx.closePath();
        break;
      default: ctx.rect(px - r * 0.8, py - r * 0.8, 1.6 * r, 1.6 * r);
    }
    ctx.stroke();
  }

  function draw() {
    const tick = current;
    // Where each tee is now, in picture pixels.
    const drawn = [];
    for (const p of players) {
      const w = where(p, tick);
      if (!w) continue;
      drawn.push({ p, w, qx: view.x0 + view.sx * w.x, qy: view.y0 + view.sy * w.y });
    }
    if (following !== null) {
      const d = drawn.find((d) => d.p.id === following);
      if (d) {
        ox = W / 2 - zoom * d.qx;
        oy = H / 2 - zoom * d.qy;
        clampPan();
      }
    }
    const k = 1 / cssScale();
    picture.style.transform = zoom === 1 && ox === 0 && oy === 0 ? "" :
      "translate(" + ox * k + "px," + oy * k + "px) scale(" + zoom + ")";

    ctx.setTransform(1, 0, 0, 1, 0, 0);
    ctx.clearRect(0, 0, W, H);
    const [cx, cy, cw, ch] = view.clip;
    ctx.save();
    ctx.setTransform(zoom, 0, 0, zoom, ox, oy);
    ctx.beginPath();
    ctx.rect(cx, cy, cw, ch);
    ctx.clip();
    ctx.lineJoin = "round";
    if (showPaths) {
      ctx.globalAlpha = 0.45;
      ctx.lineWidth = 1.5 / zoom;
      for (const p of players) {
        ctx.strokeStyle = p.color;
        ctx.stroke(pathOf(p));
      }
    }
    if (showMarks) {
      // The marks up to now: the last three seconds' bold.
      const upto = after(markTicks, tick);
      const r = Math.max(2.5, view.radius * 0.6) / Math.sqrt(zoom);
      ctx.lineWidth = 1.5 / zoom;
      for (let i = 0; i < upto; i++) {
        const m = marks[i];
        ctx.globalAlpha = tick - m.tick <= 3 * rate ? 1 : 0.45;
        ctx.strokeStyle = m.color;
        markShape(m, r);
      }
    }
    // The last second of each path, thin.
    ctx.globalAlpha = 0.5;
    ctx.lineWidth = 2 / zoom;
    for (const { p, w, qx, qy } of drawn) {
      ctx.strokeStyle = p.color;
      ctx.beginPath();
      ctx.moveTo(qx, qy);
      for (let j = w.i; j >= 0 && p.t[j] >= tick - rate; j--) {
        if (j < w.i && !p.joined[j]) break;
        ctx.lineTo(view.x0 + view.sx * p.x[j], view.y0 + view.sy * p.y[j]);
      }
      ctx.stroke();
    }
    ctx.restore();

    // Names first, tees over them (at a size that grows slower than the map's): in a
    // crowd no name hides a tee.
    ctx.save();
    ctx.beginPath();
    ctx.rect(zoom * cx + ox, zoom * cy + oy, zoom * cw, zoom * ch);
    ctx.clip();
    const r = view.radius * Math.sqrt(zoom);
    const out = [];
    for (const d of drawn) {
      d.px = zoom * d.qx + ox;
      d.py = zoom * d.qy + oy;
    }
    ctx.font = "bold 12px system-ui, sans-serif";
    ctx.textAlign = "center";
    // A name is written only where it overlaps no name written before it (the followed
    // player's first): in a crowd the names that fit are read, the rest wait for a zoom.
    const placed = [];
    const order = drawn.slice().sort((a, b) => (b.p.id === following) - (a.p.id === following));
    for (const d of order) {
      const w = ctx.measureText(d.p.name).width;
      const box = { l: d.px - w / 2 - 2, r: d.px + w / 2 + 2, t: d.py - r - 19, b: d.py - r - 3 };
      if (placed.some((o) => box.l < o.r && o.l < box.r && box.t < o.b && o.t < box.b)) continue;
      placed.push(box);
      ctx.fillStyle = "#000000";
      ctx.fillText(d.p.name, d.px + 1, d.py - r - 5);
      ctx.fillStyle = "#ffffff";
      ctx.fillText(d.p.name, d.px, d.py - r - 6);
    }
    for (const d of drawn) {
      if (d.p.id === following) {
        ctx.beginPath();
        ctx.arc(d.px, d.py, r + 5, 0, 2 * Math.PI);
        ctx.strokeStyle = "#ffd400";
        ctx.lineWidth = 2;
        ctx.stroke();
      }
      ctx.beginPath();
      ctx.arc(d.px, d.py, r + 1.5, 0, 2 * Math.PI);
      ctx.fillStyle = "#ffffff";
      ctx.fill();
      ctx.beginPath();
      ctx.arc(d.px, d.py, r, 0, 2 * Math.PI);
      ctx.fillStyle = d.p.color;
      ctx.fill();
      const { p, w } = d;
      const i = w.i, next = i + 1 < p.t.length && p.joined[i] ? i + 1 : -1;
      out.push({
        client_id: p.id, name: p.name, color: p.color,
        // The position stored at or before now, and the next one drawn towards.
        tick: p.t[i], x: p.x[i], y: p.y[i],
        next: next >= 0 ? { tick: p.t[next], x: p.x[next], y: p.y[next] } : null,
        // Where it is drawn: world units, then canvas pixels.
        at: { x: w.x, y: w.y }, px: d.px, py: d.py,
      });
    }
    ctx.restore();
    drawnNow = out;
  }

  function seek(tick, fromPlay) {
    current = Math.min(last, Math.max(first, tick));
    if (!fromPlay) current = Math.round(current);
    const whole = Math.floor(current);
    slider.value = whole;
    $("clock").textContent = clock(whole) + " / " + clock(last) + "  tick " + whole;
    now.style.left = place(current);
    for (const log of logs) followLog(log, current);
    draw();
  }

  slider.addEventListener("input", () => seek(Number(slider.value)));

  // Playback: time runs on with the animation frames, not in whole ticks.
  let playing = false, lastFrame = 0;
  function frame(ts) {
    if (!playing) return;
    const dt = lastFrame ? Math.min(0.25, (ts - lastFrame) / 1000) : 0;
    lastFrame = ts;
    seek(current + dt * rate * Number($("speed").value), true);
    if (current >= last) { toggle(false); return; }
    requestAnimationFrame(frame);
  }
  function toggle(on) {
    if (on === playing) return;
    playing = on;
    $("play").textContent = on ? "Pause" : "Play";
    if (on) {
      if (current >= last) seek(first);
      lastFrame = 0;
      requestAnimationFrame(frame);
    }
  }
  $("play").addEventListener("click", () => toggle(!playing));

  // The view's controls.
  const ZOOM_STEP = 1.5;
  $("zoom-in").addEventListener("click", () => zoomTo(zoom * ZOOM_STEP));
  $("zoom-out").addEventListener("click", () => zoomTo(zoom / ZOOM_STEP));
  $("zoom-reset").addEventListener("click", resetView);
  followSelect.addEventListener("change", () => follow(followSelect.value === "" ? null : followSelect.value));
  $("show-paths").addEventListener("change", (e) => { showPaths = e.target.checked; draw(); });
  $("show-marks").addEventListener("change", (e) => { showMarks = e.target.checked; draw(); });

  // Wheel: zoom about the cursor. Drag: pan (and stop following). Two fingers: pinch.
  const toCanvas = (ev) => {
    const r = canvas.getBoundingClientRect();
    const s = r.width > 0 ? W / r.width : 1;
    return [(ev.clientX - r.left) * s, (ev.clientY - r.top) * s];
  };
  board.addEventListener("wheel", (ev) => {
    ev.preventDefault();
    const [cx, cy] = toCanvas(ev);
    zoomTo(zoom * Math.exp(-ev.deltaY * (ev.deltaMode === 1 ? 0.05 : 0.0015)), cx, cy);
  }, { passive: false });
  const pointers = new Map();
  let pinch = null, moved = 0;
  board.addEventListener("pointerdown", (ev) => {
    board.setPointerCapture(ev.pointerId);
    pointers.set(ev.pointerId, toCanvas(ev));
    moved = 0;
    pinch = null;
    board.classList.add("dragging");
  });
  board.addEventListener("pointermove", (ev) => {
    const before = pointers.get(ev.pointerId);
    if (!before) return;
    const at = toCanvas(ev);
    if (pointers.size >= 2) {
      pointers.set(ev.pointerId, at);
      const [a, b] = [...pointers.values()];
      const dist = Math.hypot(a[0] - b[0], a[1] - b[1]);
      const mid = [(a[0] + b[0]) / 2, (a[1] + b[1]) / 2];
      if (pinch && pinch.dist > 0) {
        ox += mid[0] - pinch.mid[0];
        oy += mid[1] - pinch.mid[1];
        zoomTo(zoom * dist / pinch.dist, mid[0], mid[1]);
      }
      pinch = { dist, mid };
      moved += 10;
      return;
    }
    const dx = at[0] - before[0], dy = at[1] - before[1];
    pointers.set(ev.pointerId, at);
    moved += Math.abs(dx) + Math.abs(dy);
    if (moved > 4 && following !== null) follow(null);
    if (moved > 4) {
      ox += dx; oy += dy;
      clampPan();
      draw();
    }
  });
  const release = (ev) => {
    const at = pointers.get(ev.pointerId);
    pointers.delete(ev.pointerId);
    pinch = null;
    if (pointers.size === 0) board.classList.remove("dragging");
    // A click (no drag) on a tee follows it.
    if (ev.type === "pointerup" && at && moved <= 4 && pointers.size === 0) {
      const r = view.radius * Math.sqrt(zoom) + 4;
      let best = null, bestD = r * r;
      for (const d of drawnNow) {
        const dd = (d.px - at[0]) ** 2 + (d.py - at[1]) ** 2;
        if (dd <= bestD) { best = d; bestD = dd; }
      }
      if (best) follow(best.client_id);
    }
  };
  board.addEventListener("pointerup", release);
  board.addEventListener("pointercancel", release);
  window.addEventListener("resize", () => draw());

  // Keys, unless one is typing in a field or a list box has the focus.
  const typing = (t) => t && (t.isContentEditable || t.tagName === "TEXTAREA" || t.tagName === "SELECT" ||
    (t.tagName === "INPUT" && t.type !== "checkbox" && t.type !== "range"));
  document.addEventListener("keydown", (ev) => {
    if (ev.ctrlKey || ev.metaKey || ev.altKey || typing(ev.target)) return;
    const big = ev.shiftKey ? 10 : 1;
    let handled = true;
    switch (ev.key) {
      case " ": case "k": toggle(!playing); break;
      case "ArrowRight": seek(Math.floor(current) + big * Math.round(rate)); break;
      case "ArrowLeft": seek(Math.ceil(current) - big * Math.round(rate)); break;
      case ".": seek(Math.floor(current) + step); break;
      case ",": seek(Math.ceil(current) - step); break;
      case "Home": seek(first); break;
      case "End": seek(last); break;
      case "+": case "=": zoomTo(zoom * ZOOM_STEP); break;
      case "-": case "_": zoomTo(zoom / ZOOM_STEP); break;
      case "0": resetView(); break;
      case "f": case "F": {
        // Follow: off, or the first player with a tee now.
        if (following !== null) follow(null);
        else {
          const d = drawnNow[0];
          if (d) follow(d.client_id);
        }
        break;
      }
      case "p": case "P": $("show-paths").click(); break;
      default: handled = false;
    }
    if (handled) ev.preventDefault();
  });
  // A space on a focused button or box must not click it as well.
  document.addEventListener("keyup", (ev) => {
    if (ev.key === " " && !typing(ev.target)) ev.preventDefault();
  });

  seek(first);
  const state = () => {
    const r = canvas.getBoundingClientRect();
    const s = W > 0 ? r.width / W : 1;
    return {
      tick: current,
      playing,
      zoom,
      pan: { x: ox, y: oy },
      following,
      // The map view on the screen, in CSS pixels.
      view: { left: r.left, top: r.top, width: r.width, height: r.height },
      tees: drawnNow.map((d) => ({
        client_id: d.client_id, x: d.at.x, y: d.at.y,
        sample: { tick: d.tick, x: d.x, y: d.y }, next: d.next,
        // The tee's centre on the screen, in CSS pixels.
        screen: { x: r.left + d.px * s, y: r.top + d.py * s },
      })),
    };
  };
  // For scripts and tests: the data, moving to a tick, what is drawn there, playback,
  // the view and a read-only snapshot of all of it (`demokitState`).
  window.demokitReport = {
    data,
    seek,
    tick: () => current,
    drawn: () => drawnNow.map((d) => Object.assign({}, d)),
    play: () => toggle(true),
    pause: () => toggle(false),
    follow,
    zoom: (z) => zoomTo(z),
    state,
  };
  window.demokitState = state;
})();
