"""JupyterLab for the real-app benches (bench/real-apps.py, bench/real-apps-plan.py with
`--app jupyterlab`): the server started as the Rust tests start it, each flow's folder reset, and
each flow judged by JupyterLab's own REST API, never by Windup's verdict.

The server is the registry fixture (scripts/fetch-fixtures.sh, JUPYTERLAB_PYTHON) started as
`windup_testkit::jupyterlab` starts it: a free port (`--port=0`, read from the runtime folder's
`jpserver-<pid>.json`), fresh root, config, data, runtime, settings and workspace folders and an
otherwise empty environment, so nothing of the machine's user leaks in; no token, password or
XSRF check (as galata configures it); the news feed, update check and PyPI extension manager off.
It stops with its kernels when its stdin reaches end of file: when `stop()` closes it, or when
the bench dies.

The flows are those of runner/cli/tests/jupyterlab-project (docs/real-apps-jupyterlab.md); each
works in a folder named after it, created through the contents API before it runs, as galata's
`tmpPath` fixture creates a test's folder. `oracle()` is what runner/cli/tests/cli/jupyterlab.rs
asserts (`assert_jupyterlab_did_the_flows`), flow by flow.
"""

import json
import os
import shutil
import subprocess
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
PROJECT = REPO / "runner/cli/tests/jupyterlab-project"
FLOWS = [
    "jl-new-folder-rename",
    "jl-rename-text-file",
    "jl-save-prompts-rename",
    "jl-notebook-run-cell",
    "jl-menus-close",
]

# Starts JupyterLab with the arguments its browser tests use (shared with the Rust tests) and
# stops it (SIGTERM: the server shuts its kernels down) when its stdin reaches end of file,
# whatever ended the bench.
LAUNCHER = REPO / "runner/testkit/src/jupyterlab_launch.py"

# How long a start may take on a loaded machine (a healthy start takes 3 to 10 s).
START_LIMIT_S = 120
# JupyterLab starts a notebook's session under a temporary path and moves it to the notebook's
# a moment later, on the server: how long the oracle reads until it has moved.
SESSION_MOVE_S = 15


class JupyterLab:
    """A running JupyterLab on a fresh home folder; `stop()` ends it and its kernels."""

    def __init__(self, python):
        self._dir = tempfile.TemporaryDirectory(prefix="windup-bench-jupyterlab-")
        self.home = Path(self._dir.name)

        def at(name):
            path = self.home / name
            path.mkdir(parents=True, exist_ok=True)
            return path

        self.root = at("root")
        runtime = at("runtime")
        settings = at("settings")
        # Never ask whether to fetch the news, never check for updates (each a web request).
        (at("settings/@jupyterlab/apputils-extension") / "notification.jupyterlab-settings") \
            .write_text('{"fetchNews": "false", "checkForUpdates": false}')
        env = {"PATH": os.environ.get("PATH", ""), "LANG": "C.UTF-8",
               "HOME": str(at("home")), "JUPYTER_CONFIG_DIR": str(at("config")),
               "JUPYTER_DATA_DIR": str(at("data")), "JUPYTER_RUNTIME_DIR": str(runtime),
               "JUPYTER_PLATFORM_DIRS": "1", "IPYTHONDIR": str(at("ipython")),
               "JUPYTERLAB_SETTINGS_DIR": str(settings),
               "JUPYTERLAB_WORKSPACES_DIR": str(at("workspaces"))}
        self.log_path = self.home / "server.log"
        with open(self.log_path, "wb") as log:
            self._child = subprocess.Popen(
                [python, str(LAUNCHER), f"--ServerApp.root_dir={self.root}"],
                env=env, stdin=subprocess.PIPE, stdout=log, stderr=subprocess.STDOUT)
        started = time.monotonic()
        info = runtime / f"jpserver-{self._child.pid}.json"
        port = None
        while port is None:
            try:
                port = int(json.loads(info.read_text())["port"])
            except (OSError, ValueError, KeyError, TypeError):
                self._check_alive(started, "its info file")
                time.sleep(0.1)
        self.base = f"http://127.0.0.1:{port}/"
        while self.request("GET", "api/status")[0] != 200:
            self._check_alive(started, "its API to answer")
            time.sleep(0.1)

    def _check_alive(self, started, what):
        code = self._child.poll()
        if code is not None or time.monotonic() - started > START_LIMIT_S:
            log = self.log_path.read_text(errors="replace")
            self.stop()
            raise SystemExit(f"JupyterLab did not start ({'exit ' + str(code) if code is not None else 'still starting'}; "
                             f"waiting for {what}):\n{log[-4000:]}")

    def stop(self):
        """Closing stdin makes the server shut its kernels down and exit; killed after 20 s."""
        if self._child.stdin and not self._child.stdin.closed:
            self._child.stdin.close()
        try:
            self._child.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self._child.kill()
            self._child.wait()
        self._dir.cleanup()

    def request(self, method, path, body=None):
        """A request to a path under the base URL: its status and JSON body (None when not
        JSON; status 0 when the server does not answer)."""
        data = json.dumps(body).encode() if body is not None else None
        req = urllib.request.Request(self.base + path, data=data, method=method,
                                     headers={"content-type": "application/json"})
        try:
            with urllib.request.urlopen(req, timeout=30) as r:
                status, raw = r.status, r.read()
        except urllib.error.HTTPError as e:
            status, raw = e.code, e.read()
        except OSError:
            return 0, None
        try:
            return status, json.loads(raw) if raw else None
        except ValueError:
            return status, None

    def contents(self, path):
        """`GET /api/contents/<path>` with its content, or None when JupyterLab has none (404)."""
        status, body = self.request("GET", f"api/contents/{urllib.parse.quote(path)}?content=1")
        if status == 404:
            return None
        if status != 200:
            raise SystemExit(f"GET /api/contents/{path}: {status} {body}")
        return body

    def names(self, folder):
        """The names in a folder, sorted; None when there is no such folder."""
        listing = self.contents(folder)
        return None if listing is None else sorted(e["name"] for e in listing["content"])

    def mkdir(self, path):
        """Creates a folder through the contents API, as galata's `tmpPath` fixture does."""
        status, body = self.request("PUT", f"api/contents/{urllib.parse.quote(path)}",
                                    {"type": "directory"})
        if status not in (200, 201):
            raise SystemExit(f"mkdir {path}: {status} {body}")

    def sessions(self):
        """`GET /api/sessions`: the open documents with their kernels."""
        status, body = self.request("GET", "api/sessions")
        if status != 200 or not isinstance(body, list):
            raise SystemExit(f"GET /api/sessions: {status} {body}")
        return body

    def close_sessions(self):
        """Shuts every session (and its kernel) down."""
        for session in self.sessions():
            status, body = self.request("DELETE", f"api/sessions/{session['id']}")
            if status != 204:
                raise SystemExit(f"DELETE session {session['id']}: {status} {body}")


