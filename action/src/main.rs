//! `windup-action`: the Docker Action's entrypoint. Reads the Action's inputs and the GitHub
//! context from the environment, runs, and exits with the runner's code.

use tracing_subscriber::filter::LevelFilter;
use tracing_subscriber::prelude::*;
use tracing_subscriber::{EnvFilter, fmt};

fn main() -> std::process::ExitCode {
    // The engine's warnings (a dashboard that cannot be reached, a screenshot not stored) become
    // `::warning` annotations on stdout; WINDUP_LOG adds a plain log on stderr.
    let log = EnvFilter::builder()
        .with_default_directive(LevelFilter::OFF.into())
        .with_env_var("WINDUP_LOG")
        .from_env_lossy();
    tracing_subscriber::registry()
        .with(Annotations.with_filter(LevelFilter::WARN))
        .with(
            fmt::layer()
                .with_writer(std::io::stderr)
                .without_time()
                .with_filter(log),
        )
        .init();
    windup_action::run(&windup_action::environment::Environment::of_process()).into()
}

/// A tracing layer that prints each event it sees as a `::warning` annotation (main installs it
/// for the engine's warnings and errors).
struct Annotations;

impl<S: tracing::Subscriber> tracing_subscriber::Layer<S> for Annotations {
    fn on_event(&self, event: &tracing::Event<'_>, _: tracing_subscriber::layer::Context<'_, S>) {
        struct Message(String);
        impl tracing::field::Visit for Message {
            fn record_debug(&mut self, field: &tracing::field::Field, value: &dyn std::fmt::Debug) {
                if field.name() == "message" {
                    self.0 = format!("{value:?}");
                }
            }
        }
        let mut message = Message(String::new());
        event.record(&mut message);
        println!(
            "{}",
            windup_action::github::warning_command("windup", &message.0)
        );
    }
}
