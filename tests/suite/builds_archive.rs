//! Builds carried between hosts: psbench's own MySQL 9.7.2 archives (shared/builds beside the
//! checkout) imported into a private build cache, listed, exported back as any tar reads
//! them; archives that are not whole or not what their record says refused in one line with
//! nothing left in the cache; a build from another compiler kept under its own key and taken
//! only by name; and an imported build serving a study whose source is neither in the cache
//! nor reachable.

use crate::common;

use common::require;
use psbench::builds::BuildRecord;
use std::path::{Path, PathBuf};
use std::process::Output;

const SOURCE: &str = "debian:mysql-9.7=9.7.2-4";

/// `psbench ARGS` with its build cache in `builds` (and its home beside it).
fn psbench_with(builds: &Path, args: &[&str]) -> Output {
    common::psbench(&builds.with_extension("home"))
        .env("PSBENCH_BUILDS", builds)
        .args(args)
        .output()
        .unwrap()
}

fn import(builds: &Path, archive: &Path) -> Output {
    psbench_with(builds, &["build", "import", archive.to_str().unwrap()])
}

/// The finished builds and anything else left in a cache directory (lock files aside).
fn left_in(builds: &Path) -> Vec<String> {
    std::fs::read_dir(builds)
        .map(|d| {
            d.flatten()
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .filter(|n| !n.starts_with(".lock-"))
                .collect()
        })
        .unwrap_or_default()
}

/// The archive unpacked into `into`: its one directory.
fn unpack(archive: &Path, into: &Path) -> PathBuf {
    let f = std::fs::File::open(archive).unwrap();
    let mut tar = tar::Archive::new(liblzma::read::XzDecoder::new(f));
    tar.set_preserve_permissions(true);
    tar.unpack(into).unwrap();
    let top = std::fs::read_dir(into).unwrap().next().unwrap().unwrap();
    top.path()
}

/// Only `dir`'s record, packed as `out`: what an archive refused for its record alone needs
/// (the record is checked before the tree).
fn pack_record(dir: &Path, out: &Path) {
    let only = out.with_extension("record").join(dir.file_name().unwrap());
    std::fs::create_dir_all(&only).unwrap();
    std::fs::copy(dir.join("build.json"), only.join("build.json")).unwrap();
    pack(&only, out);
}

/// `dir` packed as `out` (xz level 0: these archives are made to be refused or read once).
fn pack(dir: &Path, out: &Path) {
    let f = std::fs::File::create(out).unwrap();
    let mut tar = tar::Builder::new(liblzma::write::XzEncoder::new(f, 0));
    tar.follow_symlinks(false);
    tar.append_dir_all(dir.file_name().unwrap(), dir).unwrap();
    tar.into_inner().unwrap().finish().unwrap();
}

fn record(dir: &Path) -> BuildRecord {
    serde_json::from_str(&std::fs::read_to_string(dir.join("build.json")).unwrap()).unwrap()
}

fn write_record(dir: &Path, r: &BuildRecord) {
    std::fs::write(
        dir.join("build.json"),
        serde_json::to_string_pretty(r).unwrap(),
    )
    .unwrap();
}

/// The build in `dir` changed by `edit` and given the key and name its new fields give, as a
/// build made that way would have: its new directory.
fn rekeyed(dir: &Path, edit: impl FnOnce(&mut BuildRecord)) -> PathBuf {
    let mut r = record(dir);
    edit(&mut r);
    r.key = r.key_of_fields();
    r.name = r.name_of_fields();
    write_record(dir, &r);
    let to = dir.with_file_name(&r.name);
    std::fs::rename(dir, &to).unwrap();
    to
}

/// One byte of the server binary flipped: its new SHA-256.
fn flip_a_byte(dir: &Path) -> String {
    let bin = dir.join("tree/bin/mysqld");
    let mut bytes = std::fs::read(&bin).unwrap();
    let at = bytes.len() / 2;
    bytes[at] ^= 0x01;
    std::fs::write(&bin, bytes).unwrap();
    psbench::server::fetch::sha256(&bin).unwrap()
}

