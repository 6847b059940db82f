"""`windup scan` on a generated 200-route app: a Next.js app router (200 `page.tsx`, route
groups, dynamic segments, each page a realistic component of about 80 lines with buttons,
links, a form and fields) and a react-router data router of the same size (20 route modules
imported by the router, 200 lazy or component routes, 200 component files). Reports the median
of --runs whole-process runs of `windup scan` (start-up included) and the scan's own time as
it prints it. Target: under 1 s for 200 routes. Outside CI: never a timed assertion in tests."""
import argparse, json, os, re, statistics, subprocess, tempfile, time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def component(name, links):
    fields = "\n".join(
        f'        <label>Field {i} <input name="f{i}" placeholder="Value {i}" data-testid="{name}-f{i}" /></label>'
        for i in range(8))
    nav = "\n".join(f'        <Link href="{href}">Go to {href}</Link>' for href in links)
    rows = "\n".join(
        f'          <tr key="{i}"><td>{{item.name}}</td><td><Button onClick={{() => remove(item.id)}}>Remove {i}</Button></td></tr>'
        for i in range(10))
    return f'''import {{ useState }} from "react";
import Link from "next/link";
import {{ Button }} from "@/components/ui/button";

type Item = {{ id: string; name: string }};

export default function {name}Page({{ params }}: {{ params: {{ id?: string }} }}) {{
  const [items, setItems] = useState<Item[]>([]);
  const [query, setQuery] = useState("");
  const remove = (id: string) => setItems(items.filter((i) => i.id !== id));
  const filtered = items.filter((i) => i.name.toLowerCase().includes(query.toLowerCase()));
  return (
    <main className="container">
      <h1>{name}</h1>
      <nav aria-label="Sections">
{nav}
      </nav>
      <input type="search" aria-label="Search {name}" value={{query}} onChange={{(e) => setQuery(e.target.value)}} />
      <form aria-label="Edit {name}" onSubmit={{(e) => e.preventDefault()}}>
{fields}
        <select aria-label="Status"><option>Open</option><option>Closed</option></select>
        <textarea aria-label="Notes" />
        <button type="submit">Save {name}</button>
      </form>
      <table>
        <tbody>
          {{filtered.map((item) => (
{rows}
          ))}}
        </tbody>
      </table>
    </main>
  );
}}
'''


def next_app(base: Path, n=200):
    (base / "package.json").write_text(json.dumps({"name": "big", "dependencies": {"next": "15.0.0"}}))
    routes = []
    for i in range(n):
        group = f"(g{i % 4})"
        section = f"s{i // 10}"
        leaf = f"p{i}" if i % 5 else f"[id{i}]"
        d = base / "app" / group / section / leaf
        d.mkdir(parents=True, exist_ok=True)
        routes.append(f"/{section}/{leaf}")
        links = [f"/s{(i + k) % 20}/p{(i + k) % n}" for k in range(1, 4)]
        (d / "page.tsx").write_text(component(f"P{i}", links))
    return n


def react_router(base: Path, n=200):
    (base / "package.json").write_text(json.dumps({"name": "big-rr", "dependencies": {"react-router-dom": "6.22.0"}}))
    src = base / "src"
    (src / "routes").mkdir(parents=True)
    (src / "pages").mkdir(parents=True)
    imports, spreads = [], []
    for m in range(20):
        entries = []
        for k in range(10):
            i = m * 10 + k
            (src / "pages" / f"P{i}.tsx").write_text(component(f"P{i}", [f"/m{m}/r{(i + 1) % n}"]))
            if k % 2:
                entries.append(f'  {{ path: "r{i}", lazy: () => import("../pages/P{i}") }},')
            else:
                entries.append(f'  {{ path: "r{i}/:id", element: <P{i}Page /> }},')
        head = "\n".join(f'import P{m * 10 + k}Page from "../pages/P{m * 10 + k}";' for k in range(0, 10, 2))
        (src / "routes" / f"m{m}.tsx").write_text(
            f"{head}\nexport const m{m}Routes = [\n" + "\n".join(entries) + "\n];\n")
        imports.append(f'import {{ m{m}Routes }} from "./routes/m{m}";')
        spreads.append(f'      {{ path: "m{m}", children: m{m}Routes }},')
    (src / "main.tsx").write_text("\n".join(imports) + '''
import { createBrowserRouter } from "react-router-dom";
import Root from "./root";
export const router = createBrowserRouter([
  { path: "/", element: <Root />, children: [
''' + "\n".join(spreads) + "\n  ] },\n]);\n")
    (src / "root.tsx").write_text("export default function Root() { return <div />; }\n")
    return n + 1


def windup():
    """$WINDUP, else the newer of the release and debug builds (build one first)."""
    if os.environ.get("WINDUP"):
        return Path(os.environ["WINDUP"])
    built = [p for p in (ROOT / "target/release/windup", ROOT / "target/debug/windup") if p.exists()]
    if not built:
        subprocess.run(["cargo", "build", "-p", "windup"], cwd=ROOT, check=True)
        return ROOT / "target/debug/windup"
    return max(built, key=lambda p: p.stat().st_mtime)


def measure(binary, root, runs):
    walls, own = [], []
    for _ in range(runs):
        t = time.perf_counter()
        out = subprocess.run([str(binary), "scan", "--root", str(root)], check=True,
                             capture_output=True, text=True)
        walls.append((time.perf_counter() - t) * 1000)
        m = re.search(r"(\d+) routes in (\d+) ms", out.stderr)
        own.append(int(m.group(2)))
        routes = int(m.group(1))
    return routes, statistics.median(walls), statistics.median(own)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=5)
    args = ap.parse_args()
    binary = windup()
    print(f"binary: {binary}")
    for name, make in (("next.js app router", next_app), ("react-router data router", react_router)):
        with tempfile.TemporaryDirectory() as d:
            expected = make(Path(d))
            routes, wall, own = measure(binary, d, args.runs)
            size = sum(f.stat().st_size for f in Path(d).rglob("*.tsx"))
            print(f"{name}: {routes} routes (expected {expected}), {size // 1024} KiB of TSX: "
                  f"median {wall:.0f} ms whole process, {own:.0f} ms scanning "
                  f"({'under' if wall < 1000 else 'OVER'} 1 s)")


if __name__ == "__main__":
    main()
