"""What the benchmark scripts share: the registry fixtures, a free loopback port, and the
Chromium binary both tools drive."""
import os, socket, subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


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