/// An archive refused: exit 2, one `psbench:` line holding `why`, nothing left in the cache.
fn assert_refused(builds: &Path, archive: &Path, why: &str) {
    let o = import(builds, archive);
    let text = common::text(&o);
    assert_eq!(o.status.code(), Some(2), "{}: {text}", archive.display());
    let lines: Vec<&str> = text.lines().filter(|l| l.starts_with("psbench:")).collect();
    assert_eq!(lines.len(), 1, "{text}");
    assert!(
        lines[0].contains("refused") && lines[0].contains(why),
        "{}: wanted '{why}' in: {text}",
        archive.display()
    );
    assert!(left_in(builds).is_empty(), "{:?}", left_in(builds));
}

#[test]
fn an_archive_is_imported_checked_listed_and_exported_back_as_any_tar_reads_it() {
    let Some(archive) = require::shared_build("release") else {
        return;
    };
    let tmp = common::tempdir().unwrap();
    let builds = tmp.path().join("builds");
    let o = import(&builds, &archive);
    let text = common::text(&o);
    assert!(o.status.success(), "{text}");
    let dir = PathBuf::from(String::from_utf8_lossy(&o.stdout).trim());
    let name = dir.file_name().unwrap().to_str().unwrap().to_string();
    assert!(name.starts_with("mysql-9.7.2-release-"), "{name}");
    assert!(
        text.contains("read back: ") && text.contains("CMAKE_BUILD_TYPE=Release"),
        "{text}"
    );
    assert!(
        text.contains(&format!("imported {name}: MySQL 9.7.2")),
        "{text}"
    );
    // Kept as a build made here is: the same owner as the cache psbench builds into.
    {
        use std::os::unix::fs::MetadataExt;
        let owner = std::fs::metadata(&builds).unwrap().uid();
        assert_eq!(
            std::fs::metadata(dir.join("tree/bin/mysqld"))
                .unwrap()
                .uid(),
            owner
        );
    }
    let list = common::text(&psbench_with(&builds, &["build", "--list"]));
    let line = list.lines().find(|l| l.starts_with(&name)).expect(&list);
    assert!(
        line.contains("compiler this host's") && line.contains("imported from"),
        "{line}"
    );
    // Again: nothing to do, and said so.
    let again = import(&builds, &archive);
    assert!(again.status.success(), "{}", common::text(&again));
    assert!(
        common::text(&again).contains("already in the cache with this server binary"),
        "{}",
        common::text(&again)
    );
    // Exported: the layout it came in, read by the system's tar, byte for byte the same
    // archive a second time.
    let out = tmp.path().join("out");
    let export = |to: &Path| {
        let o = psbench_with(
            &builds,
            &[
                "build",
                "export",
                &name,
                "--out",
                to.to_str().unwrap(),
                "--xz-level",
                "0",
            ],
        );
        assert!(o.status.success(), "{}", common::text(&o));
        PathBuf::from(String::from_utf8_lossy(&o.stdout).trim())
    };
    let file = export(&out);
    assert_eq!(file, out.join(format!("{name}.tar.xz")));
    let listed = std::process::Command::new("tar")
        .arg("-tJf")
        .arg(&file)
        .output()
        .unwrap();
    let listed = String::from_utf8_lossy(&listed.stdout);
    for part in [
        "build.json",
        "build.log",
        "CMakeCache.txt",
        "my_config.h",
        "tree/bin/mysqld",
    ] {
        assert!(
            listed.contains(&format!("{name}/{part}")),
            "{part}: {listed}"
        );
    }
    assert!(!listed.contains("imported.json"), "{listed}");
    assert_eq!(
        std::fs::read(&file).unwrap(),
        std::fs::read(export(&tmp.path().join("out2"))).unwrap()
    );
    // Imported on another host (here, another cache): the same binary.
    let other = tmp.path().join("other-builds");
    let o = import(&other, &file);
    assert!(o.status.success(), "{}", common::text(&o));
    let there = record(&other.join(&name));
    assert_eq!(there.binary_sha256, record(&dir).binary_sha256);
}

