//! The steps recorded so far, as the agent may review them before saving (`steps`), and taking
//! back the last one (`undo`).

use super::state::{Drive, DriveError};

impl Drive {
    /// The flow as it would be saved now: its start page, then one line per step (its id,
    /// what it does with its selector, a credential by name only) with the facts picked as its
    /// proofs. Masked like everything the agent is shown.
    pub fn recorded(&self) -> String {
        let Some(start) = &self.start_url else {
            return "Nothing is recorded yet: browser_open a page of the app first.".into();
        };
        let mut text = format!("Start page: {start}\n");
        if self.steps.is_empty() {
            text.push_str("No step is recorded yet.\n");
        }
        for step in &self.steps {
            text.push_str(&format!("{} {}\n", step.action.id, step.action.summary()));
            for &i in &step.picked {
                if let Some(fact) = step.facts.get(i) {
                    text.push_str(&format!("  proven by: {}\n", fact.line()));
                }
            }
            if step.picked.is_empty() {
                text.push_str("  not proven yet (call expect after it)\n");
            }
        }
        self.log.write("steps", start, None);
        self.runner.secrets.redact(&text)
    }

    /// Takes back the last recorded step: it is no longer saved. The page is not rolled back;
    /// saving replays the flow from its start page in a fresh context, so the saved flow is
    /// what the steps left do.
    pub fn undo(&mut self) -> Result<String, DriveError> {
        let Some(step) = self.steps.pop() else {
            let why = "there is no recorded step to take back";
            self.log.write("undo", "-", Some(why));
            return Err(DriveError(format!(
                "{why} (fix: act on a ref first; browser_open with fresh true starts over)"
            )));
        };
        let line =
            self.runner
                .secrets
                .redact(&format!("{} {}", step.action.id, step.action.summary()));
        self.log.write("undo", &line, None);
        Ok(format!(
            "Took back {line}: it is no longer part of the flow. The page stays where it is; \
             saving replays the remaining {} step(s) from the start page in a fresh context.",
            self.steps.len()
        ))
    }

    /// How many lines the action log has had written in this session: a tool call that wrote
    /// none was refused before the drive logged it.
    pub fn log_lines(&self) -> u64 {
        self.log.lines()
    }

    /// Logs a call the drive refused before doing anything (a bad ref, a literal credential,
    /// no page open), so every call is in the log. `about` and `why` are masked here.
    pub fn log_refusal(&self, tool: &str, about: &str, why: &str) {
        let redact = |s: &str| self.runner.secrets.redact(s);
        self.log.write(tool, &redact(about), Some(&redact(why)));
    }
}