def reset(lab, flows):
    """The server as the flows first find it: every session (and kernel) shut down, and each
    flow's folder emptied (or created)."""
    lab.close_sessions()
    for flow in flows:
        shutil.rmtree(lab.root / flow, ignore_errors=True)
        lab.mkdir(flow)


def oracle(lab, flow):
    """Whether JupyterLab's own record shows `flow` done: (True, "") when it does, (False, why)
    when it does not, (None, why) when the flow leaves no record on the server to judge by
    (the menus flow: only that it created nothing is checked, and a folder with something in it
    is a False)."""
    names = lab.names(flow)
    if names is None:
        return False, f"no folder {flow}"
    if flow == "jl-new-folder-rename":
        if names != ["results"]:
            return False, f"the folder holds {names}, not [results]"
        kind = (lab.contents(f"{flow}/results") or {}).get("type")
        return (True, "") if kind == "directory" else (False, f"results is a {kind}")
    if flow == "jl-rename-text-file":
        return (True, "") if names == ["dummy.txt"] else (
            False, f"the folder holds {names}, not [dummy.txt]")
    if flow == "jl-save-prompts-rename":
        if names != ["Untitled.ipynb"]:
            return False, f"the folder holds {names}, not [Untitled.ipynb]"
        path = f"{flow}/Untitled.ipynb"
        deadline = time.monotonic() + SESSION_MOVE_S
        sessions = lab.sessions()
        while not any(s.get("path") == path for s in sessions) and time.monotonic() < deadline:
            time.sleep(0.2)
            sessions = lab.sessions()
        session = next((s for s in sessions if s.get("path") == path), None)
        if session is None:
            return False, f"no kernel session for {path}"
        kernel = (session.get("kernel") or {}).get("name")
        return (True, "") if kernel == "python3" else (False, f"its kernel is {kernel}")
    if flow == "jl-notebook-run-cell":
        if names != ["squares.ipynb"]:
            return False, f"the folder holds {names}, not [squares.ipynb]"
        notebook = lab.contents(f"{flow}/squares.ipynb")["content"]
        cells = notebook.get("cells") or [{}]
        source = cells[0].get("source")
        source = "".join(source) if isinstance(source, list) else source
        outputs = cells[0].get("outputs") or [{}]
        text = (outputs[0].get("data") or {}).get("text/plain")
        text = "".join(text) if isinstance(text, list) else text
        spec = (notebook.get("metadata") or {}).get("kernelspec", {}).get("name")
        if source != "2 ** 3" or text != "8":
            return False, f"its first cell is {source!r} with output {text!r}"
        return (True, "") if spec == "python3" else (False, f"its kernelspec is {spec}")
    if flow == "jl-menus-close":
        return (None, "menus leave no record on the server; nothing was created") if not names \
            else (False, f"the folder holds {names}; the flow creates nothing")
    raise SystemExit(f"no oracle for {flow}")
