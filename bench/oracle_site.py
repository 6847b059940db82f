#!/usr/bin/env python3
"""The task set of bench/real-model.sh and the site it runs on.

    bench/oracle_site.py site SITE          the bench site: TodoMVC's examples, MiniWoB's core and
                                            one seeded page per MiniWoB task (miniwob/TASK-seed1.html)
    bench/oracle_site.py miniwob-tasks      the MiniWoB tasks, one a line
    bench/oracle_site.py scenarios PROJECT UTTERANCES.json
                                            the 39 scenarios, written into PROJECT/e2e/scenarios

A seeded page starts episode 1 of its task on load (seed 1), so plans stay pure data. Its episode
lasts 2,000,000,000 ms (setTimeout overflows above 2^31-1): a success shows "1.00" however slow
planning is. It wraps core.endEpisode so that, once an episode has ended, it sends MiniWoB's own
reward to the oracle server (bench/oracle_server.py, POST /__oracle/reward): the page's reward
is the MiniWoB oracle, not Windup's verdict.

A MiniWoB scenario's task is the utterance MiniWoB gives every agent for the seeded episode (the
text of #query, read from the page by bench/miniwob-utterances.mjs), then a check of the reward.
"""
import json, os, sys
from pathlib import Path

APPS = ["vanillajs", "backbone", "react", "vue", "angularjs", "knockoutjs", "emberjs", "mithril"]
TODOMVC = {
    "add": 'Add a todo named "Buy milk" and check that it is in the list.',
    "complete": 'Add a todo named "Buy milk", complete it, and check that 0 items are left.',
    "active": 'Add two todos, "Buy milk" and "Walk dog", complete "Buy milk", and show only the active todos.',
}
# The mutants a TodoMVC task's effect depends on: a plan that proves the task fails on each.
MUTANTS = {"add": ["add"], "complete": ["add", "complete"], "active": ["add", "complete", "filter"]}
MINIWOB = ["click-button", "click-link", "click-checkboxes", "click-dialog", "click-tab", "click-option",
           "enter-text", "enter-password", "enter-date", "focus-text", "login-user", "choose-list",
           "navigate-tree", "search-engine", "click-widget"]
SEED = 1
REWARD_CHECK = ' Then check that the last reward shown is "1.00".'

SEEDED = """<script>
window.addEventListener('load', function () {
  (function go() {
    if (typeof core !== 'object' || core.cover_div === null) return setTimeout(go, 20);
    core.EPISODE_MAX_TIME = 2000000000;
    var end = core.endEpisode;
    core.endEpisode = function () {
      var episode = WOB_EPISODE_ID;
      var out = end.apply(this, arguments);
      if (WOB_EPISODE_ID !== episode) {  // an episode ended (a second call for it is a no-op)
        navigator.sendBeacon('/__oracle/reward', JSON.stringify({task: %(task)s, seed: %(seed)d,
          reward: WOB_REWARD_GLOBAL, raw: WOB_RAW_REWARD_GLOBAL, reason: WOB_REWARD_REASON}));
      }
      return out;
    };
    Math.seedrandom(%(seed)d); core.startEpisodeReal();
  })();
});
</script>
</body>"""


def family(scenario_id):
    """add, complete, active or miniwob."""
    return "miniwob" if scenario_id.startswith("miniwob-") else scenario_id.rsplit("-", 1)[1]


def mutants_of(scenario_id):
    """The mutants a scenario's plan must fail on (none for MiniWoB)."""
    return [] if scenario_id.startswith("miniwob-") else MUTANTS[family(scenario_id)]


def all_ids():
    return [f"todomvc-{app}-{task}" for app in APPS for task in TODOMVC] + [f"miniwob-{t}" for t in MINIWOB]


def build_site(site, todomvc_root, miniwob_html):
    site = Path(site)
    site.mkdir(parents=True, exist_ok=True)
    for name, target in (("examples", Path(todomvc_root) / "examples"), ("core", Path(miniwob_html) / "core"),
                         ("common", Path(miniwob_html) / "common")):  # common/ui_utils.js: else no task
        (site / name).symlink_to(target)
    (site / "miniwob").mkdir()
    for f in sorted((Path(miniwob_html) / "miniwob").iterdir()):
        (site / "miniwob" / f.name).symlink_to(f)
    for task in MINIWOB:
        html = (Path(miniwob_html) / "miniwob" / f"{task}.html").read_text()
        if "</body>" not in html:
            sys.exit(f"oracle_site: miniwob/{task}.html has no </body> to seed")
        page = html.replace("</body>", SEEDED % {"task": json.dumps(task), "seed": SEED}, 1)
        (site / "miniwob" / f"{task}-seed{SEED}.html").write_text(page)


def write_scenarios(project, utterances):
    """One YAML file per task; every string JSON-quoted (a valid YAML double-quoted scalar)."""
    out = Path(project) / "e2e/scenarios"
    out.mkdir(parents=True, exist_ok=True)
    missing = [t for t in MINIWOB if not (utterances.get(t) or "").strip()]
    if missing:
        sys.exit(f"oracle_site: no utterance for {', '.join(missing)}; see bench/miniwob-utterances.mjs")
    scenarios = []
    for app in APPS:
        for task, text in TODOMVC.items():
            scenarios.append((f"todomvc-{app}-{task}", text, f"/examples/{app}/index.html"))
    for task in MINIWOB:
        scenarios.append((f"miniwob-{task}", utterances[task].strip() + REWARD_CHECK,
                          f"/miniwob/{task}-seed{SEED}.html"))
    for sid, text, start in scenarios:
        tmp = out / f".{sid}.yaml.tmp"
        tmp.write_text(f"id: {json.dumps(sid)}\ntask: {json.dumps(text)}\nstart_url: {json.dumps(start)}\n")
        os.replace(tmp, out / f"{sid}.yaml")


def main():
    args = sys.argv[1:]
    if args[:1] == ["site"] and len(args) == 2:
        build_site(args[1], os.environ["TODOMVC_ROOT"], os.environ["MINIWOB_HTML"])
    elif args == ["miniwob-tasks"]:
        print("\n".join(MINIWOB))
    elif args[:1] == ["scenarios"] and len(args) == 3:
        write_scenarios(args[1], json.loads(Path(args[2]).read_text()))
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
