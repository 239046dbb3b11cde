// The report page's script: reads the data the library wrote into #data, fills the
// tables and lists, and draws the tees over the map picture at the tick the slider (or the
// play button) picks. Nothing is fetched: everything is in the page.
"use strict";
(function () {
  const data = JSON.parse(document.getElementById("data").textContent);
  const first = data.first_tick ?? 0;
  const last = data.last_tick ?? first;
  const rate = data.tick_rate > 0 ? data.tick_rate : 50;
  // A tee is drawn while its last position is at most this many ticks old: a player
  // away for longer (dead, spectating, gone) is not drawn.
  const gap = Math.max(3 * data.step, Math.round(rate / 2));
  const view = data.view;
  const $ = (id) => document.getElementById(id);
  const el = (tag, cls, text) => {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = text;
    return e;
  };

  // Positions, undone from their deltas.
  const players = data.players.map((p) => {
    const n = p.track.tick.length;
    const t = new Float64Array(n), x = new Float64Array(n), y = new Float64Array(n);
    let at = 0, ax = 0, ay = 0;
    for (let i = 0; i < n; i++) {
      at += p.track.tick[i]; ax += p.track.x[i]; ay += p.track.y[i];
      t[i] = at; x[i] = ax; y[i] = ay;
    }
    return { id: p.client_id, name: p.name, color: p.color, t, x, y };
  });
  const byId = new Map(players.map((p) => [p.id, p]));

  // The index of the last position at or before `tick`, or -1.
  function lastAt(p, tick) {
    let lo = 0, hi = p.t.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (p.t[mid] <= tick) lo = mid + 1; else hi = mid;
    }
    return lo - 1;
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
  document.title = (data.file ? data.file + " – " : "") + data.title;
  const facts = $("facts").tBodies[0];
  const fact = (k, v) => {
    const tr = facts.insertRow();
    tr.insertCell().textContent = k;
    tr.insertCell().textContent = v;
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

  // Players.
  const ptable = $("players").tBodies[0];
  for (const s of data.stints) {
    const tr = ptable.insertRow();
    tr.dataset.clientId = s.client_id;
    const sw = el("span", "swatch");
    const p = byId.get(s.client_id);
    sw.style.background = p && p.name === s.name ? p.color : "transparent";
    tr.insertCell().append(sw);
    for (const v of [s.client_id, s.name, s.clan, s.team, clock(s.first_tick), s.left ? clock(s.last_tick) : "end"]) {
      tr.insertCell().textContent = String(v);
    }
  }

  // Chat and events: lists in tick order, greyed out past the current tick.
  function describe(e) {
    const who = e.name || (e.client_id !== null && e.client_id !== undefined ? "#" + e.client_id : "?");
    const ms = (v) => {
      const s = v / 1000;
      return Math.floor(s / 60) + ":" + (s % 60).toFixed(2).padStart(5, "0");
    };
    switch (e.kind) {
      case "join": return who + " joined";
      case "leave": return who + " left" + (e.text ? " (" + e.text + ")" : "");
      case "name": return "#" + e.client_id + " is now " + who;
      case "team": return who + " joined team " + e.team;
      case "kill": return who + " killed " + (e.victim_name || "#" + e.victim) + (e.weapon !== null ? " (weapon " + e.weapon + ")" : "");
      case "death": return who + " died";
      case "finish": return who + " finished in " + (e.time_ms !== null ? ms(e.time_ms) : "?");
      case "team_finish": return "team " + e.team + " finished in " + (e.time_ms !== null ? ms(e.time_ms) : "?");
      case "vote_start": return "vote: " + (e.text || "");
      default: return e.kind + " " + who;
    }
  }
  function fillLog(list, items, line) {
    const out = [];
    for (const item of items) {
      const li = el("li");
      li.dataset.tick = item.tick;
      li.append(el("span", "when", clock(item.tick)));
      line(li, item);
      li.addEventListener("click", () => seek(item.tick));
      list.append(li);
      out.push(li);
    }
    return out;
  }
  const chatItems = fillLog($("chat"), data.chat, (li, c) => {
    if (c.name) li.append(el("span", "who", c.name + ":"));
    else if (c.client_id < 0) li.append(el("span", "who", "***"));
    li.append(document.createTextNode(c.text));
  });
  $("chat-count").textContent = "(" + data.chat.length + ")";
  const eventItems = fillLog($("events"), data.events, (li, e) => {
    li.dataset.kind = e.kind;
    li.append(document.createTextNode(describe(e)));
  });
  $("event-count").textContent = "(" + data.events.length + ")";

  // The timeline: events and markers as ticks on a bar (at most 2000 events drawn).
  const timeline = $("timeline");
  const span = Math.max(1, last - first);
  const place = (tick) => (100 * (tick - first) / span) + "%";
  const stride = Math.max(1, Math.ceil(data.events.length / 2000));
  data.events.forEach((e, i) => {
    if (i % stride) return;
    const t = el("div", "tick " + e.kind);
    t.style.left = place(e.tick);
    t.title = clock(e.tick) + " " + describe(e);
    timeline.append(t);
  });
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

  // The tees.
  const canvas = $("tees");
  canvas.width = view.width;
  canvas.height = view.height;
  const ctx = canvas.getContext("2d");
  const slider = $("slider");
  slider.min = first;
  slider.max = last;
  let current = first;
  let drawnNow = [];

  function draw() {
    ctx.clearRect(0, 0, canvas.width, canvas.height);
    const [cx, cy, cw, ch] = view.clip;
    ctx.save();
    ctx.beginPath();
    ctx.rect(cx, cy, cw, ch);
    ctx.clip();
    const drawn = [];
    for (const p of players) {
      const i = lastAt(p, current);
      if (i < 0 || current - p.t[i] > gap) continue;
      const px = view.x0 + view.sx * p.x[i], py = view.y0 + view.sy * p.y[i];
      // The last second of the path, thin.
      ctx.strokeStyle = p.color;
      ctx.globalAlpha = 0.5;
      ctx.lineWidth = 2;
      ctx.beginPath();
      let started = false;
      for (let j = i; j >= 0 && p.t[j] >= current - rate; j--) {
        if (j < i && p.t[j + 1] - p.t[j] > gap) break;
        const qx = view.x0 + view.sx * p.x[j], qy = view.y0 + view.sy * p.y[j];
        if (started) ctx.lineTo(qx, qy); else { ctx.moveTo(qx, qy); started = true; }
      }
      ctx.stroke();
      ctx.globalAlpha = 1;
      drawn.push({ client_id: p.id, name: p.name, color: p.color, tick: p.t[i], x: p.x[i], y: p.y[i], px, py });
    }
    // Names first, tees over them: in a crowd no name hides a tee.
    ctx.font = "bold 12px system-ui, sans-serif";
    ctx.textAlign = "center";
    for (const d of drawn) {
      ctx.fillStyle = "#000000";
      ctx.fillText(d.name, d.px + 1, d.py - view.radius - 5);
      ctx.fillStyle = "#ffffff";
      ctx.fillText(d.name, d.px, d.py - view.radius - 6);
    }
    for (const d of drawn) {
      ctx.beginPath();
      ctx.arc(d.px, d.py, view.radius + 1.5, 0, 2 * Math.PI);
      ctx.fillStyle = "#ffffff";
      ctx.fill();
      ctx.beginPath();
      ctx.arc(d.px, d.py, view.radius, 0, 2 * Math.PI);
      ctx.fillStyle = d.color;
      ctx.fill();
    }
    ctx.restore();
    drawnNow = drawn;
  }

  // Lists: only the lines whose side of the current tick changed are touched.
  function markFuture(items, tick) {
    for (const li of items) li.classList.toggle("future", Number(li.dataset.tick) > tick);
  }

  function seek(tick) {
    current = Math.min(last, Math.max(first, Math.round(tick)));
    slider.value = current;
    $("clock").textContent = clock(current) + " / " + clock(last) + "  tick " + current;
    now.style.left = place(current);
    markFuture(chatItems, current);
    markFuture(eventItems, current);
    draw();
  }

  slider.addEventListener("input", () => seek(Number(slider.value)));

  let playing = false, lastFrame = 0, carry = 0;
  function frame(ts) {
    if (!playing) return;
    const dt = lastFrame ? (ts - lastFrame) / 1000 : 0;
    lastFrame = ts;
    carry += dt * rate * Number($("speed").value);
    const whole = Math.floor(carry);
    carry -= whole;
    if (whole > 0) seek(current + whole);
    if (current >= last) { toggle(false); return; }
    requestAnimationFrame(frame);
  }
  function toggle(on) {
    playing = on;
    $("play").textContent = on ? "Pause" : "Play";
    if (on) {
      if (current >= last) seek(first);
      lastFrame = 0;
      carry = 0;
      requestAnimationFrame(frame);
    }
  }
  $("play").addEventListener("click", () => toggle(!playing));

  seek(first);
  // For scripts and tests: the data, moving to a tick, and what is drawn there.
  window.demokitReport = {
    data,
    seek,
    tick: () => current,
    drawn: () => drawnNow.map((d) => Object.assign({}, d)),
    play: () => toggle(true),
    pause: () => toggle(false),
  };
})();
