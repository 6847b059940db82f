//! A step-by-step diff of two plans, by each step's one-line summary (longest common
//! subsequence: plans are tens of steps, so the quadratic table is small).

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DiffRow {
    /// `same`, `removed` (only in the old plan) or `added` (only in the new one).
    pub kind: &'static str,
    pub old_no: String,
    pub new_no: String,
    pub text: String,
}

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
    let row = |kind, o: Option<usize>, n: Option<usize>, text: &String| DiffRow {
        kind,
        old_no: o.map(|o| (o + 1).to_string()).unwrap_or_default(),
        new_no: n.map(|n| (n + 1).to_string()).unwrap_or_default(),
        text: text.clone(),
    };
    while i < n || j < m {
        if i < n && j < m && old[i] == new[j] {
            rows.push(row("same", Some(i), Some(j), &old[i]));
            i += 1;
            j += 1;
        } else if i < n && (j == m || lcs[i + 1][j] >= lcs[i][j + 1]) {
            // A changed step reads as a diff does: the old line, then the new one.
            rows.push(row("removed", Some(i), None, &old[i]));
            i += 1;
        } else {
            rows.push(row("added", None, Some(j), &new[j]));
            j += 1;
        }
    }
    rows
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
                ("same", "goto /"),
                ("removed", "click A"),
                ("added", "click B"),
                ("same", "fill x")
            ]
        );
        assert_eq!(rows[1].old_no, "2");
        assert_eq!(rows[2].new_no, "2");
    }

    #[test]
    fn empty_old_plan_is_all_added() {
        let rows = diff_steps(&[], &v(&["a", "b"]));
        assert!(rows.iter().all(|r| r.kind == "added"));
        assert_eq!(rows.len(), 2);
    }
}
