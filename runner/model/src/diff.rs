//! Step diffs of two plans, by each step's one-line summary ([`Action::summary`]): the rows a
//! page shows (`diff_steps`, the dashboard's stale-plan page) and the added, removed and changed
//! steps a report lists ([`StepDiff`], a proposal's). One algorithm for both: the longest common
//! subsequence (plans are tens of steps, so its quadratic table is small).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::plan::Action;

/// How a row of a step diff reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RowKind {
    /// In both plans.
    Same,
    /// Only in the old plan.
    Removed,
    /// Only in the new plan.
    Added,
}

impl RowKind {
    /// `same`, `removed` or `added`.
    pub fn as_str(self) -> &'static str {
        match self {
            RowKind::Same => "same",
            RowKind::Removed => "removed",
            RowKind::Added => "added",
        }
    }
}

/// One row of a step diff: a step's text, and its place (from 0) in the plans that hold it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DiffRow {
    /// Where the step is.
    pub kind: RowKind,
    /// Its index in the old plan, unless added.
    pub old: Option<usize>,
    /// Its index in the new plan, unless removed.
    pub new: Option<usize>,
    /// The step's text.
    pub text: String,
}

/// The old steps against the new, in order; a changed step reads as a diff does, the old line
/// removed, then the new one added.
pub fn diff_steps(old: &[String], new: &[String]) -> Vec<DiffRow> {
    let (n, m) = (old.len(), new.len());
    let mut lcs = vec![vec![0usize; m + 1]; n + 1];
    for i in (0..n).rev() {
        for j in (0..m).rev() {
            lcs[i][j] = if old[i] == new[j] {
                lcs[i + 1][j + 1] + 1
            } else {
                lcs[i + 1][j].max(lcs[i][j + 1])
            };
        }
    }
    let (mut i, mut j) = (0, 0);
    let mut rows = Vec::new();
    let row = |kind, old: Option<usize>, new: Option<usize>, text: &String| DiffRow {
        kind,
        old,
        new,
        text: text.clone(),
    };
    while i < n || j < m {
        if i < n && j < m && old[i] == new[j] {
            rows.push(row(RowKind::Same, Some(i), Some(j), &old[i]));
            i += 1;
            j += 1;
        } else if i < n && (j == m || lcs[i + 1][j] >= lcs[i][j + 1]) {
            rows.push(row(RowKind::Removed, Some(i), None, &old[i]));
            i += 1;
        } else {
            rows.push(row(RowKind::Added, None, Some(j), &new[j]));
            j += 1;
        }
    }
    rows
}

/// What a new plan changes in an old one, step by step, each step as its one-line summary
/// (without its id: a re-plan numbers its steps afresh). Postconditions are not in a summary.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct StepDiff {
    /// Steps in the old plan.
    pub old_steps: u32,
    /// Steps in the new plan.
    pub new_steps: u32,
    /// Steps changed in place: removed steps directly followed by added ones, paired in order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub changed: Vec<ChangedStep>,
    /// Steps only in the old plan.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub removed: Vec<String>,
    /// Steps only in the new plan.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub added: Vec<String>,
}

/// A step changed in place.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ChangedStep {
    /// The old plan's step.
    pub from: String,
    /// The new plan's step in its place.
    pub to: String,
}

impl StepDiff {
    /// The steps `new` changes in `old`.
    pub fn between(old: &[Action], new: &[Action]) -> StepDiff {
        let lines = |a: &[Action]| a.iter().map(Action::summary).collect::<Vec<_>>();
        let mut diff = StepDiff {
            old_steps: old.len() as u32,
            new_steps: new.len() as u32,
            ..StepDiff::default()
        };
        let rows = diff_steps(&lines(old), &lines(new));
        let mut k = 0;
        while k < rows.len() {
            // A run of removed steps, then a run of added ones: changed pairwise, the rest as is.
            let removed: Vec<&DiffRow> = rows[k..]
                .iter()
                .take_while(|r| r.kind == RowKind::Removed)
                .collect();
            let added: Vec<&DiffRow> = rows[k + removed.len()..]
                .iter()
                .take_while(|r| r.kind == RowKind::Added)
                .collect();
            if removed.is_empty() && added.is_empty() {
                k += 1;
                continue;
            }
            k += removed.len() + added.len();
            let pairs = removed.len().min(added.len());
            for (r, a) in removed.iter().zip(&added) {
                diff.changed.push(ChangedStep {
                    from: r.text.clone(),
                    to: a.text.clone(),
                });
            }
            diff.removed
                .extend(removed[pairs..].iter().map(|r| r.text.clone()));
            diff.added
                .extend(added[pairs..].iter().map(|a| a.text.clone()));
        }
        diff
    }

