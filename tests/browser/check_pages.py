"""Loads `demokit report` pages in headless Chromium and checks what a person would see.

Driven by `cli/tests/cli/browser.rs`, which writes the pages with the tool and the
expectations with the library (players, chat, markers, and positions from the export's
`ticks` table, a reading independent of the page's own). Speaks the Chrome DevTools
Protocol over its websocket (websocket-client); no other driver is needed.

    check_pages.py page  --chromium BIN --html PAGE --expect EXPECT.json --shot OUT.png
    check_pages.py index --chromium BIN --html INDEX --expect EXPECT.json --shot OUT.png

Exits 0 when every check holds; otherwise prints what failed and exits 1.
"""

import argparse
import base64
import json
import os
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile
import time

import websocket


class Browser:
    """Headless Chromium with one page, driven over the DevTools Protocol."""

    def __init__(self, binary: str) -> None:
        self.profile = tempfile.mkdtemp(prefix="demokit-chromium-")
        # The flags keep Chromium from reaching out to the network on its own (updates,
        # sync, QUIC probes): the page's requests are then the only ones.
        self.proc = subprocess.Popen(
            [
                binary,
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-quic",
                "--no-first-run",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--disable-extensions",
                "--allow-file-access-from-files",
                f"--user-data-dir={self.profile}",
                "--remote-debugging-port=0",
                "about:blank",
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        url = None
        deadline = time.time() + 60
        while time.time() < deadline:
            line = self.proc.stderr.readline()
            if not line:
                break
            m = re.search(r"DevTools listening on (ws://\S+)", line)
            if m:
                url = m.group(1)
                break
        if url is None:
            self.close()
            raise RuntimeError("Chromium did not start its DevTools endpoint")
        self.ws = websocket.create_connection(url, timeout=60)
        self.next_id = 0
        self.events = []
        target = self.call("Target.createTarget", {"url": "about:blank"})["targetId"]
        self.session = self.call("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        for domain in ("Page", "Network", "Runtime", "Log"):
            self.call(f"{domain}.enable", session=True)
        self.call(
            "Emulation.setDeviceMetricsOverride",
            {"width": 1500, "height": 1100, "deviceScaleFactor": 1, "mobile": False},
            session=True,
        )

    def call(self, method: str, params=None, session: bool = False):
        self.next_id += 1
        message = {"id": self.next_id, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = self.session
        self.ws.send(json.dumps(message))
        while True:
            reply = json.loads(self.ws.recv())
            if reply.get("id") == self.next_id:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                return reply.get("result", {})
            self.events.append(reply)

    def wait_for(self, method: str, timeout: float = 60):
        deadline = time.time() + timeout
        seen = len(self.events)
        while time.time() < deadline:
            for event in self.events[seen:]:
                if event.get("method") == method:
                    return event
            seen = len(self.events)
            self.ws.settimeout(max(0.1, deadline - time.time()))
            self.events.append(json.loads(self.ws.recv()))
        raise RuntimeError(f"no {method} within {timeout} s")

    def open(self, path: pathlib.Path) -> None:
        self.events.clear()
        self.call("Page.navigate", {"url": path.resolve().as_uri()}, session=True)
        self.wait_for("Page.loadEventFired")

    def eval(self, expression: str):
        result = self.call(
            "Runtime.evaluate",
            {"expression": expression, "returnByValue": True, "awaitPromise": True},
            session=True,
        )
        if "exceptionDetails" in result:
            raise RuntimeError(f"{expression}: {result['exceptionDetails']}")
        return result["result"].get("value")

    def requests(self):
        return [e["params"]["request"]["url"] for e in self.events if e.get("method") == "Network.requestWillBeSent"]

    def errors(self):
        out = []
        for e in self.events:
            if e.get("method") == "Runtime.exceptionThrown":
                out.append(json.dumps(e["params"]["exceptionDetails"])[:400])
            if e.get("method") == "Log.entryAdded" and e["params"]["entry"]["level"] == "error":
                out.append(e["params"]["entry"]["text"])
            if e.get("method") == "Runtime.consoleAPICalled" and e["params"]["type"] == "error":
                out.append(json.dumps(e["params"]["args"])[:400])
        return out

    def screenshot(self, out: pathlib.Path) -> None:
        shot = self.call("Page.captureScreenshot", {"format": "png", "captureBeyondViewport": True}, session=True)
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_bytes(base64.b64decode(shot["data"]))

    def close(self) -> None:
        try:
            self.proc.terminate()
            self.proc.wait(timeout=20)
        except Exception:
            self.proc.kill()
        shutil.rmtree(self.profile, ignore_errors=True)


failures = []


def check(ok: bool, what: str) -> None:
    if not ok:
        failures.append(what)


def offline(browser: Browser, page: pathlib.Path) -> None:
    """Nothing but the page itself (and the data: URLs inside it) is requested."""
    own = page.resolve().as_uri()
    others = [u for u in browser.requests() if u != own and not u.startswith("data:")]
    check(not others, f"{page.name}: requests beyond the page: {others[:5]}")
    check(not browser.errors(), f"{page.name}: script errors: {browser.errors()[:3]}")


def check_page(browser: Browser, html: pathlib.Path, expect: dict) -> None:
    browser.open(html)
    offline(browser, html)
    check(browser.eval("typeof window.demokitReport") == "object", "the page's script did not run")
    # Script a recording's text carried never ran.
    for name in expect.get("undefined", []):
        check(browser.eval(f"typeof window.{name}") == "undefined", f"window.{name} was set: the page ran a recording's text")
    names = browser.eval(
        "[...document.querySelectorAll('#players tbody tr')].map(r => r.cells[2].textContent)"
    )
    # A player the recording names not (yet) is "player 3".
    want = [n or f"player {cid}" for cid, n in expect["players"]]
    check(sorted(names) == sorted(want), f"players shown {sorted(names)} != {sorted(want)}")
    chat = browser.eval("[...document.querySelectorAll('#chat li')].map(li => li.textContent)")
    check(len(chat) == len(expect["chat"]), f"{len(chat)} chat lines shown, the library has {len(expect['chat'])}")
    for shown, text in zip(chat, expect["chat"]):
        check(shown.endswith(text), f"chat line {shown!r} does not end with {text!r}")
    markers = browser.eval("[...document.querySelectorAll('#timeline .marker')].map(m => Number(m.dataset.marker))")
    check(markers == expect["markers"], f"markers shown {markers} != {expect['markers']}")
    # The slider moved to a tick draws each tee where the library's position is.
    checked = 0
    for tick, positions in expect["positions"].items():
        tick = int(tick)
        browser.eval(
            f"(() => {{ const s = document.getElementById('slider'); s.value = {tick};"
            " s.dispatchEvent(new Event('input')); })()"
        )
        check(browser.eval("window.demokitReport.tick()") == tick, f"the slider did not go to tick {tick}")
        drawn = {d["client_id"]: d for d in browser.eval("window.demokitReport.drawn()")}
        radius = browser.eval("window.demokitReport.data.view.radius")
        for cid, x, y in positions:
            d = drawn.get(cid)
            if d is None:
                check(False, f"tick {tick}: client {cid} at ({x}, {y}) is not drawn")
                continue
            check(
                # The page draws the last sample the recording stored; the library's row
                # of a tick the file did not store repeats it (the model fills forward).
                d["tick"] <= tick and abs(d["x"] - x) <= 1 and abs(d["y"] - y) <= 1,
                f"tick {tick}: client {cid} drawn at ({d['x']}, {d['y']}) of tick {d['tick']}, the library has ({x}, {y})",
            )
            # The pixel under the tee's centre is its colour, unless another tee drawn
            # after it covers it.
            covered = any(
                o["client_id"] != cid and (o["px"] - d["px"]) ** 2 + (o["py"] - d["py"]) ** 2 < (2 * radius + 4) ** 2
                for o in drawn.values()
            )
            if covered:
                continue
            rgba = browser.eval(
                f"[...document.getElementById('tees').getContext('2d')"
                f".getImageData(Math.round({d['px']}), Math.round({d['py']}), 1, 1).data]"
            )
            want = [int(d["color"][i : i + 2], 16) for i in (1, 3, 5)]
            check(
                all(abs(a - b) <= 8 for a, b in zip(rgba[:3], want)) and rgba[3] > 240,
                f"tick {tick}: the pixel at client {cid}'s tee is {rgba}, not its colour {d['color']}",
            )
            checked += 1
    check(checked > 0 or not expect["positions"], "no tee's pixel was checked")
    print(f"{html.name}: {len(names)} players, {len(chat)} chat lines, {len(markers)} markers, {checked} tees checked")


def set_size(browser: Browser, width: int, height: int) -> None:
    """Emulates a window of `width` by `height` CSS pixels and lets the page lay out."""
    browser.call(
        "Emulation.setDeviceMetricsOverride",
        {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False},
        session=True,
    )
    browser.eval("new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))")


KEYS = {
    " ": ("Space", 32),
    "ArrowRight": ("ArrowRight", 39),
    "ArrowLeft": ("ArrowLeft", 37),
    "Home": ("Home", 36),
    "End": ("End", 35),
    "+": ("Equal", 187),
    "-": ("Minus", 189),
    "0": ("Digit0", 48),
}


def press(browser: Browser, key: str, shift: bool = False) -> None:
    """A key pressed and released as a person would, through the browser's input."""
    code, vk = KEYS[key]
    for kind in ("keyDown", "keyUp"):
        params = {"type": kind, "key": key, "code": code, "windowsVirtualKeyCode": vk, "modifiers": 8 if shift else 0}
        if kind == "keyDown" and len(key) == 1:
            params["text"] = key
        browser.call("Input.dispatchKeyEvent", params, session=True)


def state(browser: Browser) -> dict:
    return browser.eval("window.demokitState()")


def sized_shot(shot: pathlib.Path, width: int, height: int) -> pathlib.Path:
    return shot.with_name(f"{shot.stem}-{width}x{height}.png")


def check_layout(browser: Browser, name: str, shot: pathlib.Path) -> None:
    """At a phone's and a desktop's size nothing runs off the side; a screenshot of each."""
    for width, height in ((400, 800), (1400, 900)):
        set_size(browser, width, height)
        scroll, inner = browser.eval("[document.documentElement.scrollWidth, window.innerWidth]")
        check(scroll <= inner, f"{name} at {width}x{height}: the document is {scroll} px wide, the window {inner}")
        wide = browser.eval(
            "[...document.querySelectorAll('body *')].filter(e => { const r = e.getBoundingClientRect();"
            " return r.width > 0 && r.right > window.innerWidth + 1 && !e.closest('.scroll, .log, #board'); })"
            ".slice(0, 5).map(e => e.tagName + (e.id ? '#' + e.id : ''))"
        )
        check(not wide, f"{name} at {width}x{height}: elements run off the right edge: {wide}")
        browser.screenshot(sized_shot(shot, width, height))


# Finds a player who moves between most of eight stored positions in a row (a quarter into the game or
# later): its id and the tick of the first position.
FIND_MOVER = """(() => {
  const d = window.demokitReport.data, step = Math.max(1, d.step);
  for (const p of d.players) {
    if (p.camera) continue;
    const T = [], X = [], Y = [];
    let t = 0, x = 0, y = 0;
    for (let i = 0; i < p.track.tick.length; i++) {
      t += p.track.tick[i]; x += p.track.x[i]; y += p.track.y[i];
      T.push(t); X.push(x); Y.push(y);
    }
    for (let i = Math.floor(T.length / 4); i + 8 < T.length; i++) {
      let ok = true, moves = 0;
      for (let j = i; j < i + 8 && ok; j++) {
        const dt = T[j + 1] - T[j], dd = Math.abs(X[j + 1] - X[j]) + Math.abs(Y[j + 1] - Y[j]);
        ok = dt >= 1 && dt <= 3 * step && dd <= 300 * step;
        if (dd >= 2) moves++;
      }
      if (ok && moves >= 5 && Math.abs(X[i + 1] - X[i]) + Math.abs(Y[i + 1] - Y[i]) >= 2) return { client_id: p.client_id, tick: T[i], until: T[i + 8] };
    }
  }
  return null;
})()"""


def check_steering(browser: Browser, html: pathlib.Path, expect: dict) -> None:
    """Zoom, follow, smooth playback, keys and the lists that follow playback."""
    name = html.name
    set_size(browser, 1400, 900)
    browser.eval("document.activeElement && document.activeElement.blur()")
    data_first, data_last = browser.eval("[window.demokitReport.data.first_tick, window.demokitReport.data.last_tick]")
    rate = browser.eval("window.demokitReport.data.tick_rate") or 50
    mover = browser.eval(FIND_MOVER)
    # A recording whose players stand still (the hostile text's) says so in `expect`; it
    # is steered all the same, without the check of smooth motion.
    moves = expect.get("moves", True)
    check(mover is not None or not moves, f"{name}: no player moves between most of eight positions in a row")
    if mover is None:
        mover = browser.eval(
            "(() => { const p = window.demokitReport.data.players.find(p => p.track.tick.length > 0);"
            " return p ? { client_id: p.client_id, tick: p.track.tick[0] } : null; })()"
        )
        moves = False
    if mover is None:
        check(False, f"{name}: no player has positions")
        return
    cid = mover["client_id"]

    # A click on the player's row follows them; + zooms in, three times.
    browser.eval(f"window.demokitReport.seek({mover['tick']})")
    browser.eval(f"document.querySelector('#players tbody tr[data-client-id=\"{cid}\"]').click()")
    check(state(browser)["following"] == cid, f"{name}: a click on client {cid}'s row does not follow them")
    zooms = [state(browser)["zoom"]]
    for _ in range(3):
        press(browser, "+")
        zooms.append(state(browser)["zoom"])
    check(all(b > a for a, b in zip(zooms, zooms[1:])), f"{name}: + does not zoom in: {zooms}")

    # Space plays; the followed tee stays in the view while the game runs.
    start = state(browser)["tick"]
    press(browser, " ")
    check(state(browser)["playing"], f"{name}: space does not start playback")
    seen_in_view = 0
    for _ in range(12):
        time.sleep(0.15)
        s = state(browser)
        tee = next((t for t in s["tees"] if t["client_id"] == cid), None)
        if tee is None:
            continue
        v, at = s["view"], tee["screen"]
        inside = v["left"] - 1 <= at["x"] <= v["left"] + v["width"] + 1 and v["top"] - 1 <= at["y"] <= v["top"] + v["height"] + 1
        check(inside, f"{name}: at tick {s['tick']:.2f} (zoom {s['zoom']:.2f}) followed client {cid} is at {at}, outside the view {v}")
        seen_in_view += inside
    # A short recording may have played to its end already, which pauses it.
    if state(browser)["playing"]:
        press(browser, " ")
    s = state(browser)
    check(not s["playing"], f"{name}: space does not pause")
    check(s["tick"] > start, f"{name}: playing did not move from tick {start} (now {s['tick']})")
    check(seen_in_view > 0 or s["tick"] >= data_last, f"{name}: the followed tee was never drawn while playing")

    # Keys: arrows step a second (shift: ten), Home and End, - zooms out.
    browser.eval(f"window.demokitReport.seek({mover['tick']})")
    t0 = state(browser)["tick"]
    press(browser, "ArrowRight")
    t1 = state(browser)["tick"]
    check(t1 == min(data_last, t0 + round(rate)), f"{name}: → went from {t0} to {t1}")
    press(browser, "ArrowLeft")
    check(state(browser)["tick"] == max(data_first, t1 - round(rate)), f"{name}: ← went from {t1} to {state(browser)['tick']}")
    press(browser, "ArrowRight", shift=True)
    check(state(browser)["tick"] == min(data_last, t1 - round(rate) + 10 * round(rate)), f"{name}: shift+→ did not step ten seconds")
    press(browser, "Home")
    check(state(browser)["tick"] == data_first, f"{name}: Home did not go to the first tick")
    press(browser, "End")
    check(state(browser)["tick"] == data_last, f"{name}: End did not go to the last tick")
    z = state(browser)["zoom"]
    press(browser, "-")
    check(state(browser)["zoom"] < z, f"{name}: - does not zoom out")
    press(browser, "0")
    check(state(browser)["zoom"] == 1, f"{name}: 0 does not reset the zoom")

    # Smooth motion: at a slow speed, the frames between two stored positions draw the tee
    # between them, on the line from one to the other.
    between = 0
    if moves:
        between = check_smooth(browser, name, mover)
    else:
        print(f"{name}: no player moves: smooth motion not checked (the expectations say so)")
    check_lists(browser, name, expect, data_first, data_last)
    print(f"{name}: zoom {zooms[-1]:.2f} following {cid}, {between} frames between positions")


def check_smooth(browser: Browser, name: str, mover: dict) -> int:
    cid = mover["client_id"]
    browser.eval(f"window.demokitReport.seek({mover['tick']}); document.getElementById('speed').value = '0.1'")
    press(browser, " ")
    frames = browser.eval(
        "new Promise(done => { const out = []; const f = () => { const s = window.demokitState();"
        f" out.push({{ tick: s.tick, tee: s.tees.find(t => t.client_id === {cid}) || null }});"
        " if (out.length < 45) requestAnimationFrame(f); else done(out); }; requestAnimationFrame(f); })"
    )
    press(browser, " ")
    browser.eval("document.getElementById('speed').value = '1'")
    between = 0
    screens = {}
    for f in frames:
        tee, tick = f["tee"], f["tick"]
        if tee is None or tee["next"] is None:
            continue
        a, b = tee["sample"], tee["next"]
        if not a["tick"] < tick < b["tick"]:
            continue
        frac = (tick - a["tick"]) / (b["tick"] - a["tick"])
        on_line = abs(tee["x"] - (a["x"] + frac * (b["x"] - a["x"]))) < 0.01 and abs(tee["y"] - (a["y"] + frac * (b["y"] - a["y"]))) < 0.01
        check(on_line, f"{name}: at tick {tick:.3f} the tee is at ({tee['x']}, {tee['y']}), not between {a} and {b}")
        if (tee["x"], tee["y"]) not in ((a["x"], a["y"]), (b["x"], b["y"])):
            between += 1
        screens.setdefault(a["tick"], set()).add((round(tee["screen"]["x"], 3), round(tee["screen"]["y"], 3)))
    fractional = sum(1 for f in frames if abs(f["tick"] - round(f["tick"])) > 1e-6)
    check(fractional >= 10, f"{name}: playback time moved in whole ticks ({fractional} of {len(frames)} frames fractional)")
    check(between >= 6, f"{name}: only {between} of {len(frames)} frames drew client {cid} between its stored positions")
    check(any(len(v) >= 3 for v in screens.values()), f"{name}: client {cid} took no three screen positions within one interval: {screens}")
    return between


def check_lists(browser: Browser, name: str, expect: dict, data_first: int, data_last: int) -> None:
    # The lists: the current line is the last at or before the tick, and follows it.
    for frac in (0.5, 0.75, 1.0):
        tick = round(data_first + frac * (data_last - data_first))
        browser.eval(f"window.demokitReport.seek({tick})")
        for log in ("chat", "events"):
            ok = browser.eval(
                f"(() => {{ const lis = [...document.querySelectorAll('#{log} li')].filter(li => !li.hidden);"
                f" const want = lis.filter(li => Number(li.dataset.tick) <= {tick}).pop() || null;"
                f" const cur = document.querySelectorAll('#{log} li.current');"
                " return cur.length === (want ? 1 : 0) && (want === null || cur[0] === want); })()"
            )
            check(ok, f"{name}: at tick {tick} the {log} list does not highlight its last line so far")
    lines = browser.eval("document.querySelectorAll('#events li').length")
    if lines:
        target = browser.eval(
            "(() => { const lis = document.querySelectorAll('#events li'); const li = lis[Math.floor(lis.length / 2)];"
            " li.click(); return Number(li.dataset.tick); })()"
        )
        check(state(browser)["tick"] == target, f"{name}: a click on an event line did not go to its tick {target}")
    # The filter lists every kind, and hides the lines of a kind unticked.
    kinds = browser.eval("[...document.querySelectorAll('#kinds input')].map(i => i.dataset.kind)")
    present = browser.eval(
        "[...new Set(window.demokitReport.data.events.concat(window.demokitReport.data.game_events || []).map(e => e.kind))]"
    )
    logged = browser.eval("[...new Set(window.demokitReport.data.events.map(e => e.kind))]")
    check(sorted(kinds) == sorted(present), f"{name}: the filter lists kinds {kinds}, the events have {present}")
    check(sorted(set(expect.get("event_kinds", logged))) == sorted(logged), f"{name}: the page's events have kinds {logged}, the library's {expect.get('event_kinds')}")
    if kinds:
        k = kinds[0]
        hidden = browser.eval(
            f"(() => {{ document.querySelector('#kinds input[data-kind=\"{k}\"]').click();"
            " const lis = [...document.querySelectorAll('#events li')];"
            f" const r = [lis.filter(li => li.dataset.kind === '{k}' && !li.hidden).length, lis.filter(li => li.dataset.kind !== '{k}' && li.hidden).length,"
            " lis.filter(li => li.hidden && li.classList.contains('current')).length];"
            f" document.querySelector('#kinds input[data-kind=\"{k}\"]').click(); return r; }})()"
        )
        check(hidden == [0, 0, 0], f"{name}: unticking {k} leaves {hidden[0]} of its lines shown, hides {hidden[1]} others, {hidden[2]} hidden highlighted")
    # Names, not numbers.
    raw = browser.eval(
        "[...document.querySelectorAll('#events li, #players td')].map(e => e.textContent)"
        ".filter(t => /(^|\\s)#\\d+\\b|\\(weapon -?\\d+\\)/.test(t)).slice(0, 5)"
    )
    check(not raw, f"{name}: lines show numbers for names: {raw}")
    print(f"{name}: {len(kinds)} event kinds in the filter")


def check_index(browser: Browser, html: pathlib.Path, expect: dict, shot: pathlib.Path) -> None:
    browser.open(html)
    offline(browser, html)
    visible = browser.eval("window.demokitIndex.visible()")
    check(sorted(visible) == sorted(expect["paths"]), f"index rows {visible} != {expect['paths']}")
    for word, paths in expect["filters"].items():
        shown = browser.eval(
            f"(() => {{ const f = document.getElementById('filter'); f.value = {json.dumps(word)};"
            " f.dispatchEvent(new Event('input')); return window.demokitIndex.visible(); })()"
        )
        check(sorted(shown) == sorted(paths), f"filter {word!r} shows {shown}, want {paths}")
    browser.eval(
        "(() => { const f = document.getElementById('filter'); f.value = '';"
        " f.dispatchEvent(new Event('input')); })()"
    )
    # A click on the length column's head sorts by length.
    browser.eval("document.querySelector('th[data-key=seconds]').click()")
    order = browser.eval("window.demokitIndex.visible()")
    seconds = {r["path"]: (r["seconds"] if r["seconds"] is not None else -1) for r in browser.eval("window.demokitIndex.data.rows")}
    check([seconds[p] for p in order] == sorted(seconds[p] for p in order), f"sorted by length: {order}")
    browser.screenshot(shot)
    check_layout(browser, html.name, shot)
    # Each link opens its recording's page.
    links = browser.eval("[...document.querySelectorAll('#index a')].map(a => a.getAttribute('href'))")
    check(len(links) == expect["pages"], f"{len(links)} links, want {expect['pages']}")
    for link in links:
        page = html.parent / link
        check(page.is_file(), f"link {link} names no file")
        if page.is_file():
            browser.open(page)
            offline(browser, page)
            check(browser.eval("typeof window.demokitReport") == "object", f"{link}: the page's script did not run")
    print(f"{html.name}: {len(visible)} rows, {len(links)} pages opened")


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("kind", choices=["page", "index"])
    parser.add_argument("--chromium", required=True)
    parser.add_argument("--html", required=True, type=pathlib.Path)
    parser.add_argument("--expect", required=True, type=pathlib.Path)
    parser.add_argument("--shot", required=True, type=pathlib.Path)
    args = parser.parse_args()
    expect = json.loads(args.expect.read_text())
    browser = Browser(args.chromium)
    try:
        if args.kind == "page":
            check_page(browser, args.html, expect)
            check_steering(browser, args.html, expect)
            check_layout(browser, args.html.name, args.shot)
            set_size(browser, 1500, 1100)
            # The screenshot shows the game half-way.
            first = expect.get("first_tick")
            last = expect.get("last_tick")
            if first is not None and last is not None:
                browser.eval(f"window.demokitReport.seek({(first + last) // 2})")
            browser.screenshot(args.shot)
        else:
            check_index(browser, args.html, expect, args.shot)
    finally:
        browser.close()
    for f in failures:
        print("FAILED:", f, file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
