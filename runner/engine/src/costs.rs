//! Prices and spend. A dated per-model price table ships with Windup (`prices.toml`); a project
//! overrides it in `windup.toml` (`[prices."MODEL"]`). Money is integer micro-dollars
//! (1 USD = 1 000 000) everywhere: prices are micro-dollars per million tokens, a cost is rounded
//! up to the next whole micro-dollar so it is never under-reported.

use std::collections::BTreeMap;
use std::sync::LazyLock;

use serde::{Deserialize, Deserializer, Serialize};
use time::Date;
use time::macros::{date, format_description};
use windup_model::{InputError, LedgerRecord, TokenUsage};

use crate::project::Layout;

const SHIPPED: &str = include_str!("prices.toml");

const TOKENS_PER_MTOK: u128 = 1_000_000;

/// The `since` of an override that gives none: it then applies to every date. This is what the
/// ledger records as the price date of such a call.
pub const ALWAYS: Date = date!(1970 - 01 - 01);

/// One model's prices from a date on, in micro-dollars per million tokens.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DatedPrice {
    /// The first day this price applies (UTC); it holds until a later entry's `since`.
    pub since: Date,
    /// Prompt tokens not served from the provider's cache.
    pub input_micro_usd_per_mtok: u64,
    /// Generated tokens.
    pub output_micro_usd_per_mtok: u64,
    /// Prompt tokens read from the provider's cache.
    pub cached_input_micro_usd_per_mtok: u64,
}

impl DatedPrice {
    /// What `usage` costs at this price, rounded up to a whole micro-dollar. Cached tokens are
    /// part of `usage.input` and billed at the cached rate instead of the input rate.
    pub fn cost_micro_usd(&self, usage: TokenUsage) -> u64 {
        let cached = usage.cached.min(usage.input);
        let fresh = usage.input - cached;
        micro_usd(&[
            (fresh, self.input_micro_usd_per_mtok),
            (cached, self.cached_input_micro_usd_per_mtok),
            (usage.output, self.output_micro_usd_per_mtok),
        ])
    }
}

/// The most a call can cost: the whole prompt at the uncached rate and every output token it
/// may generate. The budget gate checks it before each call.
pub fn worst_case_micro_usd(price: &DatedPrice, prompt_tokens: u64, max_output_tokens: u64) -> u64 {
    micro_usd(&[
        (prompt_tokens, price.input_micro_usd_per_mtok),
        (max_output_tokens, price.output_micro_usd_per_mtok),
    ])
}

/// Σ tokens × micro-dollars per Mtok, in whole micro-dollars, rounded up once at the end.
fn micro_usd(parts: &[(u64, u64)]) -> u64 {
    let scaled: u128 = parts
        .iter()
        .map(|&(tokens, price)| u128::from(tokens) * u128::from(price))
        .sum();
    u64::try_from(scaled.div_ceil(TOKENS_PER_MTOK)).unwrap_or(u64::MAX)
}

/// Per-model dated prices: the shipped list, then the project's overrides.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PriceTable {
    /// Each model's entries, oldest `since` first.
    models: BTreeMap<String, Vec<DatedPrice>>,
}