    /// Whether the plans have the same steps.
    pub fn is_empty(&self) -> bool {
        self.changed.is_empty() && self.removed.is_empty() && self.added.is_empty()
    }

    /// The diff as lines for people: `~ old → new`, `- old`, `+ new`.
    pub fn lines(&self) -> Vec<String> {
        let mut out: Vec<String> = self
            .changed
            .iter()
            .map(|c| format!("~ {} \u{2192} {}", c.from, c.to))
            .collect();
        out.extend(self.removed.iter().map(|s| format!("- {s}")));
        out.extend(self.added.iter().map(|s| format!("+ {s}")));
        out
    }

    /// `4 steps → 12 steps: 1 changed, 8 added`.
    pub fn headline(&self) -> String {
        let mut parts = Vec::new();
        for (n, what) in [
            (self.changed.len(), "changed"),
            (self.removed.len(), "removed"),
            (self.added.len(), "added"),
        ] {
            if n > 0 {
                parts.push(format!("{n} {what}"));
            }
        }
        if parts.is_empty() {
            parts.push("the same steps".into());
        }
        format!(
            "{} \u{2192} {}: {}",
            steps(self.old_steps),
            steps(self.new_steps),
            parts.join(", ")
        )
    }
}

fn steps(n: u32) -> String {
    format!("{n} step{}", if n == 1 { "" } else { "s" })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(s: &[&str]) -> Vec<String> {
        s.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn a_changed_step_shows_as_removed_then_added() {
        let rows = diff_steps(
            &v(&["goto /", "click A", "fill x"]),
            &v(&["goto /", "click B", "fill x"]),
        );
        let kinds: Vec<_> = rows.iter().map(|r| (r.kind, r.text.as_str())).collect();
        assert_eq!(
            kinds,
            vec![
                (RowKind::Same, "goto /"),
                (RowKind::Removed, "click A"),
                (RowKind::Added, "click B"),
                (RowKind::Same, "fill x")
            ]
        );
        assert_eq!((rows[1].old, rows[1].new), (Some(1), None));
        assert_eq!((rows[2].old, rows[2].new), (None, Some(1)));
    }

    #[test]
    fn empty_old_plan_is_all_added() {
        let rows = diff_steps(&[], &v(&["a", "b"]));
        assert!(rows.iter().all(|r| r.kind == RowKind::Added));
        assert_eq!(rows.len(), 2);
    }

    fn actions(selectors: &[&str]) -> Vec<Action> {
        selectors
            .iter()
            .enumerate()
            .map(|(i, s)| {
                serde_json::from_value(serde_json::json!({
                    "id": format!("a{}", i + 1), "type": "click", "target": {"selector": s}
                }))
                .unwrap()
            })
            .collect()
    }

    #[test]
    fn replaced_steps_pair_as_changed_and_the_rest_are_added_or_removed() {
        let old = actions(&["#a", "#b", "#c"]);
        let new = actions(&["#a", "#x", "#y", "#c"]);
        let d = StepDiff::between(&old, &new);
        assert_eq!(
            d.changed,
            vec![ChangedStep {
                from: "click #b".into(),
                to: "click #x".into()
            }]
        );
        assert_eq!(
            (d.removed.len(), &d.added),
            (0, &vec!["click #y".to_string()])
        );
        assert_eq!(d.headline(), "3 steps \u{2192} 4 steps: 1 changed, 1 added");
        assert_eq!(
            d.lines(),
            vec!["~ click #b \u{2192} click #x", "+ click #y"]
        );
        let same = StepDiff::between(&old, &old);
        assert!(same.is_empty());
        let shorter = StepDiff::between(&old, &actions(&["#a"]));
        assert_eq!(shorter.removed, vec!["click #b", "click #c"]);
    }
}
