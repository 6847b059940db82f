//! Charts drawn on the server as inline SVG: no chart script, nothing for the CSP to allow.
//! Colours come from classes in `app.css`; every text is escaped here because templates insert
//! these strings unescaped.

use std::fmt::Write;

pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// One line of a pass-rate chart: per day index, passed and total.
pub struct Series {
    pub label: String,
    pub points: Vec<(usize, i64, i64)>,
}

const W: i64 = 640;
const H: i64 = 180;
const PAD: i64 = 30;

/// Pass rate (0–100 %) per day, one line per series, over `days` (oldest first).
pub fn pass_rate_chart(days: &[String], series: &[Series]) -> String {
    let mut s = String::new();
    let n = days.len().max(2) as i64;
    let x = |i: usize| PAD + (i as i64) * (W - 2 * PAD) / (n - 1);
    let y = |passed: i64, total: i64| PAD + (H - 2 * PAD) - (H - 2 * PAD) * passed / total.max(1);
    let _ = write!(
        s,
        r#"<svg class="chart" viewBox="0 0 {W} {}" role="img" aria-label="pass rate per day"><line class="axis" x1="{PAD}" y1="{}" x2="{}" y2="{}"/>"#,
        H + 20 * series.len() as i64,
        H - PAD,
        W - PAD,
        H - PAD
    );
    for (pct, label) in [(100, "100%"), (50, "50%"), (0, "0%")] {
        let yy = y(pct, 100);
        let _ = write!(
            s,
            r#"<line class="grid" x1="{PAD}" y1="{yy}" x2="{}" y2="{yy}"/><text class="tick" x="0" y="{}">{label}</text>"#,
            W - PAD,
            yy + 4
        );
    }
    if let (Some(first), Some(last)) = (days.first(), days.last()) {
        let _ = write!(
            s,
            r#"<text class="tick" x="{PAD}" y="{}">{}</text>"#,
            H - PAD + 16,
            escape(first)
        );
        let _ = write!(
            s,
            r#"<text class="tick end" x="{}" y="{}">{}</text>"#,
            W - PAD,
            H - PAD + 16,
            escape(last)
        );
    }
    let series_count = series.len();
    for (k, series) in series.iter().enumerate() {
        let class = k % 6;
        let points: Vec<String> = series
            .points
            .iter()
            .map(|&(i, p, t)| format!("{},{}", x(i), y(p, t)))
            .collect();
        let _ = write!(
            s,
            r#"<polyline class="line c{class}" points="{}"/>"#,
            points.join(" ")
        );
        // Each series' dots shifted by a few pixels, so two series at the same rate on the same
        // day both show.
        let dodge = (k as i64 - (series_count as i64 - 1) / 2) * 4;
        for &(i, p, t) in &series.points {
            let _ = write!(
                s,
                r#"<circle class="dot c{class}" cx="{}" cy="{}" r="3"><title>{} {}: {p}/{t} passed</title></circle>"#,
                x(i) + dodge,
                y(p, t),
                escape(&series.label),
                escape(days.get(i).map(String::as_str).unwrap_or(""))
            );
        }
        let ly = H + 20 * k as i64 + 4;
        let _ = write!(
            s,
            r#"<rect class="swatch c{class}" x="{PAD}" y="{}" width="12" height="12"/><text class="legend" x="{}" y="{}">{}</text>"#,
            ly - 10,
            PAD + 18,
            ly,
            escape(&series.label)
        );
    }
    s.push_str("</svg>");
    s
}

/// Bars of integer values with labels (e.g. micro-dollars per day), drawn to the largest.
pub fn bar_chart(bars: &[(String, i64, String)]) -> String {
    let mut s = String::new();
    let max = bars.iter().map(|b| b.1).max().unwrap_or(0).max(1);
    let row = 22;
    let _ = write!(
        s,
        r#"<svg class="chart" viewBox="0 0 {W} {}" role="img" aria-label="bar chart">"#,
        row * bars.len().max(1) as i64
    );
    for (k, (label, value, text)) in bars.iter().enumerate() {
        let yy = k as i64 * row;
        // In i128: a width times a value near i64::MAX (a stored total from before ingest
        // bounded costs) must not overflow.
        let width =
            i64::try_from(i128::from(W - 260) * i128::from((*value).max(0)) / i128::from(max))
                .unwrap_or(0);
        let _ = write!(
            s,
            r#"<text class="legend" x="0" y="{}">{}</text><rect class="bar" x="110" y="{}" width="{width}" height="14"/><text class="legend" x="{}" y="{}">{}</text>"#,
            yy + 14,
            escape(label),
            yy + 3,
            120 + width,
            yy + 14,
            escape(text)
        );
    }
    s.push_str("</svg>");
    s
}