#[test]
fn archives_not_whole_or_not_what_their_record_says_are_refused_leaving_nothing() {
    let Some(archive) = require::shared_build("release") else {
        return;
    };
    let tmp = common::tempdir().unwrap();
    let builds = tmp.path().join("builds");
    // Cut short: the xz stream ends early.
    let bytes = std::fs::read(&archive).unwrap();
    let cut = tmp.path().join("cut.tar.xz");
    std::fs::write(&cut, &bytes[..bytes.len() / 2]).unwrap();
    assert_refused(&builds, &cut, "not a whole build archive");
    // A byte of the server flipped.
    let work = tmp.path().join("work");
    let dir = unpack(&archive, &work.join("flipped"));
    let sha = flip_a_byte(&dir);
    let flipped = tmp.path().join("flipped.tar.xz");
    pack(&dir, &flipped);
    assert_refused(
        &builds,
        &flipped,
        &format!("has sha256 {sha}, and build.json records"),
    );
    // Another flag set written into build.json, the name and key left as they were.
    let dir = unpack(&archive, &work.join("flags"));
    let mut r = record(&dir);
    r.flags = "less".into();
    write_record(&dir, &r);
    let flags = tmp.path().join("flags.tar.xz");
    pack_record(&dir, &flags);
    assert_refused(&builds, &flags, "the record was edited");
    // An option taken out of the record.
    let dir = unpack(&archive, &work.join("options"));
    let mut r = record(&dir);
    r.options.retain(|o| o != "-DWITH_ROUTER=OFF");
    write_record(&dir, &r);
    let options = tmp.path().join("options.tar.xz");
    pack_record(&dir, &options);
    assert_refused(&builds, &options, "the record was edited");
    // A native build made for another CPU, its key and name as such a build has them.
    let dir = unpack(&archive, &work.join("native"));
    let dir = rekeyed(&dir, |r| {
        r.flags = "native".into();
        r.target_cpu = Some("Another CPU (flags 000000000000)".into());
    });
    let native = tmp.path().join("native.tar.xz");
    pack_record(&dir, &native);
    assert_refused(&builds, &native, "was built for the CPU Another CPU");
    // Not an archive at all.
    let junk = tmp.path().join("junk.tar.xz");
    std::fs::write(&junk, "not xz").unwrap();
    assert_refused(&builds, &junk, "not a whole build archive");
}

#[test]
fn the_same_key_with_another_binary_is_refused_naming_both_checksums() {
    let Some(archive) = require::shared_build("release") else {
        return;
    };
    let tmp = common::tempdir().unwrap();
    let builds = tmp.path().join("builds");
    let o = import(&builds, &archive);
    assert!(o.status.success(), "{}", common::text(&o));
    let dir = unpack(&archive, &tmp.path().join("work"));
    let ours = record(&dir).binary_sha256;
    // A whole archive, true to itself: its record names the binary it holds.
    let theirs = flip_a_byte(&dir);
    let mut r = record(&dir);
    r.binary_sha256 = theirs.clone();
    write_record(&dir, &r);
    let other = tmp.path().join("other.tar.xz");
    pack(&dir, &other);
    let o = import(&builds, &other);
    let text = common::text(&o);
    assert_eq!(o.status.code(), Some(2), "{text}");
    assert!(
        text.contains("under the same key")
            && text.contains(&format!("sha256 {ours} there, {theirs} in the archive")),
        "{text}"
    );
    // The build that was there stays, with its binary.
    let left = left_in(&builds);
    assert_eq!(left.len(), 1, "{left:?}");
    assert_eq!(record(&builds.join(&left[0])).binary_sha256, ours);
}

