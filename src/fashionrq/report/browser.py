"""Open a page in headless Chromium over the DevTools protocol: console errors, requests, a JS probe, screenshots.

Used by the report's browser test and by ``scripts/report_screenshots.py``. Needs a ``chromium`` binary and
the ``websocket-client`` package (``pip install fashionrq[test]``). The network is switched off
(``Network.emulateNetworkConditions`` offline) before the page loads.
"""

from __future__ import annotations

import base64
import itertools
import json
import re
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

from fashionrq.errors import FashionRQError

FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
         "--disable-sync", "--no-first-run", "--hide-scrollbars", "--remote-debugging-port=0")


def find_chromium() -> str | None:
    """Path of a Chromium binary on PATH (``chromium`` or ``chromium-browser``), or None."""
    return shutil.which("chromium") or shutil.which("chromium-browser")


class Page:
    """One Chromium tab driven over its DevTools websocket; use as a context manager."""

    def __init__(self, width: int = 1200, height: int = 900, timeout: float = 60.0) -> None:
        import websocket

        binary = find_chromium()
        if binary is None:
            raise FashionRQError("no chromium on PATH; install it (Debian: apt-get install chromium).")
        self._profile = tempfile.mkdtemp(prefix="fashionrq-chromium-")
        self._proc = subprocess.Popen([binary, *FLAGS, f"--user-data-dir={self._profile}", f"--window-size={width},{height}",
                                       "about:blank"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        port = self._port(timeout)
        target = json.loads(_http_get(f"http://127.0.0.1:{port}/json/list"))
        page = next(t for t in target if t.get("type") == "page")
        self._ws = websocket.create_connection(page["webSocketDebuggerUrl"], timeout=timeout, suppress_origin=True)
        self._ids = itertools.count(1)
        self.events: list[dict] = []
        for domain in ("Page", "Runtime", "Log", "Network"):
            self.call(f"{domain}.enable")
        self.call("Network.emulateNetworkConditions", offline=True, latency=0, downloadThroughput=-1, uploadThroughput=-1)
        self.call("Emulation.setDeviceMetricsOverride", width=width, height=height, deviceScaleFactor=1, mobile=False)

    def _port(self, timeout: float) -> int:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            line = self._proc.stderr.readline()
            found = re.search(r"DevTools listening on ws://[^:]+:(\d+)/", line)
            if found:
                return int(found.group(1))
            if not line and self._proc.poll() is not None:
                break
        raise FashionRQError("chromium did not start its DevTools endpoint; run it by hand to see why.")

    def call(self, method: str, **params) -> dict:
        """Send one DevTools command and return its result; events that arrive meanwhile go to ``events``."""
        ident = next(self._ids)
        self._ws.send(json.dumps({"id": ident, "method": method, "params": params}))
        while True:
            message = json.loads(self._ws.recv())
            if message.get("id") == ident:
                if "error" in message:
                    raise FashionRQError(f"DevTools {method} failed: {message['error'].get('message')}")
                return message.get("result", {})
            self.events.append(message)

    def open(self, path: str | Path, wait: float = 30.0) -> None:
        """Navigate to a local file and wait for its load event."""
        self.call("Page.navigate", url=Path(path).resolve().as_uri())
        deadline = time.monotonic() + wait
        while not any(e.get("method") == "Page.loadEventFired" for e in self.events):
            if time.monotonic() > deadline:
                raise FashionRQError(f"{path} did not finish loading within {wait:.0f} s.")
            self.events.append(json.loads(self._ws.recv()))

    def evaluate(self, expression: str):
        """The JSON value of a JavaScript expression in the page."""
        result = self.call("Runtime.evaluate", expression=expression, returnByValue=True, awaitPromise=True)
        if "exceptionDetails" in result:
            raise FashionRQError(f"page script failed: {result['exceptionDetails'].get('text')}")
        return result["result"].get("value")

    def errors(self) -> list[str]:
        """Console errors, uncaught exceptions and error log entries seen so far."""
        out = []
        for e in self.events:
            method, params = e.get("method"), e.get("params", {})
            if method == "Runtime.consoleAPICalled" and params.get("type") in ("error", "assert"):
                out.append(" ".join(str(a.get("value", a.get("description", ""))) for a in params.get("args", [])))
            elif method == "Runtime.exceptionThrown":
                out.append(params.get("exceptionDetails", {}).get("text", "exception"))
            elif method == "Log.entryAdded" and params.get("entry", {}).get("level") == "error":
                out.append(params["entry"].get("text", ""))
        return out

    def requests(self) -> list[str]:
        """URLs of every request the page made."""
        return [e["params"]["request"]["url"] for e in self.events if e.get("method") == "Network.requestWillBeSent"]

    def screenshot(self, selector: str, path: str | Path) -> Path:
        """A PNG of the element matching ``selector`` (scrolled into view first)."""
        box = self.evaluate(f"(function(){{var e=document.querySelector({json.dumps(selector)});var r=e.getBoundingClientRect();"
                            "return {x:r.left+window.scrollX,y:r.top+window.scrollY,w:r.width,h:r.height};})()")
        shot = self.call("Page.captureScreenshot", format="png", captureBeyondViewport=True,
                         clip={"x": box["x"], "y": box["y"], "width": box["w"], "height": box["h"], "scale": 1})
        path = Path(path)
        path.write_bytes(base64.b64decode(shot["data"]))
        return path

    def close(self) -> None:
        try:
            self._ws.close()
        finally:
            self._proc.terminate()
            try:
                self._proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self._proc.kill()
            shutil.rmtree(self._profile, ignore_errors=True)

    def __enter__(self) -> Page:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def _http_get(url: str, tries: int = 50) -> str:
    import urllib.request

    for _ in range(tries):
        try:
            with urllib.request.urlopen(url, timeout=5) as response:  # loopback DevTools endpoint only
                return response.read().decode("utf-8")
        except OSError:
            time.sleep(0.1)
    raise FashionRQError(f"chromium's DevTools endpoint {url} did not answer.")