/// `[prices."MODEL"]` in windup.toml.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PriceOverride {
    /// Dollars per million prompt tokens; dollars because that is how providers publish
    /// prices (the table keeps micro-dollars).
    pub input_usd_per_mtok: f64,
    /// Dollars per million generated tokens.
    pub output_usd_per_mtok: f64,
    /// Default: the input price.
    #[serde(default)]
    pub cached_input_usd_per_mtok: Option<f64>,
    /// From when it applies (`2025-06-17`); default: every date.
    #[serde(default, deserialize_with = "toml_date_opt")]
    pub since: Option<Date>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ShippedFile {
    price: Vec<ShippedEntry>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ShippedEntry {
    model: String,
    #[serde(deserialize_with = "toml_date")]
    since: Date,
    input_usd_per_mtok: f64,
    output_usd_per_mtok: f64,
    #[serde(default)]
    cached_input_usd_per_mtok: Option<f64>,
}

impl PriceTable {
    /// The price list shipped with this windup.
    pub fn shipped() -> PriceTable {
        static SHIPPED_TABLE: LazyLock<PriceTable> = LazyLock::new(|| {
            PriceTable::from_toml("prices.toml", SHIPPED)
                .unwrap_or_else(|e| panic!("the shipped price list is invalid: {e}"))
        });
        SHIPPED_TABLE.clone()
    }

    /// A table in the shipped file's format.
    fn from_toml(file: &str, text: &str) -> Result<PriceTable, InputError> {
        let parsed: ShippedFile = toml::from_str(text).map_err(|e| {
            InputError::new(
                file,
                "(file)",
                e.message(),
                "fix the TOML at the line given",
            )
        })?;
        let mut table = PriceTable::default();
        for (i, e) in parsed.price.into_iter().enumerate() {
            let field = |name: &str| format!("price[{i}].{name}");
            let price = dated_price(
                file,
                &field,
                e.since,
                e.input_usd_per_mtok,
                e.output_usd_per_mtok,
                e.cached_input_usd_per_mtok,
            )?;
            let entries = table.models.entry(e.model.clone()).or_default();
            if entries.iter().any(|p| p.since == price.since) {
                return Err(InputError::new(
                    file,
                    field("since"),
                    format!("`{}` has two entries since {}", e.model, price.since),
                    "keep one entry per model and date",
                ));
            }
            entries.push(price);
            entries.sort_by_key(|p| p.since);
        }
        Ok(table)
    }

    /// This table with windup.toml's `[prices]` on top. An override with `since` wins from that
    /// date on (shipped entries before it still price older records); one without wins always.
    pub fn with_overrides(
        mut self,
        overrides: &BTreeMap<String, PriceOverride>,
    ) -> Result<PriceTable, InputError> {
        for (model, o) in overrides {
            let field = |name: &str| format!("prices.{model}.{name}");
            let since = o.since.unwrap_or(ALWAYS);
            let price = dated_price(
                Layout::CONFIG_FILE,
                &field,
                since,
                o.input_usd_per_mtok,
                o.output_usd_per_mtok,
                o.cached_input_usd_per_mtok,
            )?;
            let entries = self.models.entry(model.clone()).or_default();
            entries.retain(|p| p.since < since);
            entries.push(price);
        }
        Ok(self)
    }

    /// The price of `model` in force on `on`: the entry with the latest `since` ≤ `on`.
    /// The name matches exactly, or after dropping Gemini's `models/` prefix.
    pub fn price(&self, model: &str, on: Date) -> Option<DatedPrice> {
        let entries = self.models.get(model).or_else(|| {
            model
                .strip_prefix("models/")
                .and_then(|m| self.models.get(m))
        })?;
        entries.iter().rev().find(|p| p.since <= on).copied()
    }

    /// What `usage` of `model` cost on `on`, and the `since` of the price used; `None` when no
    /// price of the model is known for that date.
    pub fn cost(&self, model: &str, on: Date, usage: TokenUsage) -> Option<(u64, Date)> {
        self.price(model, on)
            .map(|p| (p.cost_micro_usd(usage), p.since))
    }

    /// The models priced, in name order.
    pub fn models(&self) -> impl Iterator<Item = &str> {
        self.models.keys().map(String::as_str)
    }
}

fn dated_price(
    file: &str,
    field: &dyn Fn(&str) -> String,
    since: Date,
    input: f64,
    output: f64,
    cached: Option<f64>,
) -> Result<DatedPrice, InputError> {
    let convert = |name: &str, usd: f64| {
        usd_to_micro(usd).ok_or_else(|| {
            InputError::new(
                file,
                field(name),
                format!("`{usd}` is not a price"),
                "give US dollars per million tokens as a number, zero or more, such as 0.30",
            )
        })
    };
    let input = convert("input_usd_per_mtok", input)?;
    Ok(DatedPrice {
        since,
        input_micro_usd_per_mtok: input,
        output_micro_usd_per_mtok: convert("output_usd_per_mtok", output)?,
        cached_input_micro_usd_per_mtok: match cached {
            Some(c) => convert("cached_input_usd_per_mtok", c)?,
            None => input,
        },
    })
}

/// Dollars to micro-dollars, to the nearest one; `None` for a negative, NaN or absurd number.
/// Goes through the float's shortest decimal form (`0.3`, not `0.299999…`), read digit by digit,
/// so a price written with six decimals or fewer converts exactly.
fn usd_to_micro(usd: f64) -> Option<u64> {
    if !usd.is_finite() || usd < 0.0 {
        return None;
    }
    // `Display` of an f64 never uses an exponent; `abs` turns -0.0 into 0.
    let text = usd.abs().to_string();
    let (whole, frac) = text.split_once('.').unwrap_or((&text, ""));
    let whole: u64 = whole.parse().ok()?;
    let mut digits = frac
        .bytes()
        .map(|b| u64::from(b - b'0'))
        .chain(std::iter::repeat(0));
    let mut micro = 0;
    for _ in 0..6 {
        micro = micro * 10 + digits.next()?;
    }
    let round_up = digits.next()? >= 5;
    whole
        .checked_mul(1_000_000)?
        .checked_add(micro + u64::from(round_up))
}

/// A TOML date (`since = 2025-06-17`) or the same as a string.
fn toml_date<'de, D: Deserializer<'de>>(d: D) -> Result<Date, D::Error> {
    let value = toml::Value::deserialize(d)?;
    let text = match &value {
        toml::Value::Datetime(dt) if dt.time.is_none() && dt.offset.is_none() => dt.to_string(),
        toml::Value::String(s) => s.clone(),
        _ => String::new(),
    };
    Date::parse(&text, format_description!("[year]-[month]-[day]")).map_err(|_| {
        serde::de::Error::custom(format!(
            "`{value}` is not a date: write it as YYYY-MM-DD, such as 2025-06-17"
        ))
    })
}

fn toml_date_opt<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Date>, D::Error> {
    toml_date(d).map(Some)
}

/// How `totals` groups records.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum GroupBy {
    /// The model called, as the ledger records it.
    Model,
    /// The configured provider's name, as in `[providers.NAME]`.
    Provider,
    /// The scenario id.
    Scenario,
    /// The UTC day a scenario started.
    Day,
}

