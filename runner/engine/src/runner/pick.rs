//! What the words of a selection pick, one language for every door: `windup run WORDS…` and
//! the Action's `scenarios` input. A word is a scenario id, a glob over ids (`checkout-*`) or a
//! tag (`@smoke`); each picks what it matches, in the order the words come; no word picks the
//! whole suite.

use crate::project::ScenarioFile;

/// A word that picks nothing, or is not a glob: what is wrong and how to fix it. The door names
/// where the word came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unpicked {
    /// The word as given.
    pub word: String,
    /// What is wrong with it.
    pub problem: String,
    /// What to write instead.
    pub fix: String,
}

/// The scenarios of `all` that `words` pick, each once, in the order the words pick them (a
/// glob's or a tag's matches in the suite's order). An id or a glob that matches nothing is an
/// [`Unpicked`]; a tag that does is not (a tag may be on no scenario yet, and a filter that
/// leaves nothing is not an error).
pub fn pick<'a>(
    all: &'a [ScenarioFile],
    words: &[String],
) -> Result<Vec<&'a ScenarioFile>, Vec<Unpicked>> {
    if words.is_empty() {
        return Ok(all.iter().collect());
    }
    let ids: Vec<&str> = all.iter().map(|s| s.scenario.id.as_str()).collect();
    let mut picked: Vec<&ScenarioFile> = Vec::new();
    let mut bad = Vec::new();
    for word in words {
        let matches: Vec<&ScenarioFile> = match word.strip_prefix('@') {
            Some(tag) => all
                .iter()
                .filter(|s| s.scenario.tags.iter().any(|t| t == tag))
                .collect(),
            None => {
                let matcher = match globset::Glob::new(word) {
                    Ok(g) => g.compile_matcher(),
                    Err(e) => {
                        bad.push(Unpicked {
                            word: word.clone(),
                            problem: format!("`{word}` is not a glob: {e}"),
                            fix: "write scenario ids, globs such as `checkout-*`, or tags such as `@smoke`".into(),
                        });
                        continue;
                    }
                };
                let found: Vec<&ScenarioFile> = all
                    .iter()
                    .filter(|s| matcher.is_match(&s.scenario.id))
                    .collect();
                if found.is_empty() {
                    bad.push(Unpicked {
                        word: word.clone(),
                        problem: format!("no scenario `{word}`"),
                        fix: if ids.is_empty() {
                            "add a scenario file to e2e/scenarios/".into()
                        } else {
                            format!("use ids ({}), globs or @tags", ids.join(", "))
                        },
                    });
                }
                found
            }
        };
        for s in matches {
            if !picked.iter().any(|p| p.scenario.id == s.scenario.id) {
                picked.push(s);
            }
        }
    }
    if bad.is_empty() { Ok(picked) } else { Err(bad) }
}

#[cfg(test)]
mod tests {
    use super::*;
    use windup_model::Scenario;

    fn suite() -> Vec<ScenarioFile> {
        [
            ("checkout-card", vec!["smoke"]),
            ("checkout-paypal", vec![]),
            ("sign-in", vec!["smoke", "auth"]),
            ("sign-out", vec!["auth"]),
        ]
        .into_iter()
        .map(|(id, tags)| ScenarioFile {
            scenario: Scenario {
                id: id.into(),
                task: "t".into(),
                start_url: "/".into(),
                hints: Vec::new(),
                tags: tags.into_iter().map(String::from).collect(),
                timeout_ms: None,
                setup: false,
                needs: Vec::new(),
            },
            path: format!("e2e/scenarios/{id}.yaml").into(),
        })
        .collect()
    }

    fn ids(words: &[&str]) -> Result<Vec<String>, Vec<String>> {
        let all = suite();
        let words: Vec<String> = words.iter().map(|w| w.to_string()).collect();
        pick(&all, &words)
            .map(|p| p.iter().map(|s| s.scenario.id.clone()).collect())
            .map_err(|bad| bad.into_iter().map(|b| b.problem).collect())
    }

    #[test]
    fn ids_globs_and_tags_pick_in_the_order_given_each_once() {
        assert_eq!(ids(&[]).unwrap().len(), 4);
        assert_eq!(
            ids(&["sign-out", "sign-in"]).unwrap(),
            ["sign-out", "sign-in"]
        );
        assert_eq!(
            ids(&["checkout-*"]).unwrap(),
            ["checkout-card", "checkout-paypal"]
        );
        assert_eq!(
            ids(&["@smoke", "sign-*"]).unwrap(),
            ["checkout-card", "sign-in", "sign-out"]
        );
        assert_eq!(ids(&["@nightly"]).unwrap(), Vec::<String>::new());
    }

    #[test]
    fn a_word_that_picks_nothing_or_is_no_glob_is_named() {
        assert_eq!(
            ids(&["sign-in", "signin", "check[out"]).unwrap_err(),
            [
                "no scenario `signin`".to_string(),
                "`check[out` is not a glob: error parsing glob 'check[out': unclosed character class; missing ']'".to_string(),
            ]
        );
    }
}
