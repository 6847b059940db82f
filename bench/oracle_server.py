#!/usr/bin/env python3
"""The bench site for bench/real-model.sh, served in one oracle mode: the app as it is, or a mutant
of TodoMVC that swallows one effect of the task. An oracle that is not Windup's own verdict: a
plan that proves its task must pass on the app and fail on every mutant that blocks the task's
effect (a plan that passes on a mutant checked something other than the effect).

Usage: bench/oracle_server.py --root SITE --port PORT --mode MODE [--reward-log FILE]

Modes (one process, one port each):
  app              the site as it is
  mutant-add       Enter, submit and change on the new-todo field never reach the app (typing does)
  mutant-complete  click, change and input on the todo toggles never reach the app; the checkbox
                   still ticks in the DOM (no preventDefault), so a plan whose only proof is the
                   checkbox's own state passes here
  mutant-filter    clicks on the filter links are prevented, hashchange and popstate never reach
                   the app's router
The mutant's script is injected as the first child of <head> of every HTML page under examples/,
so its capture listeners on window run before any listener the app adds.

In every mode, POST /__oracle/reward (the beacon the seeded MiniWoB pages send when an episode
ends: task, reward, raw reward, reason) appends one JSON line to --reward-log, with the time and
the mode. GET /__oracle/health answers the mode. Python stdlib only; loopback only.
"""
import argparse, json, mimetypes, posixpath, re, sys, threading, time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import unquote, urlsplit

MODES = ("app", "mutant-add", "mutant-complete", "mutant-filter")
REWARD_PATH = "/__oracle/reward"

# One script, three mutants: MODE picks the listeners. Capture phase on window runs before any
# listener of the page (document, root element, the target itself); stopImmediatePropagation
# there stops the event before the app's code sees it.
MUTANT_JS = r"""<script>/* windup bench oracle: %(mode)s */
(function (mode) {
  var NEW_TODO = 'What needs to be done?';
  function el(t) { return t && t.nodeType === 1 ? t : null; }
  function isNewTodo(t) {
    t = el(t);
    if (!t || !t.matches) return false;
    if (t.matches('.new-todo, #new-todo')) return true;
    return t.matches('input') && t.getAttribute('placeholder') === NEW_TODO &&
      !!t.closest('header, .header, #header');
  }
  function isToggle(t) {
    t = el(t);
    if (!t || !t.matches) return false;
    return t.matches('.toggle, .toggle-all, #toggle-all') ||
      (t.matches('input[type=checkbox]') && !!t.closest('.todo-list, #todo-list'));
  }
  function on(type, f) { window.addEventListener(type, f, true); }
  if (mode === 'mutant-add') {
    ['keydown', 'keypress', 'keyup'].forEach(function (type) {
      on(type, function (e) {
        if ((e.key === 'Enter' || e.keyCode === 13) && isNewTodo(e.target)) e.stopImmediatePropagation();
      });
    });
    on('change', function (e) { if (isNewTodo(e.target)) e.stopImmediatePropagation(); });
    // A form holding the field (angularjs' ng-submit): prevented too, else the page reloads.
    on('submit', function (e) {
      var f = el(e.target);
      if (f && f.querySelector && isNewTodo(f.querySelector('input'))) {
        e.preventDefault();
        e.stopImmediatePropagation();
      }
    });
  } else if (mode === 'mutant-complete') {
    ['click', 'change', 'input'].forEach(function (type) {
      on(type, function (e) { if (isToggle(e.target)) e.stopImmediatePropagation(); });
    });
  } else if (mode === 'mutant-filter') {
    on('click', function (e) {
      var t = el(e.target);
      if (t && t.closest && t.closest('.filters a, #filters a')) {
        e.preventDefault();
        e.stopImmediatePropagation();
      }
    });
    on('hashchange', function (e) { e.stopImmediatePropagation(); });
    on('popstate', function (e) { e.stopImmediatePropagation(); });
  }
})('%(mode)s');
</script>"""

HEAD = re.compile(rb"<head(\s[^>]*)?>", re.IGNORECASE)


