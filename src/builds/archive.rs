//! Builds that travel between hosts: a cache entry written as one `.tar.xz` that any `tar`
//! reads (its directory under its own name: `tree/`, `build.json`, `build.log` and what the
//! cache keeps of the build directory), and such an archive taken into the cache only once it
//! is whole and its record holds: the key its fields give, the server binary's checksum, and
//! for a native build this host's CPU. A refused archive leaves nothing in the cache.

use super::builder::Builder;
use super::cache::{self, BuildRecord, IMPORTED};
use super::toolchain;
use crate::error::usage;
use anyhow::{Context, Result};
use std::fs::File;
use std::io::{BufReader, BufWriter, Write};
use std::path::{Component, Path, PathBuf};

/// xz's default level: a 116 MB MySQL tree becomes about 23 MB.
pub const XZ_LEVEL: u32 = 6;

/// `psbench build export NAME… --out DIR`: the build named `name` (its directory name or the
/// start of its key) in the cache `dir`, written to `out/NAME.tar.xz` at xz level `level`
/// (whole or not at all).
pub fn export(dir: &Path, name: &str, out: &Path, level: u32) -> Result<PathBuf> {
    let (entry, record) = cache::named(dir, name)?;
    if level > 9 {
        return Err(usage(format!("xz levels are 0 to 9, not {level}")));
    }
    std::fs::create_dir_all(out).with_context(|| format!("creating {}", out.display()))?;
    let dest = out.join(format!("{}.tar.xz", record.name));
    let partial = out.join(format!(
        ".{}.tar.xz.partial-{}",
        record.name,
        std::process::id()
    ));
    let written = write_archive(&entry, &record, &partial, level);
    if let Err(e) = written {
        let _ = std::fs::remove_file(&partial);
        return Err(e.context(format!("writing {}", dest.display())));
    }
    std::fs::rename(&partial, &dest)
        .with_context(|| format!("moving {} to {}", partial.display(), dest.display()))?;
    Ok(dest)
}

fn write_archive(entry: &Path, record: &BuildRecord, to: &Path, level: u32) -> Result<()> {
    let file = File::create(to).with_context(|| format!("creating {}", to.display()))?;
    let xz = liblzma::write::XzEncoder::new_parallel(BufWriter::new(file), level);
    let mut tar = tar::Builder::new(xz);
    let mut paths = vec![PathBuf::new()];
    walk(entry, Path::new(""), &mut paths)?;
    for rel in paths {
        if rel == Path::new(IMPORTED) {
            continue;
        }
        let path = entry.join(&rel);
        let inside = Path::new(&record.name).join(&rel);
        let meta = std::fs::symlink_metadata(&path)
            .with_context(|| format!("reading {}", path.display()))?;
        // The same build gives the same archive, byte for byte, wherever it is exported:
        // owner root, modes 644 or 755, every time the build's own.
        let mut header = tar::Header::new_gnu();
        header.set_metadata_in_mode(&meta, tar::HeaderMode::Deterministic);
        header.set_mtime(record.built_unix);
        if meta.file_type().is_symlink() {
            let target = std::fs::read_link(&path)?;
            tar.append_link(&mut header, &inside, &target)?;
        } else if meta.is_dir() {
            tar.append_data(&mut header, &inside, std::io::empty())?;
        } else {
            let f = File::open(&path).with_context(|| format!("opening {}", path.display()))?;
            tar.append_data(&mut header, &inside, f)
                .with_context(|| format!("adding {}", path.display()))?;
        }
    }
    let xz = tar.into_inner()?;
    let mut file = xz.finish()?;
    file.flush()?;
    file.get_ref().sync_all()?;
    Ok(())
}

/// Every path under `root/rel`, relative to `root`, each directory before what it holds, in
/// name order.
fn walk(root: &Path, rel: &Path, out: &mut Vec<PathBuf>) -> Result<()> {
    let dir = root.join(rel);
    let mut names: Vec<_> = std::fs::read_dir(&dir)
        .with_context(|| format!("reading {}", dir.display()))?
        .map(|e| e.map(|e| e.file_name()))
        .collect::<std::io::Result<_>>()?;
    names.sort();
    for n in names {
        let r = rel.join(&n);
        let is_dir = std::fs::symlink_metadata(root.join(&r))?.is_dir();
        out.push(r.clone());
        if is_dir {
            walk(root, &r, out)?;
        }
    }
    Ok(())
}