impl GroupBy {
    /// Every grouping, in the order `windup costs` prints them when none is chosen.
    pub const ALL: [GroupBy; 4] = [
        GroupBy::Model,
        GroupBy::Provider,
        GroupBy::Scenario,
        GroupBy::Day,
    ];

    /// The grouping's name, as tables and JSON output head it.
    pub fn as_str(self) -> &'static str {
        match self {
            GroupBy::Model => "model",
            GroupBy::Provider => "provider",
            GroupBy::Scenario => "scenario",
            GroupBy::Day => "day",
        }
    }
}

/// The group of records that made no LLM call, when grouping by model or provider. One word,
/// so the text tables still split on whitespace.
pub const NO_CALL: &str = "(none)";

/// The spend of one group of ledger records.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct CostRow {
    /// The group: a model, provider, scenario id or `YYYY-MM-DD` day; [`NO_CALL`] for records
    /// without one, `total` for [`grand_total`].
    pub key: String,
    /// Ledger records: one per scenario per run.
    pub runs: u64,
    /// LLM calls, of every purpose.
    pub calls: u64,
    /// Prompt tokens billed, cached ones included.
    pub input_tokens: u64,
    /// Generated tokens billed.
    pub output_tokens: u64,
    /// The part of `input_tokens` served from the provider's cache.
    pub cached_tokens: u64,
    /// What the group cost, in micro-dollars: as recorded, or recomputed when repriced.
    pub cost_micro_usd: u64,
    /// Records that called a model whose price is unknown: they count at their recorded cost
    /// (0 when it was unknown at run time too).
    pub unpriced: u64,
}

