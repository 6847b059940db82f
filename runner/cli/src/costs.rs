//! `windup costs`: the run ledger's LLM spend, totalled by model, provider, scenario and day.
//! Money stays integer micro-dollars until it is printed.

use std::path::PathBuf;

use clap::{Args, ValueEnum};
use serde_json::{Map, Value, json};
use time::Date;
use time::macros::format_description;
use windup_engine::config::{Config, Overrides};
use windup_engine::costs::{CostRow, GroupBy, grand_total, totals};
use windup_engine::metrics;
use windup_model::money::usd_exact as usd;
use windup_model::{ExitCode, InputError, Problems};

#[derive(Args)]
pub(crate) struct CostsArgs {
    /// The project root (where windup.toml and e2e/ are).
    #[arg(long, default_value = ".")]
    root: PathBuf,
    /// Only records from this UTC day on (YYYY-MM-DD).
    #[arg(long, value_name = "YYYY-MM-DD")]
    since: Option<String>,
    /// Group by model, provider, scenario or day (repeatable; default: all four).
    #[arg(long, value_enum, value_delimiter = ',')]
    by: Vec<By>,
    /// Print one JSON object (money as integer micro-dollars).
    #[arg(long)]
    json: bool,
    /// Price every record again with the shipped price list and windup.toml's `[prices]`, at the
    /// prices in force on its day, instead of the cost recorded at run time.
    #[arg(long)]
    recompute: bool,
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum By {
    Model,
    Provider,
    Scenario,
    Day,
}

impl From<By> for GroupBy {
    fn from(by: By) -> GroupBy {
        match by {
            By::Model => GroupBy::Model,
            By::Provider => GroupBy::Provider,
            By::Scenario => GroupBy::Scenario,
            By::Day => GroupBy::Day,
        }
    }
}

pub(crate) fn run(args: &CostsArgs) -> ExitCode {
    match report(args) {
        Ok(text) => {
            print!("{text}");
            ExitCode::Success
        }
        Err(problems) => {
            super::print_problems(&problems);
            ExitCode::BadInput
        }
    }
}

fn report(args: &CostsArgs) -> Result<String, Problems> {
    let since = args.since.as_deref().map(parse_since).transpose()?;
    let prices = if args.recompute {
        Some(Config::load(&args.root, &Overrides::default())?.prices)
    } else {
        None
    };
    let records = metrics::read(&args.root)?;
    let mut groups: Vec<GroupBy> = Vec::new();
    for by in &args.by {
        let by = GroupBy::from(*by);
        if !groups.contains(&by) {
            groups.push(by);
        }
    }
    if groups.is_empty() {
        groups = GroupBy::ALL.to_vec();
    }
    let total = grand_total(&records, since, prices.as_ref());
    let tables: Vec<(GroupBy, Vec<CostRow>)> = groups
        .iter()
        .map(|by| (*by, totals(&records, *by, since, prices.as_ref())))
        .collect();
    Ok(if args.json {
        as_json(since, args.recompute, &total, &tables)
    } else if records.is_empty() {
        "no ledger records yet\n".to_string()
    } else if total.runs == 0 {
        format!(
            "no ledger records since {}\n",
            since.map(|d| d.to_string()).unwrap_or_default()
        )
    } else {
        as_text(args.recompute, &total, &tables)
    })
}

fn parse_since(raw: &str) -> Result<Date, InputError> {
    Date::parse(raw, format_description!("[year]-[month]-[day]")).map_err(|e| {
        InputError::new(
            "command line",
            "--since",
            format!("`{raw}` is not a date: {e}"),
            "write the day as YYYY-MM-DD, such as --since 2025-06-01",
        )
    })
}

fn as_text(recompute: bool, total: &CostRow, tables: &[(GroupBy, Vec<CostRow>)]) -> String {
    let mut out = String::new();
    for (by, rows) in tables {
        let mut cells = vec![
            [
                by.as_str(),
                "runs",
                "calls",
                "input",
                "output",
                "cached",
                "cost",
            ]
            .map(String::from),
        ];
        cells.extend(rows.iter().map(|r| {
            [
                r.key.clone(),
                r.runs.to_string(),
                r.calls.to_string(),
                r.input_tokens.to_string(),
                r.output_tokens.to_string(),
                r.cached_tokens.to_string(),
                usd(r.cost_micro_usd),
            ]
        }));
        out.push_str(&aligned(&cells));
        out.push('\n');
    }
    out.push_str(&format!(
        "total: {} runs, {} LLM calls, {} input / {} output / {} cached tokens, {}\n",
        total.runs,
        total.calls,
        total.input_tokens,
        total.output_tokens,
        total.cached_tokens,
        usd(total.cost_micro_usd)
    ));
    out.push_str(if recompute {
        "prices: recomputed with the shipped price list and windup.toml [prices]\n"
    } else {
        "prices: as recorded at run time (--recompute prices them again from the price list)\n"
    });
    if total.unpriced > 0 {
        out.push_str(&format!(
            "note: {} of these runs called a model with no known price and count at their recorded \
             cost; add [prices.\"MODEL\"] to windup.toml and pass --recompute\n",
            total.unpriced
        ));
    }
    out
}

/// Columns two spaces apart: the first left-aligned, numbers right-aligned.
fn aligned<const N: usize>(rows: &[[String; N]]) -> String {
    let mut widths = [0; N];
    for row in rows {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.chars().count());
        }
    }
    let mut out = String::new();
    for row in rows {
        let mut line = String::new();
        for (i, (cell, w)) in row.iter().zip(widths).enumerate() {
            if i == 0 {
                line.push_str(&format!("{cell:<w$}"));
            } else {
                line.push_str(&format!("  {cell:>w$}"));
            }
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

fn as_json(
    since: Option<Date>,
    recompute: bool,
    total: &CostRow,
    tables: &[(GroupBy, Vec<CostRow>)],
) -> String {
    let by: Map<String, Value> = tables
        .iter()
        .map(|(by, rows)| (by.as_str().to_string(), json!(rows)))
        .collect();
    let value = json!({
        "since": since.map(|d| d.to_string()),
        "prices": if recompute { "recomputed" } else { "recorded" },
        "total": total,
        "by": by,
    });
    let mut text = serde_json::to_string_pretty(&value).expect("serialises");
    text.push('\n');
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dollars_print_exactly_from_micro_dollars() {
        assert_eq!(usd(0), "$0.000000");
        assert_eq!(usd(2_500), "$0.002500");
        assert_eq!(usd(1_234_567_891), "$1234.567891");
        assert_eq!(usd(u64::MAX), "$18446744073709.551615");
    }
}
