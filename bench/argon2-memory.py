#!/usr/bin/env python3
"""argon2's memory in the dashboard under a burst of sign-ins (issue 33).

Starts the real `windup-dashboard` binary on a fresh SQLite file (`--trust-forwarded-for`, so
each sign-in comes from its own address and the per-address throttle stays out of the way),
creates an account, then fires rounds of 200 concurrent sign-ins: a quarter with that account's
right password, the rest wrong passwords for made-up accounts (which still cost a full argon2
check, against the dummy hash). Every request first fetches the form (CSRF token and cookie),
then all post together. The server's RSS is sampled from /proc/PID/status every 10 ms (VmRSS),
and its high-water mark (VmHWM) read at the end; prints the peak against the 100 MiB target,
and the figure measured before the fix.

Usage: python3 bench/argon2-memory.py [--concurrent 200] [--rounds 3]
Binary: $WINDUP_DASHBOARD, else target/release/windup-dashboard when built, else the debug build
(`cargo build -p windup-dashboard`, which the script runs when there is none).
"""

import argparse, http.client, os, subprocess, sys, tempfile, threading, time, urllib.parse
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import free_port  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
PASSWORD = "correct horse battery staple"
TARGET_MIB = 100
# The security review's figure on the code before the fix (a semaphore of one permit per core
# over tokio's blocking pool): 48 concurrent sign-ins took the server from 11 MiB to 430 MiB,
# and it plateaued at 579 MiB.
BEFORE = "48 concurrent sign-ins: 11 MiB -> 430 MiB, plateau 579 MiB (security review, issue 33)"


def binary():
    if os.environ.get("WINDUP_DASHBOARD"):
        return os.environ["WINDUP_DASHBOARD"]
    release = ROOT / "target/release/windup-dashboard"
    if release.exists():
        return str(release)
    subprocess.run(["cargo", "build", "-p", "windup-dashboard"], cwd=ROOT, check=True)
    return str(ROOT / "target/debug/windup-dashboard")


def status_kib(pid, field):
    try:
        for line in open(f"/proc/{pid}/status"):
            if line.startswith(field + ":"):
                return int(line.split()[1])
    except OSError:
        pass
    return 0


def form(port, conn):
    conn.request("GET", "/login")
    r = conn.getresponse()
    page = r.read().decode()
    cookies = [h.split(";")[0] for k, h in r.getheaders() if k.lower() == "set-cookie"]
    return page.split('name="csrf" value="')[1].split('"')[0], "; ".join(cookies)


def burst(port, n, round_no):
    """n sign-ins posted together; their statuses."""
    statuses = [None] * n
    ready = threading.Barrier(n)

    def one(i):
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=600)
        try:
            csrf, cookie = form(port, conn)
            right = i % 4 == 0
            email = "ada@example.com" if right else f"guess-{round_no}-{i}@example.com"
            password = PASSWORD if right else f"wrong guess {i}"
            body = urllib.parse.urlencode({"csrf": csrf, "email": email, "password": password})
            ready.wait()
            conn.request("POST", "/login", body=body, headers={
                "content-type": "application/x-www-form-urlencoded",
                "cookie": cookie,
                "x-forwarded-for": f"10.{round_no}.{i // 250}.{i % 250 + 1}",
            })
            r = conn.getresponse()
            r.read()
            statuses[i] = r.status
        except Exception as e:  # noqa: BLE001 (a bench counts what went wrong)
            statuses[i] = f"error: {e}"
            try:
                ready.abort()
            except threading.BrokenBarrierError:
                pass

    threads = [threading.Thread(target=one, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return statuses


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--concurrent", type=int, default=200)
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    exe = binary()
    work = tempfile.mkdtemp(prefix="argon2-bench-")
    env = dict(os.environ, DATABASE_URL=f"{work}/dashboard.db", RUST_LOG="error",
               BENCH_PASSWORD=PASSWORD)
    subprocess.run([exe, "user", "create", "ada@example.com", "--password-env", "BENCH_PASSWORD"],
                   env=env, check=True, capture_output=True)
    port = free_port()
    proc = subprocess.Popen([exe, "serve", "--addr", f"127.0.0.1:{port}", "--insecure-cookies",
                             "--trust-forwarded-for"],
                            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        for _ in range(400):
            try:
                c = http.client.HTTPConnection("127.0.0.1", port, timeout=2)
                c.request("GET", "/healthz")
                if c.getresponse().status == 200:
                    break
            except OSError:
                time.sleep(0.05)
        else:
            sys.exit("the dashboard did not start")
        idle = status_kib(proc.pid, "VmRSS")
        peak = [idle]
        sampling = True

        def sample():
            while sampling:
                peak[0] = max(peak[0], status_kib(proc.pid, "VmRSS"))
                time.sleep(0.01)

        sampler = threading.Thread(target=sample)
        sampler.start()
        counts = {}
        started = time.perf_counter()
        for r in range(args.rounds):
            for s in burst(port, args.concurrent, r):
                counts[s] = counts.get(s, 0) + 1
            after = status_kib(proc.pid, "VmRSS")
            print(f"round {r + 1}: VmRSS now {after / 1024:.1f} MiB, peak so far "
                  f"{peak[0] / 1024:.1f} MiB")
        elapsed = time.perf_counter() - started
        sampling = False
        sampler.join()
        hwm = status_kib(proc.pid, "VmHWM")
    finally:
        proc.terminate()
        proc.wait(timeout=30)
    checked = counts.get(303, 0) + counts.get(401, 0)
    print(f"binary: {exe}")
    print(f"{args.rounds} rounds of {args.concurrent} concurrent sign-ins in {elapsed:.1f} s: "
          + ", ".join(f"{k}: {v}" for k, v in sorted(counts.items(), key=str))
          + f" (303 signed in, 401 wrong password, 429 the account's 5 reserved attempts in flight, "
          f"503 the gate's queue full; {checked} argon2 checks ran)")
    print(f"idle VmRSS {idle / 1024:.1f} MiB; peak VmRSS sampled {peak[0] / 1024:.1f} MiB; "
          f"VmHWM {hwm / 1024:.1f} MiB")
    worst = max(peak[0], hwm) / 1024
    print(f"peak {worst:.1f} MiB = {worst / TARGET_MIB:.2f} x the {TARGET_MIB} MiB target "
          f"({'met' if worst < TARGET_MIB else 'MISSED'})")
    print(f"before the fix: {BEFORE}; the peak now is {worst / 430:.2f} x 430 MiB and "
          f"{worst / 579:.2f} x 579 MiB")
    if any(isinstance(k, str) for k in counts):
        sys.exit("some sign-ins failed outright")
    return 0 if worst < TARGET_MIB else 1


if __name__ == "__main__":
    sys.exit(main())
