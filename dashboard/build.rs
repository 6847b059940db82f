//! `sqlx::migrate!` embeds the migrations when the crate compiles; a new or edited migration
//! alone would not make Cargo compile it again without this.

fn main() {
    println!("cargo:rerun-if-changed=../migrations");
}
