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
    check(sorted(names) == sorted(expect["players"]), f"players shown {sorted(names)} != {sorted(expect['players'])}")
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
