"""JupyterLab started as its own browser tests configure it, for the Rust tests
(windup_testkit::jupyterlab) and the real-app benches (bench/jupyterlab_app.py) alike.

`python jupyterlab_launch.py --ServerApp.root_dir=DIR`: no token, no password, no XSRF check
(galata's `configure_jupyter_server`), a free loopback port (read from the runtime folder's
`jpserver-<pid>.json`), and nothing that would reach the internet (the news feed, the update
check, the extension manager's PyPI). It stops (SIGTERM: the server shuts its kernels down)
when its stdin reaches end of file: when the caller closes it, or when the caller dies.
"""

import os
import signal
import sys
import threading

ARGS = [
    "--no-browser",
    "--allow-root",
    "--ip=127.0.0.1",
    "--port=0",
    "--ServerApp.port_retries=0",
    "--IdentityProvider.token=",
    "--ServerApp.password=",
    "--ServerApp.disable_check_xsrf=True",
    "--LabApp.news_url=None",
    "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
    "--LabApp.extension_manager=readonly",
]


def watch():
    sys.stdin.buffer.read()
    os.kill(os.getpid(), signal.SIGTERM)


threading.Thread(target=watch, daemon=True).start()
from jupyterlab.labapp import main  # noqa: E402 (after the watch, so a slow import is covered)

sys.argv = ["jupyter-lab", *ARGS, *sys.argv[1:]]
sys.exit(main())