impl CostRow {
    fn add(&mut self, record: &LedgerRecord, reprice: Option<&PriceTable>) {
        let (cost, unpriced) = record_cost(record, reprice);
        self.runs += 1;
        self.calls += u64::from(record.calls.total());
        self.input_tokens += record.tokens.input;
        self.output_tokens += record.tokens.output;
        self.cached_tokens += record.tokens.cached;
        self.cost_micro_usd = self.cost_micro_usd.saturating_add(cost);
        self.unpriced += u64::from(unpriced);
    }
}

/// A record's cost, and whether it used a model with no known price. With `reprice`, the cost
/// is recomputed at the prices in force on the record's day; a record with no model costs 0.
fn record_cost(record: &LedgerRecord, reprice: Option<&PriceTable>) -> (u64, bool) {
    let Some(model) = &record.model else {
        return (
            if reprice.is_some() {
                0
            } else {
                record.cost_micro_usd
            },
            false,
        );
    };
    let called = record.calls.total() > 0 || record.tokens != TokenUsage::default();
    match reprice {
        Some(table) => match table.cost(model, record.day(), record.tokens) {
            Some((cost, _)) => (cost, false),
            None => (record.cost_micro_usd, called),
        },
        None => (
            record.cost_micro_usd,
            called && record.price_table_date.is_none(),
        ),
    }
}

fn selected(records: &[LedgerRecord], since: Option<Date>) -> impl Iterator<Item = &LedgerRecord> {
    records
        .iter()
        .filter(move |r| since.is_none_or(|s| r.day() >= s))
}

/// Spend per group, in key order (days in date order), of the records from `since` on (by UTC
/// day). With `reprice`, costs are recomputed rather than taken from the ledger.
pub fn totals(
    records: &[LedgerRecord],
    by: GroupBy,
    since: Option<Date>,
    reprice: Option<&PriceTable>,
) -> Vec<CostRow> {
    let mut groups: BTreeMap<String, CostRow> = BTreeMap::new();
    for record in selected(records, since) {
        let key = match by {
            GroupBy::Model => record.model.clone(),
            GroupBy::Provider => record.provider.clone(),
            GroupBy::Scenario => Some(record.scenario_id.clone()),
            GroupBy::Day => Some(record.day().to_string()),
        }
        .unwrap_or_else(|| NO_CALL.to_string());
        groups
            .entry(key.clone())
            .or_insert_with(|| CostRow {
                key,
                ..CostRow::default()
            })
            .add(record, reprice);
    }
    groups.into_values().collect()
}

/// The spend of all the records from `since` on, keyed `total`.
pub fn grand_total(
    records: &[LedgerRecord],
    since: Option<Date>,
    reprice: Option<&PriceTable>,
) -> CostRow {
    let mut row = CostRow {
        key: "total".into(),
        ..CostRow::default()
    };
    for record in selected(records, since) {
        row.add(record, reprice);
    }
    row
}

#[cfg(test)]
mod tests {
    use super::*;
    use time::macros::datetime;
    use windup_model::{CacheOutcome, LEDGER_VERSION, LlmCalls, PhaseTimings, ScenarioStatus};

    fn usage(input: u64, output: u64, cached: u64) -> TokenUsage {
        TokenUsage {
            input,
            output,
            cached,
        }
    }

    fn over(input: f64, output: f64, cached: Option<f64>, since: Option<Date>) -> PriceOverride {
        PriceOverride {
            input_usd_per_mtok: input,
            output_usd_per_mtok: output,
            cached_input_usd_per_mtok: cached,
            since,
        }
    }