class Site:
    """The files under root (symlinks followed), read once and kept; what a path serves in a mode."""

    def __init__(self, root, mode):
        self.root, self.mode = Path(root), mode
        self.files, self.lock = {}, threading.Lock()

    def read(self, rel):
        """The bytes of the file at rel, or None."""
        with self.lock:
            if rel in self.files:
                return self.files[rel]
        path = self.root / rel
        body = path.read_bytes() if path.is_file() else None
        with self.lock:
            self.files[rel] = body
        return body

    def answer(self, url_path):
        """(status, headers, body) of a GET."""
        path = posixpath.normpath(unquote(url_path))
        if ".." in path.split("/"):
            return 403, {"Content-Type": "text/plain"}, b"forbidden"
        rel = path.lstrip("/")
        if rel in ("", ".") or (self.root / rel).is_dir():
            if rel not in ("", ".") and not url_path.endswith("/"):
                # As http.server does: relative links in the index resolve against the folder.
                return 301, {"Location": url_path + "/", "Content-Type": "text/plain"}, b""
            rel = (rel.rstrip("/.") + "/index.html").lstrip("/")
        body = self.read(rel)
        if body is None:
            return 404, {"Content-Type": "text/plain"}, b"not found"
        ctype = mimetypes.guess_type(rel)[0] or "application/octet-stream"
        if ctype == "text/html" and self.mode != "app" and rel.startswith("examples/"):
            body = inject(body, self.mode)
        if ctype.startswith("text/") or ctype in ("application/javascript", "application/json"):
            ctype += "; charset=utf-8"
        return 200, {"Content-Type": ctype}, body


def inject(html, mode):
    """The page with the mutant's script as the first child of <head> (a page with no <head> gets
    it first)."""
    script = (MUTANT_JS % {"mode": mode}).encode()
    m = HEAD.search(html)
    return html[: m.end()] + script + html[m.end():] if m else script + html


def handler(site, reward_log):
    log_lock = threading.Lock()

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"  # keep-alive: a page's files share a connection

        def send(self, status, headers, body):
            try:
                self.send_response(status)
                for k, v in {"Content-Length": str(len(body)), **headers}.items():
                    self.send_header(k, v)
                self.send_header("Cache-Control", "no-store")
                self.end_headers()
                self.wfile.write(body)
            except (BrokenPipeError, ConnectionResetError):
                pass

        def do_GET(self):
            path = urlsplit(self.path).path
            if path == "/__oracle/health":
                return self.send(200, {"Content-Type": "text/plain"}, site.mode.encode())
            self.send(*site.answer(path))

        def do_HEAD(self):
            status, headers, body = site.answer(urlsplit(self.path).path)
            self.send(status, {**headers, "Content-Length": str(len(body))}, b"")

        def do_POST(self):
            path = urlsplit(self.path).path
            body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            if path != REWARD_PATH or reward_log is None:
                return self.send(404, {"Content-Type": "text/plain"}, b"not found")
            try:
                record = json.loads(body)
                if not isinstance(record, dict):
                    raise ValueError("not an object")
            except ValueError as e:
                return self.send(400, {"Content-Type": "text/plain"}, f"bad reward: {e}".encode())
            record = {"at": time.time(), "mode": site.mode, **record}
            with log_lock, open(reward_log, "a") as f:
                f.write(json.dumps(record) + "\n")
            self.send(204, {}, b"")

        def log_message(self, *args):
            pass

    return Handler


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--root", required=True, help="the site folder (examples/, miniwob/, core/, common/)")
    ap.add_argument("--port", type=int, required=True)
    ap.add_argument("--mode", choices=MODES, default="app")
    ap.add_argument("--reward-log", help="JSON-lines file the MiniWoB reward beacons are appended to")
    args = ap.parse_args()
    if not Path(args.root).is_dir():
        sys.exit(f"oracle_server: {args.root} is not a folder")
    server = ThreadingHTTPServer(("127.0.0.1", args.port), handler(Site(args.root, args.mode), args.reward_log))
    server.daemon_threads = True
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()
