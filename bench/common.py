"""What the benchmark scripts share: the registry fixtures, a free loopback port, and the
Chromium binary both tools drive."""
import os, socket, subprocess, sys, time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# The bundled example's admin account (examples/acme/e2e/manifest.yaml names these variables;
# the demo app checks these values in its own page).
ACME_CREDENTIALS = {"ACME_ADMIN_EMAIL": "admin@acme.test",
                    "ACME_ADMIN_PASSWORD": "correct horse battery staple"}


def fixtures():
    """Installs the registry fixtures (scripts/fetch-fixtures.sh) and returns their paths."""
    out = subprocess.run(["bash", str(ROOT / "scripts/fetch-fixtures.sh")], check=True,
                         capture_output=True, text=True).stdout
    return dict(l.split("=", 1) for l in out.splitlines() if "=" in l)


def free_port():
    s = socket.socket(); s.bind(("127.0.0.1", 0)); p = s.getsockname()[1]; s.close(); return p


def chromium():
    """The binary both tools drive: $CHROMIUM, else the one windup picks for a headless run
    (Debian's headless shell when installed, else /usr/bin/chromium)."""
    if os.environ.get("CHROMIUM"):
        return os.environ["CHROMIUM"]
    shell = Path("/usr/lib/chromium/chromium-headless-shell")
    return str(shell) if shell.exists() else "/usr/bin/chromium"


def timed(cmd, env=None, cwd=None):
    """Runs a whole process; returns its wall time in ms and its result, or exits on failure."""
    t = time.perf_counter()
    r = subprocess.run(cmd, env=env, cwd=cwd, capture_output=True, text=True)
    dt = (time.perf_counter() - t) * 1000
    if r.returncode != 0:
        sys.exit(f"{cmd[0]} failed ({r.returncode}):\n{r.stdout[-2000:]}\n{r.stderr[-2000:]}")
    return dt, r


def windup_binary(given=None):
    """The windup to measure: `given`, else the release build, else the debug build."""
    if given:
        return given
    for p in (ROOT / "target/release/windup", ROOT / "target/debug/windup"):
        if p.exists():
            return str(p)
    sys.exit("no windup binary: build one or pass --windup PATH")


def static_server(root):
    """A fast keep-alive static server (Node, bench/static-server.mjs) on loopback serving
    `root`: python's http.server takes 40-120 ms a file here, which would dominate page loads.
    Returns the process and its base URL."""
    port = free_port()
    server = subprocess.Popen(["node", str(ROOT / "bench/static-server.mjs"), str(port), str(root)],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    time.sleep(0.5)
    return server, f"http://127.0.0.1:{port}/"


def machine_made(entry_file, by):
    """Marks a cache entry's plan as made by `by` (a model), not reviewed: a run may then heal
    it in place. `windup replay --save` and the committed plans make a person's plan, whose
    heal is only proposed."""
    import json
    entry = json.loads(Path(entry_file).read_text())
    entry.pop("reviewed", None)
    entry["plan"]["generated_by"] = by
    Path(entry_file).write_text(json.dumps(entry))