    const CHANGE: &str = r#"
[[price]]
model = "m"
since = 2025-01-01
input_usd_per_mtok = 1.00
output_usd_per_mtok = 4.00

[[price]]
model = "m"
since = "2025-06-01"
input_usd_per_mtok = 0.5
output_usd_per_mtok = 2
cached_input_usd_per_mtok = 0.05
"#;

    #[test]
    fn the_shipped_list_parses_and_prices_the_default_models() {
        let table = PriceTable::shipped();
        let today = date!(2026 - 11 - 30);
        for model in [
            "gemini-2.5-flash",
            "gemini-2.5-flash-lite",
            "gemini-2.5-pro",
            "gemini-3.1-flash-lite",
            "gpt-4.1",
            "gpt-4.1-mini",
            "gpt-4.1-nano",
            "gpt-4o-mini",
            "gpt-5-mini",
            "gpt-5-nano",
        ] {
            assert!(table.price(model, today).is_some(), "{model} has no price");
        }
        let flash = table.price("gemini-2.5-flash", today).unwrap();
        assert_eq!(
            flash,
            DatedPrice {
                since: date!(2025 - 06 - 17),
                input_micro_usd_per_mtok: 300_000,
                output_micro_usd_per_mtok: 2_500_000,
                cached_input_micro_usd_per_mtok: 30_000,
            }
        );
        // Before a model's first entry there is no price.
        assert_eq!(table.price("gemini-2.5-flash", date!(2025 - 06 - 16)), None);
    }

    #[test]
    fn the_entry_in_force_is_the_latest_since_on_or_before_the_day() {
        let table = PriceTable::from_toml("t.toml", CHANGE).unwrap();
        let at = |d| table.price("m", d).map(|p| p.input_micro_usd_per_mtok);
        assert_eq!(at(date!(2024 - 12 - 31)), None);
        assert_eq!(at(date!(2025 - 01 - 01)), Some(1_000_000));
        assert_eq!(at(date!(2025 - 05 - 31)), Some(1_000_000));
        assert_eq!(at(date!(2025 - 06 - 01)), Some(500_000));
        assert_eq!(at(date!(2030 - 01 - 01)), Some(500_000));
        // No cached price given: cached tokens cost the input price.
        let old = table.price("m", date!(2025 - 02 - 01)).unwrap();
        assert_eq!(old.cached_input_micro_usd_per_mtok, 1_000_000);
        let u = usage(1_000_000, 1_000_000, 0);
        assert_eq!(
            table.cost("m", date!(2025 - 05 - 31), u),
            Some((5_000_000, date!(2025 - 01 - 01)))
        );
        assert_eq!(
            table.cost("m", date!(2025 - 06 - 01), u),
            Some((2_500_000, date!(2025 - 06 - 01)))
        );
    }

    #[test]
    fn names_match_exactly_or_without_the_models_prefix() {
        let table = PriceTable::shipped();
        let on = date!(2026 - 01 - 01);
        assert!(table.price("models/gemini-2.5-flash", on).is_some());
        assert_eq!(table.price("gemini-2.5-flash-001", on), None);
        assert_eq!(table.price("GEMINI-2.5-FLASH", on), None);
        assert_eq!(table.price("gpt-4.1-mini-2025-04-14", on), None);
    }

    #[test]
    fn cached_tokens_are_billed_at_the_cached_rate() {
        let price = DatedPrice {
            since: ALWAYS,
            input_micro_usd_per_mtok: 300_000,
            output_micro_usd_per_mtok: 2_500_000,
            cached_input_micro_usd_per_mtok: 30_000,
        };
        // 1M prompt tokens of which 600k cached: 400k × 0.30 + 600k × 0.03 = 0.12 + 0.018.
        assert_eq!(price.cost_micro_usd(usage(1_000_000, 0, 600_000)), 138_000);
        // All fresh: 0.30.
        assert_eq!(price.cost_micro_usd(usage(1_000_000, 0, 0)), 300_000);
        // A provider reporting more cached than input tokens never makes the cost negative.
        assert_eq!(price.cost_micro_usd(usage(10, 0, 50)), 1);
        assert_eq!(price.cost_micro_usd(usage(0, 1_000_000, 0)), 2_500_000);
    }

