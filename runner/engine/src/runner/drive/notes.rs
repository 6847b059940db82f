//! The agent's project memory: `record_fact` and `recall` over the site map's notes (see
//! `sitemap::Memory`). A note holding a credential's value is refused.

use super::state::{Drive, DriveError};
use crate::sitemap::{Memory, Recalled};

impl Drive {
    /// Records a note about the app; says where it is kept.
    pub fn record_fact(&mut self, text: &str) -> Result<String, DriveError> {
        if self.runner.secrets.reveals(text) {
            return Err(DriveError::new(
                "the note holds a credential's value, and credentials are never written down (fix: name the credential's ENV name instead)",
            ));
        }
        let today = time::OffsetDateTime::now_utc().date().to_string();
        let held = Memory::new(&self.runner.config.root)
            .record(text, &today)
            .map_err(|p| DriveError(p.to_string()))?;
        self.log.write("record_fact", &held, None);
        Ok(held)
    }

    /// The notes and site-map pages about `topic`.
    pub fn recall(&mut self, topic: &str) -> Result<Recalled, DriveError> {
        let recalled = Memory::new(&self.runner.config.root)
            .recall(topic)
            .map_err(|p| DriveError(p.to_string()))?;
        self.log.write("recall", topic, None);
        Ok(recalled)
    }
}
