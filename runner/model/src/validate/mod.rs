//! Reading the on-disk formats: JSON Schema first, then the types, then the semantic rules.
//! Every problem names the file, the field and the fix.

mod error;
mod json_schema;
mod limits;
mod read;
mod rules;

pub use error::{Checked, InputError, Problems};
pub use json_schema::{field_name, schema_problems};
pub use limits::too_large;
pub use read::{
    cache_entry_from_json, fragment_from_json, plan_from_json, plan_problems, proposal_from_json,
    scenario_from_yaml, scenario_id_problem, site_map_from_json,
};
pub use rules::plan_semantics;