    #[test]
    fn costs_round_up_to_whole_micro_dollars() {
        let price = DatedPrice {
            since: ALWAYS,
            input_micro_usd_per_mtok: 100_000,
            output_micro_usd_per_mtok: 400_000,
            cached_input_micro_usd_per_mtok: 10_000,
        };
        // One input token at $0.10/Mtok is 0.1 micro-dollar: billed as 1.
        assert_eq!(price.cost_micro_usd(usage(1, 0, 0)), 1);
        // 10 input tokens = exactly 1 micro-dollar: no rounding.
        assert_eq!(price.cost_micro_usd(usage(10, 0, 0)), 1);
        // 11 = 1.1 → 2.
        assert_eq!(price.cost_micro_usd(usage(11, 0, 0)), 2);
        // Fractions add up before rounding: 5 × 0.1 + 1 × 0.4 = 0.9 → 1, not 1 + 1.
        assert_eq!(price.cost_micro_usd(usage(5, 1, 0)), 1);
        assert_eq!(price.cost_micro_usd(TokenUsage::default()), 0);
        // Huge counts do not overflow.
        assert!(price.cost_micro_usd(usage(u64::MAX, u64::MAX, 0)) > 0);
    }

    #[test]
    fn worst_case_is_the_whole_prompt_uncached_plus_every_output_token() {
        let price = PriceTable::shipped()
            .price("gemini-2.5-flash", date!(2026 - 01 - 01))
            .unwrap();
        // 20k × 0.30 + 8192 × 2.50 = 6000 + 20480 micro-dollars.
        assert_eq!(worst_case_micro_usd(&price, 20_000, 8_192), 26_480);
        assert_eq!(worst_case_micro_usd(&price, 1, 0), 1);
        assert!(
            worst_case_micro_usd(&price, 20_000, 8_192)
                >= price.cost_micro_usd(usage(20_000, 8_192, 5_000))
        );
    }

    #[test]
    fn overrides_win_from_their_date_on_or_always() {
        let shipped = PriceTable::from_toml("t.toml", CHANGE).unwrap();
        let mut o = BTreeMap::new();
        o.insert(
            "m".to_string(),
            over(9.0, 9.0, None, Some(date!(2025 - 03 - 01))),
        );
        o.insert("new-model".to_string(), over(0.2, 0.8, Some(0.02), None));
        let table = shipped.with_overrides(&o).unwrap();
        let input = |m, d| table.price(m, d).map(|p| p.input_micro_usd_per_mtok);
        assert_eq!(input("m", date!(2025 - 02 - 28)), Some(1_000_000));
        assert_eq!(input("m", date!(2025 - 03 - 01)), Some(9_000_000));
        // The shipped change of 2025-06-01 no longer applies: the override wins from March on.
        assert_eq!(input("m", date!(2025 - 07 - 01)), Some(9_000_000));
        // Without `since`, from the beginning of time.
        let p = table.price("new-model", date!(1999 - 01 - 01)).unwrap();
        assert_eq!(p.since, ALWAYS);
        assert_eq!(p.cached_input_micro_usd_per_mtok, 20_000);

        let mut always = BTreeMap::new();
        always.insert("m".to_string(), over(3.0, 3.0, None, None));
        let table = PriceTable::from_toml("t.toml", CHANGE)
            .unwrap()
            .with_overrides(&always)
            .unwrap();
        assert_eq!(
            table
                .price("m", date!(2025 - 07 - 01))
                .unwrap()
                .input_micro_usd_per_mtok,
            3_000_000
        );
    }