#[test]
fn an_imported_build_serves_a_study_with_its_source_gone_and_the_mirror_unreachable() {
    let Some(archive) = require::shared_build("release") else {
        return;
    };
    let tmp = common::tempdir().unwrap();
    let builds = tmp.path().join("builds");
    assert!(import(&builds, &archive).status.success());
    // A cache with no sources at all, and every HTTP request sent to a port nobody serves.
    let cache = tmp.path().join("cache");
    std::fs::create_dir_all(&cache).unwrap();
    let offline = |args: &[&str]| {
        common::psbench(&tmp.path().join("home"))
            .env("PSBENCH_BUILDS", &builds)
            .env("PSBENCH_CACHE", &cache)
            .env("http_proxy", "http://127.0.0.1:9")
            .env("https_proxy", "http://127.0.0.1:9")
            .args(args)
            .output()
            .unwrap()
    };
    let o = offline(&["build", "mysql", SOURCE, "--flags", "release"]);
    let text = common::text(&o);
    assert!(o.status.success(), "{text}");
    assert!(text.contains("from the cache"), "{text}");
    assert!(
        !cache.join("sources").exists(),
        "a source was fetched: {text}"
    );
    // The mirror really is out of reach: a flag set the cache lacks cannot be had.
    let o = offline(&["build", "mysql", SOURCE, "--flags", "less", "--source-only"]);
    assert_eq!(o.status.code(), Some(2), "{}", common::text(&o));
    // A study asking for it by source and flag set plans no build.
    let study = tmp.path().join("s.toml");
    std::fs::write(
        &study,
        format!(
            "name = \"gone\"\n[[variant]]\nname = \"rel\"\nbuild = {{ source = \"{SOURCE}\", flags = \"release\" }}\n[[workload]]\nworkload = \"oltp_point_select\"\n"
        ),
    )
    .unwrap();
    let o = offline(&["run", study.to_str().unwrap(), "--plan"]);
    let text = common::text(&o);
    assert!(o.status.success(), "{text}");
    assert!(text.contains("built already"), "{text}");
}

#[test]
fn a_build_from_another_compiler_keeps_its_key_and_is_taken_by_name_only() {
    let Some(archive) = require::shared_build("release") else {
        return;
    };
    let tmp = common::tempdir().unwrap();
    let builds = tmp.path().join("builds");
    let other = "cc (Debian 13.3.0-1) 13.3.0; c++ (Debian 13.3.0-1) 13.3.0";
    let dir = unpack(&archive, &tmp.path().join("work"));
    let dir = rekeyed(&dir, |r| r.compiler = other.into());
    let name = dir.file_name().unwrap().to_str().unwrap().to_string();
    let file = tmp.path().join("gcc13.tar.xz");
    pack(&dir, &file);
    let o = import(&builds, &file);
    let text = common::text(&o);
    assert!(o.status.success(), "{text}");
    assert!(
        text.contains(&format!("with {other}, not this host's")),
        "{text}"
    );
    let list = common::text(&psbench_with(&builds, &["build", "--list"]));
    assert!(
        list.contains(&format!("{name} "))
            && list.contains(&format!("compiler {other} (not this host's)")),
        "{list}"
    );
    let study = |build: &str| {
        let file = tmp.path().join("s.toml");
        std::fs::write(
            &file,
            format!("name = \"gcc13\"\n[[variant]]\nname = \"rel\"\nbuild = {build}\n[[workload]]\nworkload = \"oltp_point_select\"\n"),
        )
        .unwrap();
        let o = psbench_with(&builds, &["run", file.to_str().unwrap(), "--plan"]);
        (o.status.success(), common::text(&o))
    };
    // By source and flag set: not taken; the plan says it exists and how to name it.
    let (ok, text) = study(&format!("{{ source = \"{SOURCE}\", flags = \"release\" }}"));
    assert!(ok, "{text}");
    assert!(
        text.contains("made with another compiler than this host's")
            && text.contains(&format!("build = \"{name}\"")),
        "{text}"
    );
    // By name: that build.
    let (ok, text) = study(&format!("\"{name}\""));
    assert!(ok, "{text}");
    assert!(
        text.contains(&format!("{name}: named, in the cache")),
        "{text}"
    );
    // A name the cache lacks is a mistake of the study file, on its line.
    let (ok, text) = study("\"mysql-9.7.2-release-00000000\"");
    assert!(!ok, "{text}");
    assert!(
        text.contains("line 4") && text.contains("no build named 'mysql-9.7.2-release-00000000'"),
        "{text}"
    );
}
