//! Embeds `../migrations/{sqlite,postgres}/*.sql` in the crate: writes `$OUT_DIR/migrations.rs`,
//! one `(version, description, sql)` per file, which `store::sql::migrations` turns into sqlx's
//! `Migrator`. This is what `sqlx::migrate!` did, without its proc macro: that macro compiles
//! sqlx's SQLite and PostgreSQL drivers (and SQLite's C source) a second time, for the host.
//!
//! The names are read as sqlx reads them (`<VERSION>_<DESCRIPTION>.sql`, underscores in the
//! description become spaces), so the versions, descriptions and checksums a database already
//! holds stay the same; `tests/dashboard/upgrade.rs` compares them with sqlx's own reader.

use std::fmt::Write as _;
use std::path::Path;

fn main() {
    // A folder: Cargo looks at everything under it, so a new migration counts too.
    println!("cargo:rerun-if-changed=../migrations");
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../migrations");
    let mut out = String::new();
    for (name, folder) in [("SQLITE", "sqlite"), ("POSTGRES", "postgres")] {
        let dir = root.join(folder);
        let mut files: Vec<_> = std::fs::read_dir(&dir)
            .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
            .map(|entry| entry.expect("a migrations folder entry").path())
            .filter(|path| path.extension().is_some_and(|ext| ext == "sql"))
            .collect();
        files.sort();
        writeln!(out, "pub(super) const {name}: &[(i64, &str, &str)] = &[").unwrap();
        for path in files {
            let file = path
                .file_name()
                .unwrap()
                .to_str()
                .expect("a UTF-8 file name");
            let (version, rest) = file
                .split_once('_')
                .unwrap_or_else(|| panic!("{}: not <VERSION>_<DESCRIPTION>.sql", path.display()));
            let version: i64 = version
                .parse()
                .unwrap_or_else(|_| panic!("{}: the version is not an integer", path.display()));
            // sqlx reads `.up.sql` and `.down.sql` as a reversible pair; this store has none.
            assert!(
                !rest.ends_with(".up.sql") && !rest.ends_with(".down.sql"),
                "{}: reversible migrations are not embedded; write a simple .sql",
                path.display()
            );
            let description = rest.trim_end_matches(".sql").replace('_', " ");
            let absolute = path.canonicalize().unwrap();
            writeln!(
                out,
                "    ({version}, {description:?}, include_str!({:?})),",
                absolute.display().to_string()
            )
            .unwrap();
        }
        writeln!(out, "];").unwrap();
    }
    let target = Path::new(&std::env::var("OUT_DIR").unwrap()).join("migrations.rs");
    std::fs::write(&target, out).unwrap();
}
