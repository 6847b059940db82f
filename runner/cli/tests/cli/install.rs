//! `scripts/install.sh`, the one-line install: against a local copy of the releases (a real
//! HTTP server on loopback), it picks this machine's archive, checks its SHA-256 and installs
//! `windup`; an archive that does not match its checksum installs nothing.

use std::path::Path;
use std::process::Command;

use windup_testkit::{Server, repo_root};

/// A release of `windup` at `releases/latest/download/ASSET.tar.gz` (with its `.sha256`), whose
/// binary is a script that prints `version`.
fn release(root: &Path, asset: &str, version: &str) {
    let download = root.join("latest/download");
    std::fs::create_dir_all(&download).unwrap();
    let staging = tempfile::tempdir().unwrap();
    let binary = staging.path().join("windup");
    std::fs::write(&binary, format!("#!/bin/sh\necho 'windup {version}'\n")).unwrap();
    let ok = Command::new("chmod")
        .arg("755")
        .arg(&binary)
        .status()
        .unwrap();
    assert!(ok.success());
    let archive = format!("{asset}.tar.gz");
    let ok = Command::new("tar")
        .arg("-C")
        .arg(staging.path())
        .arg("-czf")
        .arg(download.join(&archive))
        .arg("windup")
        .status()
        .unwrap();
    assert!(ok.success());
    let sum = Command::new("sha256sum")
        .current_dir(&download)
        .arg(&archive)
        .output()
        .unwrap();
    std::fs::write(download.join(format!("{archive}.sha256")), sum.stdout).unwrap();
}

/// What the `windup` installed in `bin` says its version is.
fn installed_version(bin: &Path) -> String {
    let out = Command::new(bin.join("windup"))
        .arg("--version")
        .output()
        .unwrap();
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

fn install(server: &Server, into: &Path) -> std::process::Output {
    Command::new("sh")
        .arg(repo_root().join("scripts/install.sh"))
        .env(
            "WINDUP_RELEASE_URL",
            server.base.as_str().trim_end_matches('/'),
        )
        .env("WINDUP_INSTALL_DIR", into)
        .output()
        .unwrap()
}

#[test]
fn the_install_script_checks_the_archive_for_this_machine_and_installs_it() {
    let asset = match std::env::consts::ARCH {
        "x86_64" => "windup-linux-x64",
        "aarch64" => "windup-linux-arm64",
        other => panic!("no Linux archive for {other}"),
    };
    let releases = tempfile::tempdir().unwrap();
    release(releases.path(), asset, "9.9.9");
    let server = Server::start(releases.path());
    let bin = tempfile::tempdir().unwrap();
    let out = install(&server, bin.path());
    let said = String::from_utf8_lossy(&out.stdout).to_string();
    assert!(
        out.status.success(),
        "{said}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(said.contains("installed windup 9.9.9"), "{said}");
    assert_eq!(installed_version(bin.path()), "windup 9.9.9");

    // Another archive under the old checksum: refused, and the installed one stays.
    let sums = std::fs::read(
        releases
            .path()
            .join(format!("latest/download/{asset}.tar.gz.sha256")),
    )
    .unwrap();
    release(releases.path(), asset, "6.6.6");
    std::fs::write(
        releases
            .path()
            .join(format!("latest/download/{asset}.tar.gz.sha256")),
        sums,
    )
    .unwrap();
    let out = install(&server, bin.path());
    let err = String::from_utf8_lossy(&out.stderr).to_string();
    assert!(!out.status.success());
    assert!(
        err.contains("does not match its published SHA-256; nothing was installed"),
        "{err}"
    );
    assert_eq!(installed_version(bin.path()), "windup 9.9.9");
}