    #[test]
    fn bad_override_prices_name_the_field() {
        for (bad, field) in [
            (over(-0.1, 1.0, None, None), "prices.x-1.input_usd_per_mtok"),
            (
                over(f64::NAN, 1.0, None, None),
                "prices.x-1.input_usd_per_mtok",
            ),
            (
                over(1.0, f64::INFINITY, None, None),
                "prices.x-1.output_usd_per_mtok",
            ),
            (
                over(1.0, 1.0, Some(-1.0), None),
                "prices.x-1.cached_input_usd_per_mtok",
            ),
        ] {
            let mut o = BTreeMap::new();
            o.insert("x-1".to_string(), bad);
            let err = PriceTable::shipped().with_overrides(&o).unwrap_err();
            assert_eq!(err.file, "windup.toml");
            assert_eq!(err.field, field);
            assert!(err.fix.contains("per million tokens"), "{err}");
        }
    }

    #[test]
    fn prices_convert_to_the_nearest_micro_dollar_exactly() {
        assert_eq!(usd_to_micro(0.3), Some(300_000));
        assert_eq!(usd_to_micro(0.1 + 0.2), Some(300_000)); // 0.30000000000000004
        assert_eq!(usd_to_micro(2.5), Some(2_500_000));
        assert_eq!(usd_to_micro(0.0000005), Some(1));
        assert_eq!(usd_to_micro(0.0000004), Some(0));
        assert_eq!(usd_to_micro(1234.567891), Some(1_234_567_891));
        assert_eq!(usd_to_micro(0.0), Some(0));
        assert_eq!(usd_to_micro(-0.0), Some(0));
        assert_eq!(usd_to_micro(-1.0), None);
        assert_eq!(usd_to_micro(1e300), None);
    }

    #[test]
    fn override_dates_parse_from_toml_dates_and_strings() {
        #[derive(Deserialize)]
        struct F {
            prices: BTreeMap<String, PriceOverride>,
        }
        let f: F = toml::from_str(
            "[prices.a]\ninput_usd_per_mtok = 1\noutput_usd_per_mtok = 2\nsince = 2025-06-17\n\
             [prices.\"b\"]\ninput_usd_per_mtok = 1\noutput_usd_per_mtok = 2\nsince = \"2025-06-18\"\n",
        )
        .unwrap();
        assert_eq!(f.prices["a"].since, Some(date!(2025 - 06 - 17)));
        assert_eq!(f.prices["b"].since, Some(date!(2025 - 06 - 18)));
        assert_eq!(f.prices["a"].input_usd_per_mtok, 1.0);
        for bad in [
            "since = 2025-06-17T10:00:00",
            "since = \"June\"",
            "sinse = 2025-06-17",
        ] {
            let text =
                format!("[prices.a]\ninput_usd_per_mtok = 1\noutput_usd_per_mtok = 2\n{bad}\n");
            assert!(toml::from_str::<F>(&text).is_err(), "{bad}");
        }
    }

    fn rec(
        day: u8,
        scenario: &str,
        model: Option<(&str, &str)>,
        tokens: TokenUsage,
        cost: u64,
    ) -> LedgerRecord {
        let started = datetime!(2025-07-01 12:00 UTC) + time::Duration::days(i64::from(day) - 1);
        LedgerRecord {
            ledger_version: LEDGER_VERSION.into(),
            run_id: format!("run-{day}"),
            scenario_id: scenario.into(),
            started_at: started,
            finished_at: started + time::Duration::seconds(5),
            status: ScenarioStatus::Passed,
            failure_class: None,
            cache: if model.is_some() {
                CacheOutcome::Miss
            } else {
                CacheOutcome::Hit
            },
            provider: model.map(|(p, _)| p.to_string()),
            model: model.map(|(_, m)| m.to_string()),
            calls: LlmCalls {
                planning: u32::from(model.is_some()),
                ..LlmCalls::default()
            },
            tokens,
            cost_micro_usd: cost,
            price_table_date: model.map(|_| date!(2025 - 06 - 17)),
            timings: PhaseTimings::default(),
            git_commit: None,
            git_branch: None,
        }
    }

