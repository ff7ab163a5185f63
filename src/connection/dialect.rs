//! The SQL a server takes, as answers to the questions statements are built from: which key
//! type the server numbers itself, whether tables take a storage engine, how several indexes
//! are built, how the oldest rows are deleted, and so on. Obtained from whatever reaches the
//! server ([`super::Endpoint::dialect`], [`super::Session::dialect`],
//! [`super::AdminConn::dialect`]), so that statements are built from its answers rather than
//! from the name of the server's engine.

use super::Engine;

/// The SQL dialect of one server. A value with methods, one per question.
#[derive(Clone, Copy, Debug)]
pub struct Dialect {
    protocol: Engine,
}

/// The width of an integer key the server numbers itself.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KeyWidth {
    /// 32 bits.
    Int,
    /// 64 bits.
    BigInt,
}

/// A numbered primary key in a `CREATE TABLE`: the column's definition, and the constraint
/// that closes the column list when the column does not declare itself the key.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NumberedKey {
    pub column: String,
    pub constraint: Option<String>,
}

impl Dialect {
    pub(super) fn of(protocol: Engine) -> Dialect {
        Dialect { protocol }
    }

    /// MySQL's and MariaDB's, for statements built without a connection (tests, texts).
    pub fn mysql() -> Dialect {
        Dialect::of(Engine::MySql)
    }

    /// PostgreSQL's, for statements built without a connection (tests, texts).
    pub fn postgres() -> Dialect {
        Dialect::of(Engine::Postgres)
    }

    fn postgres_sql(&self) -> bool {
        self.protocol == Engine::Postgres
    }

