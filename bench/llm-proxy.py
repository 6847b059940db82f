#!/usr/bin/env python3
"""A recording proxy for an OpenAI-compatible server, for reading what a planner was shown:
each request's messages and the answer, appended as one JSON line to the log. Outside CI.

    python3 bench/llm-proxy.py LISTEN_PORT UPSTREAM_PORT LOG.jsonl
    WINDUP_LLM_CLIENT_PORT=LISTEN_PORT bash bench/real-model.sh TASK   (llama-server on UPSTREAM_PORT)
"""

import http.server
import json
import sys
import urllib.request

LISTEN, UPSTREAM, LOG = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]


class Proxy(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        self.forward(None)

    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("content-length", 0)))
        self.forward(body)

    def forward(self, body):
        req = urllib.request.Request(
            f"http://127.0.0.1:{UPSTREAM}{self.path}",
            data=body,
            method=self.command,
            headers={"content-type": self.headers.get("content-type", "application/json")},
        )
        try:
            with urllib.request.urlopen(req, timeout=900) as r:
                status, answer = r.status, r.read()
        except urllib.error.HTTPError as e:
            status, answer = e.code, e.read()
        if body:
            with open(LOG, "a") as log:
                sent = json.loads(body)
                log.write(json.dumps({"messages": sent.get("messages"),
                                      "answer": answer.decode(errors="replace")}) + "\n")
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(answer)))
        self.end_headers()
        self.wfile.write(answer)

    def log_message(self, *_):
        pass


http.server.ThreadingHTTPServer(("127.0.0.1", LISTEN), Proxy).serve_forever()