    fn ledger() -> Vec<LedgerRecord> {
        let flash = Some(("gemini", "gemini-2.5-flash"));
        let mini = Some(("openai", "gpt-4.1-mini"));
        vec![
            rec(1, "sign-in", flash, usage(100_000, 10_000, 0), 55_000),
            rec(1, "todos", None, TokenUsage::default(), 0),
            rec(2, "todos", mini, usage(200_000, 20_000, 100_000), 82_000),
            rec(2, "sign-in", None, TokenUsage::default(), 0),
            rec(2, "sign-in", flash, usage(10, 0, 0), 3),
        ]
    }

    fn keyed(rows: &[CostRow]) -> Vec<(&str, u64, u64)> {
        rows.iter()
            .map(|r| (r.key.as_str(), r.runs, r.cost_micro_usd))
            .collect()
    }

    #[test]
    fn totals_group_by_each_key_in_key_order() {
        let l = ledger();
        assert_eq!(
            keyed(&totals(&l, GroupBy::Model, None, None)),
            [
                ("(none)", 2, 0),
                ("gemini-2.5-flash", 2, 55_003),
                ("gpt-4.1-mini", 1, 82_000)
            ]
        );
        assert_eq!(
            keyed(&totals(&l, GroupBy::Provider, None, None)),
            [
                ("(none)", 2, 0),
                ("gemini", 2, 55_003),
                ("openai", 1, 82_000)
            ]
        );
        assert_eq!(
            keyed(&totals(&l, GroupBy::Scenario, None, None)),
            [("sign-in", 3, 55_003), ("todos", 2, 82_000)]
        );
        assert_eq!(
            keyed(&totals(&l, GroupBy::Day, None, None)),
            [("2025-07-01", 2, 55_000), ("2025-07-02", 3, 82_003)]
        );
        let total = grand_total(&l, None, None);
        assert_eq!((total.runs, total.calls), (5, 3));
        assert_eq!(
            (total.input_tokens, total.output_tokens, total.cached_tokens),
            (300_010, 30_000, 100_000)
        );
        assert_eq!(total.cost_micro_usd, 137_003);
        assert_eq!(total.unpriced, 0);
    }

    #[test]
    fn since_keeps_the_records_from_that_utc_day_on() {
        let l = ledger();
        let since = Some(date!(2025 - 07 - 02));
        assert_eq!(grand_total(&l, since, None).runs, 3);
        assert_eq!(
            keyed(&totals(&l, GroupBy::Day, since, None)),
            [("2025-07-02", 3, 82_003)]
        );
        assert_eq!(grand_total(&l, Some(date!(2025 - 07 - 03)), None).runs, 0);
    }

    #[test]
    fn reprice_uses_the_prices_in_force_on_each_records_day() {
        let mut l = ledger();
        // Recorded with a wrong price: repricing fixes it from the table.
        l[0].cost_micro_usd = 1;
        let shipped = PriceTable::shipped();
        assert_eq!(
            grand_total(&l, None, Some(&shipped)).cost_micro_usd,
            137_003
        );

        // gemini-2.5-flash doubles from 2025-07-02: only the second day's flash record changes.
        let mut o = BTreeMap::new();
        o.insert(
            "gemini-2.5-flash".to_string(),
            over(0.6, 5.0, None, Some(date!(2025 - 07 - 02))),
        );
        let table = shipped.with_overrides(&o).unwrap();
        assert_eq!(
            keyed(&totals(&l, GroupBy::Day, None, Some(&table))),
            [("2025-07-01", 2, 55_000), ("2025-07-02", 3, 82_006)]
        );

        // A model with no known price keeps its recorded cost and is flagged.
        l[2].model = Some("gpt-9".into());
        let total = grand_total(&l, None, Some(&table));
        assert_eq!((total.cost_micro_usd, total.unpriced), (137_006, 1));
    }
}