/// One step of a scenario's timeline, in milliseconds from the scenario's start.
pub struct Step {
    pub label: String,
    pub started_ms: u64,
    pub wait_ms: u64,
    pub act_ms: u64,
    pub verify_ms: u64,
    pub failed: bool,
}

/// Per-action bars: waiting, acting and verifying, on one time axis.
pub fn timeline(steps: &[Step]) -> String {
    let total = steps
        .iter()
        .map(|s| {
            s.started_ms
                .saturating_add(s.wait_ms)
                .saturating_add(s.act_ms)
                .saturating_add(s.verify_ms)
        })
        .max()
        .unwrap_or(0)
        .max(1);
    let left: u64 = 220;
    let width: u64 = W as u64 - left - 10;
    let row = 20;
    // In u128, and never past the axis: step times come from an uploaded report.
    let scale = |ms: u64| {
        u64::try_from(u128::from(ms) * u128::from(width) / u128::from(total))
            .unwrap_or(width)
            .min(width)
    };
    let mut s = String::new();
    let _ = write!(
        s,
        r#"<svg class="chart timeline" viewBox="0 0 {W} {}" role="img" aria-label="action timeline">"#,
        row * steps.len().max(1) + 16
    );
    for (k, step) in steps.iter().enumerate() {
        let y = k * row;
        let class = if step.failed { "label failed" } else { "label" };
        let _ = write!(
            s,
            r#"<text class="{class}" x="0" y="{}">{}</text>"#,
            y + 13,
            escape(&truncate(&step.label, 34))
        );
        let mut x = left + scale(step.started_ms);
        for (part, ms) in [
            ("wait", step.wait_ms),
            ("act", step.act_ms),
            ("verify", step.verify_ms),
        ] {
            let w = scale(ms).max(1);
            let _ = write!(
                s,
                r#"<rect class="{part}" x="{x}" y="{}" width="{w}" height="12"><title>{}: {part} {ms} ms</title></rect>"#,
                y + 3,
                escape(&step.label)
            );
            x = x.saturating_add(w);
        }
    }
    let _ = write!(
        s,
        r#"<text class="tick" x="{left}" y="{}">0 ms</text><text class="tick end" x="{}" y="{}">{total} ms</text></svg>"#,
        row * steps.len().max(1) + 12,
        W - 10,
        row * steps.len().max(1) + 12
    );
    s
}

/// A small line of pass rates, one point per day with runs: `(day, passed, total)`.
pub fn sparkline(points: &[(String, i64, i64)]) -> String {
    let (w, h, pad) = (120i64, 24i64, 3i64);
    let n = points.len().max(2) as i64;
    let x = |i: usize| pad + (i as i64) * (w - 2 * pad) / (n - 1);
    let y = |p: i64, t: i64| pad + (h - 2 * pad) - (h - 2 * pad) * p / t.max(1);
    let mut s = String::new();
    let _ = write!(
        s,
        r#"<svg class="spark" viewBox="0 0 {w} {h}" width="{w}" height="{h}" role="img" aria-label="pass rate per day">"#
    );
    let line: Vec<String> = points
        .iter()
        .enumerate()
        .map(|(i, (_, p, t))| format!("{},{}", x(i), y(*p, *t)))
        .collect();
    let _ = write!(
        s,
        r#"<polyline class="line c0" points="{}"/>"#,
        line.join(" ")
    );
    for (i, (day, p, t)) in points.iter().enumerate() {
        let class = if p == t { "ok" } else { "bad" };
        let _ = write!(
            s,
            r#"<circle class="dot {class}" cx="{}" cy="{}" r="2"><title>{}: {p}/{t} passed</title></circle>"#,
            x(i),
            y(*p, *t),
            escape(day)
        );
    }
    s.push_str("</svg>");
    s
}

/// One run as a bar of the per-run pass-rate chart.
pub struct RunBar {
    pub label: String,
    pub url: String,
    pub passed: i64,
    pub total: i64,
}