    /// The type of an integer column whose values the server assigns: MySQL's
    /// `AUTO_INCREMENT` (which assigns one for a 0 too), PostgreSQL's serial types.
    pub fn serial_type(&self, width: KeyWidth) -> &'static str {
        match (self.postgres_sql(), width) {
            (false, KeyWidth::Int) => "INTEGER NOT NULL AUTO_INCREMENT",
            (false, KeyWidth::BigInt) => "BIGINT NOT NULL AUTO_INCREMENT",
            (true, KeyWidth::Int) => "SERIAL",
            (true, KeyWidth::BigInt) => "BIGSERIAL",
        }
    }

    /// A numbered primary key named `column`: PostgreSQL's serial column declares itself
    /// the key; MySQL's `AUTO_INCREMENT` column is followed by a `PRIMARY KEY` constraint.
    pub fn numbered_primary_key(&self, column: &str, width: KeyWidth) -> NumberedKey {
        let ty = self.serial_type(width);
        if self.postgres_sql() {
            return NumberedKey {
                column: format!("{column} {ty} PRIMARY KEY"),
                constraint: None,
            };
        }
        NumberedKey {
            column: format!("{column} {ty}"),
            constraint: Some(format!("PRIMARY KEY ({column})")),
        }
    }

    /// Whether an inserted id of 0 lets the server assign the key (MySQL's
    /// `AUTO_INCREMENT`); where it does not (PostgreSQL stores the 0), the key column is
    /// left out of the INSERT instead.
    pub fn assigns_key_for_zero(&self) -> bool {
        !self.postgres_sql()
    }

    /// The statement that makes a serial column's sequence hand each session `values` keys at
    /// a time; `None` where a numbered key has no sequence of its own (MySQL).
    pub fn cache_serial_values(&self, table: &str, column: &str, values: u32) -> Option<String> {
        self.postgres_sql()
            .then(|| format!("ALTER SEQUENCE {table}_{column}_seq CACHE {values}"))
    }

    /// The type of a date and time without a time zone.
    pub fn datetime_type(&self) -> &'static str {
        if self.postgres_sql() {
            "TIMESTAMP WITHOUT TIME ZONE"
        } else {
            "DATETIME"
        }
    }

    /// Whether a table is created with a storage engine (MySQL's `ENGINE=`); PostgreSQL's
    /// tables have none.
    pub fn takes_storage_engine(&self) -> bool {
        !self.postgres_sql()
    }

    /// The statements that build the indexes `(name, columns)` on `table`: one ALTER TABLE
    /// where the server builds them all in one scan of the table (MySQL), otherwise one
    /// CREATE INDEX each, in order.
    pub fn add_indexes(&self, table: &str, indexes: &[(String, &str)]) -> Vec<String> {
        if self.postgres_sql() {
            return indexes
                .iter()
                .map(|(name, cols)| format!("CREATE INDEX {name} ON {table} ({cols})"))
                .collect();
        }
        let adds: Vec<String> = indexes
            .iter()
            .map(|(name, cols)| format!("ADD INDEX {name} ({cols})"))
            .collect();
        vec![format!("ALTER TABLE {table} {}", adds.join(", "))]
    }

    /// What follows the table in a SELECT's FROM to make it read `index`: MySQL's
    /// `FORCE INDEX`; empty where the server takes no hints (PostgreSQL).
    pub fn force_index(&self, index: &str) -> String {
        if self.postgres_sql() {
            String::new()
        } else {
            format!(" FORCE INDEX ({index})")
        }
    }

    /// A query listing the names of `table`'s indexes in `database` (the connection's own),
    /// in name order.
    pub fn list_indexes(&self, database: &str, table: &str) -> String {
        if self.postgres_sql() {
            format!(
                "SELECT indexname FROM pg_indexes WHERE schemaname = current_schema() \
                 AND tablename = '{table}' ORDER BY indexname"
            )
        } else {
            format!(
                "SELECT DISTINCT index_name FROM information_schema.statistics \
                 WHERE table_schema = '{database}' AND table_name = '{table}' ORDER BY index_name"
            )
        }
    }

    /// A DELETE of exactly the `rows` rows of `table` with the lowest `key` from the bound
    /// `?` up. PostgreSQL's DELETE has no ORDER BY or LIMIT: the keys are selected first.
    pub fn delete_oldest(&self, table: &str, key: &str, rows: u64) -> String {
        if self.postgres_sql() {
            return format!(
                "DELETE FROM {table} WHERE {key} IN (SELECT {key} FROM {table} \
                 WHERE {key} >= ? ORDER BY {key} ASC LIMIT {rows})"
            );
        }
        format!("DELETE FROM {table} WHERE {key} >= ? ORDER BY {key} ASC LIMIT {rows}")
    }

    /// Whether an INSERT's answer carries the first key it assigned (MySQL's last insert
    /// id); PostgreSQL's command tag carries none.
    pub fn reports_insert_id(&self) -> bool {
        !self.postgres_sql()
    }

    /// Whether the server reclaims deleted rows' space only when a client vacuums the table
    /// (PostgreSQL), rather than by purging them in the background (InnoDB).
    pub fn vacuums_tables(&self) -> bool {
        self.postgres_sql()
    }

    /// Whether pgbench's tables and scripts can run here: they are PostgreSQL's SQL
    /// (generate_series, fillfactor, VACUUM).
    pub fn supports_pgbench(&self) -> bool {
        self.postgres_sql()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbered_keys_in_each_dialect() {
        assert_eq!(
            Dialect::mysql().numbered_primary_key("id", KeyWidth::BigInt),
            NumberedKey {
                column: "id BIGINT NOT NULL AUTO_INCREMENT".into(),
                constraint: Some("PRIMARY KEY (id)".into()),
            }
        );
        assert_eq!(
            Dialect::postgres().numbered_primary_key("id", KeyWidth::BigInt),
            NumberedKey {
                column: "id BIGSERIAL PRIMARY KEY".into(),
                constraint: None,
            }
        );
        assert_eq!(Dialect::postgres().serial_type(KeyWidth::Int), "SERIAL");
        assert_eq!(Dialect::mysql().cache_serial_values("t", "id", 10), None);
    }

    #[test]
    fn oldest_rows_are_deleted_with_or_without_a_limit_on_delete() {
        assert_eq!(
            Dialect::mysql().delete_oldest("t", "k", 5),
            "DELETE FROM t WHERE k >= ? ORDER BY k ASC LIMIT 5"
        );
        assert_eq!(
            Dialect::postgres().delete_oldest("t", "k", 5),
            "DELETE FROM t WHERE k IN (SELECT k FROM t WHERE k >= ? ORDER BY k ASC LIMIT 5)"
        );
    }

    #[test]
    fn indexes_in_one_statement_only_where_one_scan_builds_them_all() {
        let idx = [("a".to_string(), "x"), ("b".to_string(), "y, z")];
        assert_eq!(
            Dialect::mysql().add_indexes("t", &idx),
            ["ALTER TABLE t ADD INDEX a (x), ADD INDEX b (y, z)"]
        );
        assert_eq!(
            Dialect::postgres().add_indexes("t", &idx),
            ["CREATE INDEX a ON t (x)", "CREATE INDEX b ON t (y, z)"]
        );
    }
}
