//! What a server build is: the identity of the server binary a variant ran, recorded for
//! every variant so that results from different runs can be told apart and keyed on (a results
//! history groups by it). engines/ fills it in; here it is plain data.

use serde::{Deserialize, Serialize};

/// The server's engine family: what protocol it speaks and which engine in engines/ runs it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Family {
    /// MariaDB and MySQL.
    Mysql,
    Postgres,
}

/// A server of one family as its maker ships it; MariaDB and MySQL differ in their defaults,
/// datadir initialisation and performance_schema.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Flavour {
    #[serde(rename = "mariadb")]
    MariaDb,
    #[serde(rename = "mysql")]
    MySql,
    #[serde(rename = "postgres")]
    Postgres,
}

/// Where a server build came from.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Origin {
    /// The system's packaged server (Debian's mariadb-server, postgresql-15), with its
    /// package and version when the package manager knows the binary.
    System { package: Option<String> },
    /// A release psbench fetched into its cache: `mariadb-11.4.5`, with the channel it came
    /// from and who built it.
    Release { release: String, channel: String },
    /// A binary tree given by path (a variant's `basedir`, `--basedir`).
    Basedir { path: String },
    /// A server psbench built from source (`psbench build`, a variant's `build`): the build's
    /// name in the build cache, its source as pinned (`debian:mariadb=1:10.11.19-0+deb12u1`)
    /// with the source's SHA-256, the flag set, and the compilers.
    Build {
        name: String,
        source: String,
        source_sha256: String,
        flags: String,
        compiler: String,
    },
}

impl Origin {
    /// Where a server came from, without its release: what a series of the results history
    /// and a sweep keep constant. The system's package by name, who built a fetched release,
    /// a source build's flag set and compiler, a tree's path.
    pub fn channel(&self) -> String {
        match self {
            Origin::System { package: Some(p) } => {
                format!("system package {}", p.split(' ').next().unwrap_or(p))
            }
            Origin::System { package: None } => "system".into(),
            // "Maven Central GROUP:ARTIFACT:VERSION (BUILDER)": the builder, not the jar, which
            // differs between MySQL 5.7's and 8.0's test-support artifacts.
            Origin::Release { channel, .. } => format!(
                "fetched: {}",
                channel
                    .split_once(" (")
                    .map(|(_, builder)| builder.strip_suffix(')').unwrap_or(builder))
                    .unwrap_or(channel)
            ),
            Origin::Basedir { path } => format!("tree at {path}"),
            Origin::Build {
                flags, compiler, ..
            } => format!("built from source: flag set {flags}, {compiler}"),
        }
    }
}

/// One server build's identity.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ServerBuild {
    pub family: Family,
    pub flavour: Flavour,
    /// As the binary prints it: `10.11.19-MariaDB-0+deb12u1`, `15.18`.
    pub version: String,
    pub origin: Origin,
    /// The compile-time options the build was made with, where they are known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub build_flags: Option<Vec<String>>,
    /// The server binary's path and SHA-256: which exact build ran.
    pub binary: String,
    pub sha256: String,
}
