#!/usr/bin/env python3
"""How large `check -o html` is and how long headless Chromium takes to open it.

Writes the page of each snapshot given, then opens it several times in Debian's chromium, driven
over the DevTools protocol on a pipe (--remote-debugging-pipe: no port, no library), inside a
network namespace without a network (root, unshare --net). Prints the file size and the median
time from navigation start to the end of the load event (performance.timing), which includes
parsing, the page's script and the first layout.

usage: scripts/bench-html.py [--bin BIN] [--runs N] SNAPSHOT...
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time


class Browser:
    """One headless Chromium, spoken to over fds 3 (commands) and 4 (answers)."""

    def __init__(self, profile):
        to_chrome_r, self.to_chrome = os.pipe()
        self.from_chrome, from_chrome_w = os.pipe()
        # The child reads commands on fd 3 and writes answers on fd 4.
        def wire():
            os.dup2(to_chrome_r, 3)
            os.dup2(from_chrome_w, 4)
        self.proc = subprocess.Popen(
            ["unshare", "--net", "chromium", "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
             "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync",
             "--remote-debugging-pipe", f"--user-data-dir={profile}", "--window-size=1280,1000", "about:blank"],
            preexec_fn=wire, pass_fds=(3, 4),
            stdout=subprocess.DEVNULL, stderr=open(os.path.join(profile, "..", "chromium.log"), "w") if os.environ.get("BENCH_HTML_LOG") else subprocess.DEVNULL)
        os.close(to_chrome_r)
        os.close(from_chrome_w)
        self.buf = b""
        self.next_id = 0
        self.events = []

    def send(self, method, params=None, session=None):
        self.next_id += 1
        msg = {"id": self.next_id, "method": method, "params": params or {}}
        if session:
            msg["sessionId"] = session
        os.write(self.to_chrome, json.dumps(msg).encode() + b"\0")
        return self.wait(lambda m: m.get("id") == self.next_id)

    def wait(self, match, timeout=120):
        deadline = time.monotonic() + timeout
        while True:
            for i, m in enumerate(self.events):
                if match(m):
                    return self.events.pop(i)
            if time.monotonic() > deadline:
                raise TimeoutError("no answer from chromium")
            while b"\0" not in self.buf:
                chunk = os.read(self.from_chrome, 1 << 20)
                if not chunk:
                    raise EOFError("chromium closed the pipe")
                self.buf += chunk
            raw, self.buf = self.buf.split(b"\0", 1)
            self.events.append(json.loads(raw))

    def close(self):
        try:
            self.send("Browser.close")
        except (EOFError, OSError):
            pass
        self.proc.wait(timeout=30)


def load_ms(page):
    with tempfile.TemporaryDirectory() as profile:
        b = Browser(profile)
        try:
            target = b.send("Target.createTarget", {"url": "about:blank"})["result"]["targetId"]
            session = b.send("Target.attachToTarget", {"targetId": target, "flatten": True})["result"]["sessionId"]
            b.send("Page.enable", session=session)
            b.send("Page.navigate", {"url": "file://" + os.path.abspath(page)}, session=session)
            b.wait(lambda m: m.get("method") == "Page.loadEventFired" and m.get("sessionId") == session)
            expr = "performance.timing.loadEventEnd - performance.timing.navigationStart"
            # loadEventEnd is set once the load handlers return: poll until it is.
            for _ in range(100):
                r = b.send("Runtime.evaluate", {"expression": expr, "returnByValue": True}, session=session)
                value = r["result"]["result"]["value"]
                if value > 0:
                    return value
                time.sleep(0.05)
            raise RuntimeError("loadEventEnd never set")
        finally:
            b.close()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", default="target/release/kubectl-lbdoctor")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("snapshots", nargs="+")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as work:
        for snap in args.snapshots:
            page = os.path.join(work, "page.html")
            with open(page, "wb") as out:
                t0 = time.monotonic()
                rc = subprocess.run([args.bin, "check", "--from", snap, "-o", "html"], stdout=out).returncode
                written = time.monotonic() - t0
            if rc not in (0, 1):
                sys.exit(f"{snap}: check -o html exited {rc}")
            size = os.path.getsize(page)
            times = [load_ms(page) for _ in range(args.runs)]
            print(f"{snap}: {size / 1e6:.2f} MB written in {written:.2f} s; load event after "
                  f"{statistics.median(times) / 1000:.2f} s median (min {min(times) / 1000:.2f}, "
                  f"max {max(times) / 1000:.2f}) over {args.runs} runs")


if __name__ == "__main__":
    main()