/// Pass rate per run, oldest first: one bar each, side by side, so no run hides another.
pub fn run_bars(runs: &[RunBar]) -> String {
    let plot = H - 2 * PAD;
    let n = runs.len().max(1) as i64;
    let slot = ((W - 2 * PAD) / n).clamp(4, 40);
    let mut s = String::new();
    let _ = write!(
        s,
        r#"<svg class="chart" viewBox="0 0 {W} {H}" role="img" aria-label="pass rate per run"><line class="axis" x1="{PAD}" y1="{}" x2="{}" y2="{}"/>"#,
        H - PAD,
        W - PAD,
        H - PAD
    );
    for (pct, label) in [(100, "100%"), (50, "50%"), (0, "0%")] {
        let yy = PAD + plot - plot * pct / 100;
        let _ = write!(
            s,
            r#"<line class="grid" x1="{PAD}" y1="{yy}" x2="{}" y2="{yy}"/><text class="tick" x="0" y="{}">{label}</text>"#,
            W - PAD,
            yy + 4
        );
    }
    for (k, r) in runs.iter().enumerate() {
        // Never a zero-height bar: a run with every scenario failing still shows.
        let height = (plot * r.passed / r.total.max(1)).max(2);
        let class = if r.passed == r.total { "pass" } else { "fail" };
        let _ = write!(
            s,
            r#"<a href="{}"><rect class="runbar {class}" x="{}" y="{}" width="{}" height="{height}"><title>{}: {}/{} passed</title></rect></a>"#,
            escape(&r.url),
            PAD + k as i64 * slot + 1,
            PAD + plot - height,
            (slot - 2).max(2),
            escape(&r.label),
            r.passed,
            r.total
        );
    }
    let _ = write!(
        s,
        r#"<text class="tick" x="{PAD}" y="{}">older</text><text class="tick end" x="{}" y="{}">newer</text></svg>"#,
        H - PAD + 16,
        W - PAD,
        H - PAD + 16
    );
    s
}

/// The runs × scenarios grid: a row per scenario, a column per run (oldest first), each cell
/// the scenario's outcome in that run (`pass`, `fail`, `flaky`, `healed`, `skipped`; absent
/// when the run did not select it).
pub fn heat_map(
    scenarios: &[String],
    runs: &[(String, String)],
    cell: impl Fn(usize, usize) -> Option<&'static str>,
) -> String {
    let left = 180i64;
    let size = ((W - left - 10) / runs.len().max(1) as i64).clamp(6, 24);
    let row = 16i64;
    let height = row * scenarios.len().max(1) as i64 + 20;
    let mut s = String::new();
    let _ = write!(
        s,
        r#"<svg class="chart heat" viewBox="0 0 {W} {height}" role="img" aria-label="outcome per run and scenario">"#
    );
    for (i, id) in scenarios.iter().enumerate() {
        let y = i as i64 * row;
        let _ = write!(
            s,
            r#"<text class="label" x="0" y="{}">{}</text>"#,
            y + 12,
            escape(&truncate(id, 28))
        );
        for (j, (run_id, url)) in runs.iter().enumerate() {
            let Some(class) = cell(i, j) else {
                continue;
            };
            let _ = write!(
                s,
                r#"<a href="{}"><rect class="cell {class}" x="{}" y="{}" width="{}" height="{}"><title>{} in {}: {class}</title></rect></a>"#,
                escape(url),
                left + j as i64 * size,
                y + 2,
                size - 2,
                row - 3,
                escape(id),
                escape(run_id)
            );
        }
    }
    let _ = write!(
        s,
        r#"<text class="tick" x="{left}" y="{}">older</text><text class="tick end" x="{}" y="{}">newer</text></svg>"#,
        height - 4,
        left + runs.len() as i64 * size,
        height - 4
    );
    s
}

fn truncate(s: &str, n: usize) -> String {
    if s.chars().count() <= n {
        s.to_string()
    } else {
        let mut t: String = s.chars().take(n - 1).collect();
        t.push('…');
        t
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_are_escaped_and_points_scaled() {
        let days = vec!["2026-11-01".to_string(), "2026-11-02".to_string()];
        let svg = pass_rate_chart(
            &days,
            &[Series {
                label: "<script>x</script>".into(),
                points: vec![(0, 1, 2), (1, 2, 2)],
            }],
        );
        assert!(!svg.contains("<script>"));
        assert!(svg.contains("&lt;script&gt;"));
        // Half passed sits in the middle of the plot area; all passed at its top.
        assert!(svg.contains(&format!(
            "points=\"{},{} {},{}\"",
            PAD,
            PAD + (H - 2 * PAD) / 2,
            W - PAD,
            PAD
        )));
    }

    #[test]
    fn timeline_scales_to_the_longest_step() {
        let svg = timeline(&[Step {
            label: "click".into(),
            started_ms: 0,
            wait_ms: 50,
            act_ms: 25,
            verify_ms: 25,
            failed: false,
        }]);
        assert!(svg.contains("100 ms"));
        assert!(svg.contains(r#"class="wait" x="220""#));
    }
}