/// An archive taken in as far as checks without the engine go.
pub enum Staging {
    /// Unpacked and checked beside the cache, not yet in it.
    Staged(Staged),
    /// The cache has this key with this very binary already.
    AlreadyThere(PathBuf, BuildRecord),
}

/// An unpacked archive in a private directory of the cache: [`Staged::keep`] moves it in;
/// dropped, it is removed.
pub struct Staged {
    partial: PathBuf,
    entry: PathBuf,
    cache: PathBuf,
    archive: PathBuf,
    pub record: BuildRecord,
    _lock: File,
}

impl Staged {
    /// The unpacked build's directory (its `tree/`, `build.json`, CMake cache).
    pub fn dir(&self) -> &Path {
        &self.entry
    }

    /// Into the cache under its own name, in one rename; its directory there.
    pub fn keep(self) -> Result<PathBuf> {
        let dest = self.cache.join(&self.record.name);
        let note = serde_json::json!({
            "archive": self.archive.display().to_string(),
            "imported_unix": std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_secs()),
        });
        let note_path = self.entry.join(IMPORTED);
        std::fs::write(&note_path, format!("{note:#}\n"))
            .with_context(|| format!("writing {}", note_path.display()))?;
        std::fs::rename(&self.entry, &dest)
            .with_context(|| format!("moving {} to {}", self.entry.display(), dest.display()))?;
        Ok(dest)
    }
}

impl Drop for Staged {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.partial);
    }
}

