#!/usr/bin/env python3
"""How long `windup mcp`'s tools take, as an agent sees them: the TodoMVC vanillajs flow
(browser_open, fill, press, expect, save_scenario) over stdio, each call timed, three rounds.

    cargo build -p windup && python3 bench/mcp-latency.py [path/to/windup]

Serves the registry's TodoMVC (scripts/fetch-fixtures.sh) on 127.0.0.1; no LLM is involved."""

import http.server
import json
import pathlib
import re
import statistics
import subprocess
import sys
import tempfile
import threading
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent
WINDUP = sys.argv[1] if len(sys.argv) > 1 else str(ROOT / "target/debug/windup")


def todomvc() -> str:
    out = subprocess.run(["bash", str(ROOT / "scripts/fetch-fixtures.sh")], capture_output=True, text=True, check=True).stdout
    return next(l.split("=", 1)[1] for l in out.splitlines() if l.startswith("TODOMVC_ROOT="))


def serve(directory: str) -> int:
    handler = lambda *a: http.server.SimpleHTTPRequestHandler(*a, directory=directory)  # noqa: E731
    http.server.SimpleHTTPRequestHandler.log_message = lambda *a: None
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server.server_address[1]


def session(port: int, times: dict) -> None:
    with tempfile.TemporaryDirectory() as project:
        pathlib.Path(project, "windup.toml").write_text(f'base_url = "http://127.0.0.1:{port}"\n')
        p = subprocess.Popen([WINDUP, "mcp"], cwd=project, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        n = [0]

        def request(method, params):
            n[0] += 1
            p.stdin.write(json.dumps({"jsonrpc": "2.0", "id": n[0], "method": method, "params": params}) + "\n")
            p.stdin.flush()
            while True:
                message = json.loads(p.stdout.readline())
                if message.get("id") == n[0]:
                    return message

        def tool(name, args):
            started = time.perf_counter()
            result = request("tools/call", {"name": name, "arguments": args})["result"]
            times.setdefault(name, []).append((time.perf_counter() - started) * 1000)
            assert not result.get("isError"), result
            return result["content"][0]["text"]

        request("initialize", {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "bench", "version": "0"}})
        p.stdin.write(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}) + "\n")
        page = tool("browser_open", {"url": "/examples/vanillajs/index.html"})
        field = re.search(r"(e\d+) textbox \"What needs", page).group(1)
        tool("fill", {"ref": field, "value": "Buy milk"})
        tool("press", {"ref": field, "key": "Enter"})
        tool("expect", {"facts": [1]})
        tool("save_scenario", {"id": "add", "task": 'Add a todo "Buy milk"'})
        p.stdin.close()
        p.wait()


def main() -> None:
    port = serve(todomvc())
    times: dict = {}
    for _ in range(3):
        session(port, times)
    print("tool            median ms  (3 sessions; browser_open includes starting Chromium)")
    for name, values in times.items():
        print(f"{name:15} {statistics.median(values):9.0f}")


if __name__ == "__main__":
    main()
