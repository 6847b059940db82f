//! The LLM boundary: one call turns a prompt and a JSON Schema into the model's output text.

pub mod schema;