/// Unpack `archive` beside the cache `dir` and check it: whole, one directory named as its
/// record says, the record's key the one its fields give, the server binary the one it
/// records, a native build made for this CPU, and no other binary under its key in the cache.
/// Every refusal is a usage error naming the archive.
pub fn stage(archive: &Path, dir: &Path, builder: &Builder) -> Result<Staging> {
    let refuse = |why: String| usage(format!("{} refused: {why}", archive.display()));
    let file = File::open(archive)
        .map_err(|e| usage(format!("{}: cannot be read ({e})", archive.display())))?;
    builder.own(dir)?;
    let partial = dir.join(format!(".partial-import-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&partial);
    std::fs::create_dir_all(&partial).with_context(|| format!("creating {}", partial.display()))?;
    let top = match unpack(file, &partial) {
        Ok(top) => top,
        Err(e) => {
            let _ = std::fs::remove_dir_all(&partial);
            return Err(match e {
                Unpack::NotWhole(why) => refuse(format!("it is not a whole build archive ({why})")),
                Unpack::Host(e) => e.context(format!("unpacking {}", archive.display())),
            });
        }
    };
    let cleanup = |e: anyhow::Error| {
        let _ = std::fs::remove_dir_all(&partial);
        e
    };
    let entry = partial.join(&top);
    let record = check(&entry, &top).map_err(|why| cleanup(refuse(why)))?;
    let lock = crate::server::lock::exclusive(
        &dir.join(format!(".lock-{}", &record.key[..16])),
        &format!(
            "the build {}, which another psbench process is making",
            &record.key[..16]
        ),
        &mut std::io::stderr(),
    )
    .map_err(cleanup)?;
    if let Some((there, have)) = cache::find(dir, &record.key) {
        let _ = std::fs::remove_dir_all(&partial);
        if have.binary_sha256 == record.binary_sha256 {
            return Ok(Staging::AlreadyThere(there, have));
        }
        return Err(refuse(format!(
            "the cache has {} under the same key {} with another server binary: sha256 {} there, {} in the archive",
            have.name,
            &record.key[..16],
            have.binary_sha256,
            record.binary_sha256
        )));
    }
    if dir.join(&record.name).exists() {
        return Err(cleanup(refuse(format!(
            "{} exists and holds no finished build: remove it first",
            dir.join(&record.name).display()
        ))));
    }
    builder.own(&partial).map_err(cleanup)?;
    Ok(Staging::Staged(Staged {
        partial,
        entry,
        cache: dir.to_path_buf(),
        archive: archive
            .canonicalize()
            .unwrap_or_else(|_| archive.to_path_buf()),
        record,
        _lock: lock,
    }))
}

/// Why an archive did not unpack: its own fault, or the host's (a full disk).
enum Unpack {
    NotWhole(String),
    Host(anyhow::Error),
}

/// The archive unpacked into `into`, read to the end of its xz stream (whose own check is
/// at the end): the one directory it holds.
fn unpack(file: File, into: &Path) -> std::result::Result<String, Unpack> {
    let mut xz = liblzma::read::XzDecoder::new(BufReader::new(file));
    let mut top: Option<String> = None;
    {
        let mut tar = tar::Archive::new(&mut xz);
        tar.set_preserve_permissions(true);
        tar.set_preserve_mtime(true);
        tar.set_overwrite(false);
        let entries = tar.entries().map_err(io_fault)?;
        for entry in entries {
            let mut entry = entry.map_err(io_fault)?;
            let path = entry.path().map_err(io_fault)?.into_owned();
            let first = match path.components().next() {
                Some(Component::Normal(n)) => n.to_string_lossy().into_owned(),
                _ => return Err(Unpack::NotWhole(format!("entry {}", path.display()))),
            };
            match &top {
                Some(t) if *t != first => {
                    return Err(Unpack::NotWhole(format!(
                        "it holds {t}/ and {first}/; a build archive holds one directory"
                    )))
                }
                _ => top = Some(first),
            }
            if !entry.unpack_in(into).map_err(io_fault)? {
                return Err(Unpack::NotWhole(format!(
                    "entry {} points outside its directory",
                    path.display()
                )));
            }
        }
    }
    std::io::copy(&mut xz, &mut std::io::sink()).map_err(io_fault)?;
    top.ok_or_else(|| Unpack::NotWhole("it is empty".into()))
}

/// A read or write error while unpacking: the host's when its disk is full or read-only,
/// else the archive's.
fn io_fault(e: std::io::Error) -> Unpack {
    use std::io::ErrorKind::{QuotaExceeded, ReadOnlyFilesystem, StorageFull};
    match e.kind() {
        StorageFull | QuotaExceeded | ReadOnlyFilesystem => Unpack::Host(e.into()),
        _ => Unpack::NotWhole(e.to_string()),
    }
}

/// The record of an unpacked build in `entry`, checked against itself, its binary and this
/// host's CPU; or why not.
fn check(entry: &Path, top: &str) -> std::result::Result<BuildRecord, String> {
    let text = std::fs::read_to_string(entry.join("build.json"))
        .map_err(|e| format!("{top}/build.json cannot be read ({e})"))?;
    let record: BuildRecord = serde_json::from_str(&text)
        .map_err(|e| format!("{top}/build.json is not a build record ({e})"))?;
    let key = record.key_of_fields();
    if key != record.key {
        return Err(format!(
            "build.json's key {} is not the one its fields (source, flags, options, compiler, recipe) give, {}: the record was edited",
            &record.key[..16.min(record.key.len())],
            &key[..16]
        ));
    }
    if record.name != top || record.name != record.name_of_fields() {
        return Err(format!(
            "its directory {top}/, its record's name {} and the name its fields give {} differ",
            record.name,
            record.name_of_fields()
        ));
    }
    if let Some(cpu) = &record.target_cpu {
        let here = toolchain::target_cpu();
        if *cpu != here {
            return Err(format!(
                "flag set {} was built for the CPU {cpu}, and this host's is {here}",
                record.flags
            ));
        }
    }
    let server = BuildRecord::tree(entry).join(&record.server);
    let sha = crate::server::fetch::sha256(&server)
        .map_err(|e| format!("its server {} cannot be read ({e:#})", record.server))?;
    if sha != record.binary_sha256 {
        return Err(format!(
            "its server {} has sha256 {sha}, and build.json records {}",
            record.server, record.binary_sha256
        ));
    }
    Ok(record)
}
