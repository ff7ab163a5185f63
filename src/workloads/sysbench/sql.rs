//! The SQL text of sysbench 1.0.20's OLTP scripts, character for character
//! (docs/sysbench-compat.md#statement-texts): statement digests and performance_schema instruments match on it.

use super::options::OltpOptions;
use crate::connection::{Dialect, KeyWidth};

pub const BEGIN: &str = "BEGIN";
pub const COMMIT: &str = "COMMIT";

pub fn point_select(table: u32) -> String {
    format!("SELECT c FROM sbtest{table} WHERE id=?")
}

pub fn simple_range(table: u32) -> String {
    format!("SELECT c FROM sbtest{table} WHERE id BETWEEN ? AND ?")
}

pub fn sum_range(table: u32) -> String {
    format!("SELECT SUM(k) FROM sbtest{table} WHERE id BETWEEN ? AND ?")
}

pub fn order_range(table: u32) -> String {
    format!("SELECT c FROM sbtest{table} WHERE id BETWEEN ? AND ? ORDER BY c")
}

pub fn distinct_range(table: u32) -> String {
    format!("SELECT DISTINCT c FROM sbtest{table} WHERE id BETWEEN ? AND ? ORDER BY c")
}

pub fn index_update(table: u32) -> String {
    format!("UPDATE sbtest{table} SET k=k+1 WHERE id=?")
}

pub fn non_index_update(table: u32) -> String {
    format!("UPDATE sbtest{table} SET c=? WHERE id=?")
}

pub fn delete(table: u32) -> String {
    format!("DELETE FROM sbtest{table} WHERE id=?")
}

pub fn insert(table: u32) -> String {
    format!("INSERT INTO sbtest{table} (id, k, c, pad) VALUES (?, ?, ?, ?)")
}

/// oltp_insert's text-protocol statement, before its values.
pub fn insert_values_prefix(table: u32) -> String {
    format!("INSERT INTO sbtest{table} (id, k, c, pad) VALUES ")
}

/// oltp_insert's statement on PostgreSQL with auto_inc, before its values.
pub fn insert_values_prefix_serial(table: u32) -> String {
    format!("INSERT INTO sbtest{table} (k, c, pad) VALUES ")
}

/// select_random_points keeps the Lua script's indentation and newlines.
pub fn random_points(points: u32) -> String {
    let marks = vec!["?"; points as usize].join(", ");
    format!("        SELECT id, k, c, pad\n          FROM sbtest1\n          WHERE k IN ({marks})\n        ")
}

pub fn random_ranges(ranges: u32) -> String {
    let preds = vec!["k BETWEEN ? AND ?"; ranges as usize].join(" OR ");
    format!("        SELECT count(k)\n          FROM sbtest1\n          WHERE {preds}")
}

/// sysbench's DDL for table `table`: MySQL's with its engine clause, or its pgsql driver's
/// (SERIAL for auto_inc, no engine clause: the Lua format's two empty fields leave two
/// spaces after the parenthesis).
pub fn create_table(table: u32, opts: &OltpOptions, dialect: Dialect) -> String {
    let id_def = if opts.auto_inc {
        dialect.serial_type(KeyWidth::Int)
    } else {
        "INTEGER NOT NULL"
    };
    let id_index = if opts.secondary {
        "KEY xid"
    } else {
        "PRIMARY KEY"
    };
    // After the parenthesis: sysbench's empty `mysql_table_options` after the engine.
    let tail = if dialect.takes_storage_engine() {
        format!(" /*! ENGINE = {} */ ", opts.mysql_storage_engine)
    } else {
        "  ".to_string()
    };
    format!(
        "CREATE TABLE sbtest{table}(\n  id {id_def},\n  k INTEGER DEFAULT '0' NOT NULL,\n  \
         c CHAR(120) DEFAULT '' NOT NULL,\n  pad CHAR(60) DEFAULT '' NOT NULL,\n  \
         {id_index} (id)\n){tail}"
    )
}

pub fn bulk_insert_prefix(table: u32, auto_inc: bool) -> String {
    if auto_inc {
        format!("INSERT INTO sbtest{table}(k, c, pad) VALUES")
    } else {
        format!("INSERT INTO sbtest{table}(id, k, c, pad) VALUES")
    }
}

pub fn create_k_index(table: u32) -> String {
    format!("CREATE INDEX k_{table} ON sbtest{table}(k)")
}

pub fn drop_table(table: u32) -> String {
    format!("DROP TABLE IF EXISTS sbtest{table}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ddl_has_sysbench_shape() {
        let ddl = create_table(3, &OltpOptions::default(), Dialect::mysql());
        assert_eq!(
            ddl,
            "CREATE TABLE sbtest3(\n  id INTEGER NOT NULL AUTO_INCREMENT,\n  k INTEGER DEFAULT '0' NOT NULL,\n  c CHAR(120) DEFAULT '' NOT NULL,\n  pad CHAR(60) DEFAULT '' NOT NULL,\n  PRIMARY KEY (id)\n) /*! ENGINE = innodb */ "
        );
        let ddl = create_table(
            1,
            &OltpOptions {
                auto_inc: false,
                secondary: true,
                ..Default::default()
            },
            Dialect::mysql(),
        );
        assert!(ddl.contains("id INTEGER NOT NULL,\n") && ddl.contains("KEY xid (id)"));
    }

    #[test]
    fn postgres_ddl_has_sysbench_pgsql_shape() {
        assert_eq!(
            create_table(2, &OltpOptions::default(), Dialect::postgres()),
            "CREATE TABLE sbtest2(\n  id SERIAL,\n  k INTEGER DEFAULT '0' NOT NULL,\n  c CHAR(120) DEFAULT '' NOT NULL,\n  pad CHAR(60) DEFAULT '' NOT NULL,\n  PRIMARY KEY (id)\n)  "
        );
    }

    #[test]
    fn random_select_texts_keep_the_script_layout() {
        assert_eq!(
            random_points(3),
            "        SELECT id, k, c, pad\n          FROM sbtest1\n          WHERE k IN (?, ?, ?)\n        "
        );
        assert_eq!(
            random_ranges(2),
            "        SELECT count(k)\n          FROM sbtest1\n          WHERE k BETWEEN ? AND ? OR k BETWEEN ? AND ?"
        );
    }
}
