//! `windup list`: the scenarios a selection picks (the words `run` takes, and `--tag`), each
//! with its tags, what the plan cache holds for it and how it ended last (the run ledger's
//! newest record). It only reads: no browser, no network.

use std::collections::BTreeMap;
use std::path::PathBuf;

use clap::Args;
use serde_json::{Value, json};
use windup_engine::cache::{Lookup, PlanCache};
use windup_engine::metrics;
use windup_engine::project::{Layout, display, load_scenarios};
use windup_engine::runner::pick;
use windup_model::{CacheEntry, ExitCode, InputError, LedgerRecord, Problems};

#[derive(Args)]
pub(crate) struct ListArgs {
    /// What to list: scenario ids, globs over ids (`'checkout-*'`) and tags (`@smoke`), as
    /// `windup run` takes them (all when none).
    words: Vec<String>,
    /// The project root (where e2e/ is).
    #[arg(long, default_value = ".")]
    root: PathBuf,
    /// Only scenarios carrying one of these tags (repeatable).
    #[arg(long = "tag", value_name = "TAG")]
    tags: Vec<String>,
    /// One JSON array of objects instead of the table.
    #[arg(long)]
    json: bool,
}

/// One scenario's line.
struct Row {
    id: String,
    tags: Vec<String>,
    plan: String,
    last: Option<LedgerRecord>,
}

pub(crate) fn run(args: &ListArgs) -> ExitCode {
    match rows(args) {
        Ok(rows) if args.json => {
            let list: Vec<Value> = rows.iter().map(Row::json).collect();
            println!("{}", Value::Array(list));
            ExitCode::Success
        }
        Ok(rows) => {
            print_table(&rows);
            ExitCode::Success
        }
        Err(problems) => {
            crate::print_problems(&problems);
            ExitCode::BadInput
        }
    }
}

fn rows(args: &ListArgs) -> Result<Vec<Row>, Problems> {
    let root = &args.root;
    let all = load_scenarios(root)?;
    let folder = display(root, &root.join(Layout::SCENARIOS_DIR));
    let picked = pick(&all, &args.words).map_err(|bad| {
        Problems(
            bad.into_iter()
                .map(|b| InputError::new(&folder, &b.word, b.problem, b.fix))
                .collect(),
        )
    })?;
    let mut last: BTreeMap<String, LedgerRecord> = BTreeMap::new();
    for record in metrics::read(root)? {
        // Oldest first: the newest of each scenario stays.
        last.insert(record.scenario_id.clone(), record);
    }
    let cache = PlanCache::new(root);
    let mut rows = Vec::new();
    for file in picked {
        let s = &file.scenario;
        if !args.tags.is_empty() && !s.tags.iter().any(|t| args.tags.contains(t)) {
            continue;
        }
        rows.push(Row {
            id: s.id.clone(),
            tags: s.tags.clone(),
            plan: plan_state(&cache.lookup(s)?),
            last: last.remove(&s.id),
        });
    }
    Ok(rows)
}

/// What the cache holds, in the words a run would act on.
fn plan_state(lookup: &Lookup) -> String {
    fn whose(entry: &CacheEntry) -> &'static str {
        if entry.protected() {
            "a person's"
        } else {
            "a model's"
        }
    }
    match lookup {
        Lookup::Hit(entry) => format!("cached, {}", whose(entry)),
        Lookup::Changed(entry) => format!(
            "{} plan for an earlier text: planned again on the next run",
            whose(entry)
        ),
        Lookup::Miss => "none: planned on the next run".into(),
    }
}

impl Row {
    fn last_line(&self) -> String {
        let Some(r) = &self.last else {
            return "never run".into();
        };
        let day = finished(r);
        match r.failure_class {
            Some(class) => format!("{} ({class}) {day}", r.status.as_str()),
            None => format!("{} {day}", r.status.as_str()),
        }
    }

    fn json(&self) -> Value {
        json!({
            "id": self.id,
            "tags": self.tags,
            "plan": self.plan,
            "last": self.last.as_ref().map(|r| json!({
                "run_id": r.run_id,
                "status": r.status.as_str(),
                "failure_class": r.failure_class.map(|c| c.as_str()),
                "finished_at": finished(r),
            })),
        })
    }
}

/// When the record's scenario finished, as RFC 3339.
fn finished(r: &LedgerRecord) -> String {
    r.finished_at
        .format(&time::format_description::well_known::Rfc3339)
        .unwrap_or_default()
}

fn print_table(rows: &[Row]) {
    if rows.is_empty() {
        println!("no scenario matches");
        return;
    }
    let tags: Vec<String> = rows
        .iter()
        .map(|r| {
            if r.tags.is_empty() {
                "-".into()
            } else {
                r.tags.join(",")
            }
        })
        .collect();
    let id_w = rows.iter().map(|r| r.id.len()).max().unwrap_or(0).max(2);
    let tag_w = tags.iter().map(String::len).max().unwrap_or(0).max(4);
    let plan_w = rows.iter().map(|r| r.plan.len()).max().unwrap_or(0).max(4);
    println!(
        "{:id_w$}  {:tag_w$}  {:plan_w$}  LAST RUN",
        "ID", "TAGS", "PLAN"
    );
    for (r, t) in rows.iter().zip(&tags) {
        println!(
            "{:id_w$}  {t:tag_w$}  {:plan_w$}  {}",
            r.id,
            r.plan,
            r.last_line()
        );
    }
}
