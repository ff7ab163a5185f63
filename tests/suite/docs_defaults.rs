//! The defaults the documents state, against the values the code uses: a study file's
//! `schedule`, `rounds`, `duration`, `warmup`, `threads` and `threshold` as docs/study-file.md's
//! key table gives them, and the sandbox's buffer pool, flush setting, connections and rows as
//! docs/study-file.md, docs/sandboxes.md and the README's own study say them. A default
//! changed in the code, or in one page only, fails here.

use psbench::results::Flavour;
use psbench::study::file::parse;

const STUDY_FILE: &str = include_str!("../../docs/study-file.md");
const SANDBOXES: &str = include_str!("../../docs/sandboxes.md");
const README: &str = include_str!("../../README.md");

/// The default column of `key`'s row in the first key table that has it.
fn documented(key: &str) -> String {
    let head = format!("| `{key}` |");
    let row = STUDY_FILE
        .lines()
        .find(|l| l.starts_with(&head))
        .unwrap_or_else(|| panic!("docs/study-file.md has no row for `{key}`"));
    let cells: Vec<&str> = row.split(" | ").collect();
    cells[2].trim().to_string()
}

/// A study that sets nothing it need not.
fn bare() -> psbench::results::study::Study {
    let text = "name = \"bare\"\n[[variant]]\nname = \"a\"\n[[workload]]\nworkload = \"oltp_point_select\"\n";
    parse(text, "bare.toml").unwrap()
}

/// A number as the key table writes it: 10, 0.05, 2.
fn shown(x: f64) -> String {
    let s = format!("{x}");
    s.trim_end_matches(".0").to_string()
}

#[test]
fn the_study_files_documented_defaults_are_the_codes() {
    let s = bare();
    let schedule = serde_json::to_value(s.schedule).unwrap();
    assert_eq!(documented("schedule"), format!("`{schedule}`"));
    assert_eq!(documented("rounds"), s.rounds.to_string());
    assert_eq!(documented("duration"), shown(s.duration));
    assert_eq!(documented("warmup"), shown(s.warmup));
    assert_eq!(documented("threshold"), shown(s.threshold));
    let threads: Vec<String> = s.threads.iter().map(u32::to_string).collect();
    assert_eq!(documented("threads"), format!("`[{}]`", threads.join(", ")));
    let (tables, rows) = s.dataset_size();
    assert!(
        documented("table_size").starts_with(&thousands(rows)),
        "{}",
        documented("table_size")
    );
    assert!(documented("tables").starts_with(&tables.to_string()));
    assert!(
        documented("[dataset]").contains(&format!("{tables} table × {} rows", thousands(rows))),
        "{}",
        documented("[dataset]")
    );
    // The README's walk through a first study says the same.
    assert!(README.contains(&format!(
        "the data is {tables} table of {} rows",
        thousands(rows)
    )));
    assert!(README.contains(&format!("**Rounds**: {} by default", s.rounds)));
    assert!(README.contains(&format!("`{schedule}` (the default)")));
}

fn thousands(n: u32) -> String {
    let d = n.to_string();
    let mut out = String::new();
    for (i, c) in d.chars().enumerate() {
        if i > 0 && (d.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[test]
fn the_sandbox_defaults_the_pages_state_are_the_codes() {
    let opts = psbench::engines::mysql::options::defaults(Flavour::MySql);
    let value = |k: &str| {
        opts.iter()
            .find(|o| o.base_key() == k)
            .and_then(|o| o.value.clone())
            .unwrap_or_else(|| panic!("no {k} among the sandbox's defaults"))
    };
    let pool = value("innodb_buffer_pool_size");
    let flush = format!(
        "innodb_flush_log_at_trx_commit={}",
        value("innodb_flush_log_at_trx_commit")
    );
    let conns = value("max_connections");
    for (page, text) in [
        ("docs/study-file.md", STUDY_FILE),
        ("docs/sandboxes.md", SANDBOXES),
    ] {
        let said = format!("({pool} buffer pool, `{flush}`,\n`max_connections={conns}`");
        let said_wrapped = format!("({pool} buffer pool, `{flush}`,");
        assert!(
            text.contains(&said) || text.contains(&said_wrapped),
            "{page} does not state the sandbox's defaults as {said}"
        );
        assert!(
            text.contains(&format!("`max_connections={conns}`")),
            "{page}"
        );
    }
    assert!(
        README.contains(&format!("a {pool} buffer pool,\n`{flush}`")),
        "README"
    );
    assert!(README.contains(&format!("{conns} connections")), "README");
}
