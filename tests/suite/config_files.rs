//! A variant's own my.cnf (`defaults_file`) or postgresql.conf (`config_file`): read as its
//! server reads it (its groups, includes), each setting passed and read back on the running
//! server, the sandbox's own settings and host paths kept the sandbox's and listed, and a
//! setting the server refuses named by its file and line.

use crate::common;

use common::{results, run_in as run, text};
use std::path::Path;

/// A one-variant study of point selects on 1,000 rows, its variant given `key = "FILE"`.
fn study(variant: &str) -> String {
    format!(
        r#"
name = "own-config"
threads = [1]
rounds = 1
duration = 1
warmup = 0.3
[dataset]
table_size = 1000
[[variant]]
name = "mine"
{variant}
[[workload]]
workload = "oltp_point_select"
"#
    )
}

fn write(dir: &Path, name: &str, body: &str) {
    std::fs::write(dir.join(name), body).unwrap();
}

/// my.cnf's lines: ten settings for the server in [mysqld], its own release's group and an
/// included [server]; the sandbox's own port and socket, a host path, and another program's
/// and another release's groups.
const MY_CNF: &str = "[client]\nport = 1\n\n[mysqld]\nport = 3306\n\
    socket = /run/mysqld/mysqld.sock\nmax_connections = 77\ntable_open_cache = 1000\n\
    slow_query_log_file = /var/log/mysql/slow.log\njoin_buffer_size = 512K\n\
    tmp_table_size = 32M\nmax_heap_table_size = 32M\ninnodb_lock_wait_timeout = 17\n\
    wait_timeout = 3600\nthread_cache_size = 12\n!include more.cnf\n\n\
    [mariadb-10.11]\ntable_open_cache = 1234\n\n[mysqld-8.0]\ntable_open_cache = 2345\n";

/// MY_CNF on the server `variant` names: its own release's group read (`group_line` sets
/// `table_open_cache` to `cache`), the ten settings read back, the overridden lines listed.
fn my_cnf_on(variant: &str, cache: &str, group_line: u32) {
    let tmp = common::tempdir().unwrap();
    let d = tmp.path();
    write(d, "my.cnf", MY_CNF);
    write(
        d,
        "more.cnf",
        "[server]\nsort-buffer-size = 1M\nread_buffer_size = 256K\n",
    );
    let o = run(
        d,
        &study(&format!("defaults_file = \"my.cnf\"\n{variant}")),
        &[],
    );
    assert!(o.status.success(), "{}", text(&o));
    let r = results(&d.join("out"));
    let v = &r["variants"]["mine"];
    let vars = &v["variables"];
    for (k, want) in [
        ("max_connections", "77"),
        ("table_open_cache", cache),
        ("join_buffer_size", "524288"),
        ("tmp_table_size", "33554432"),
        ("max_heap_table_size", "33554432"),
        ("innodb_lock_wait_timeout", "17"),
        ("wait_timeout", "3600"),
        ("thread_cache_size", "12"),
        ("sort_buffer_size", "1048576"),
        ("read_buffer_size", "262144"),
    ] {
        assert_eq!(vars[k], want, "{k}: {vars}");
    }
    assert_ne!(vars["port"], "3306", "{vars}");
    assert_ne!(
        vars["slow_query_log_file"], "/var/log/mysql/slow.log",
        "{vars}"
    );
    let f = &v["config_file"];
    assert_eq!(f["settings"], 10, "{f}");
    let overridden: Vec<&str> = f["overridden"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_str().unwrap())
        .collect();
    let cnf = d.join("my.cnf").display().to_string();
    let expected = [
        format!("{cnf}:5 port: the sandbox's own"),
        format!("{cnf}:6 socket: the sandbox's own"),
        format!("{cnf}:9 slow_query_log_file: a path on this host: the sandbox keeps its files in its own directory"),
        format!("{cnf}:8 table_open_cache: {cnf}:{group_line} sets it again"),
    ];
    for e in &expected {
        assert!(
            overridden.contains(&e.as_str()),
            "{e} not in {overridden:?}"
        );
    }
    assert_eq!(overridden.len(), expected.len(), "{overridden:?}");
    let md = std::fs::read_to_string(d.join("out/summary.md")).unwrap();
    assert!(md.contains(&format!("not passed: {cnf}:5 port")), "{md}");
}

#[test]
fn a_my_cnf_sets_what_its_server_groups_say_and_the_sandbox_keeps_its_own() {
    my_cnf_on("", "1234", 19);
}

#[test]
fn a_my_cnf_is_read_by_mysql_8_0_15_with_its_own_releases_group() {
    let Some(tree) = common::require::cached_release("mysql-8.0.15") else {
        return;
    };
    my_cnf_on(
        &format!("basedir = {:?}", tree.display().to_string()),
        "2345",
        22,
    );
}

#[test]
fn a_setting_the_server_refuses_names_the_file_and_line() {
    let tmp = common::tempdir().unwrap();
    let d = tmp.path();
    write(
        d,
        "bad.cnf",
        "[mysqld]\nmax_connections = 50\nno_such_setting = 1\n",
    );
    let o = run(d, &study("defaults_file = \"bad.cnf\""), &[]);
    let t = text(&o);
    assert_eq!(o.status.code(), Some(2), "{t}");
    let at = format!(
        "{}:3: the server refused no_such_setting=1",
        d.join("bad.cnf").display()
    );
    assert!(t.contains(&at), "{t}");
    assert!(
        !d.join("out").exists(),
        "a study refused at its first start leaves nothing: {t}"
    );
}

#[test]
fn a_config_file_mistake_is_found_at_plan() {
    let tmp = common::tempdir().unwrap();
    let d = tmp.path();
    let plan = |variant: &str| {
        let o = run(d, &study(variant), &["--plan"]);
        (o.status.code(), text(&o))
    };
    let (code, t) = plan("defaults_file = \"missing.cnf\"");
    assert_eq!(code, Some(2), "{t}");
    assert!(t.contains("line 11") && t.contains("missing.cnf"), "{t}");
    write(d, "quote.cnf", "[mysqld]\ninit_connect = \"SET x = 1\n");
    let (code, t) = plan("defaults_file = \"quote.cnf\"");
    assert_eq!(code, Some(2), "{t}");
    assert!(
        t.contains("quote.cnf:2: a quoted value without its closing \""),
        "{t}"
    );
    let (code, t) = plan("config_file = \"postgresql.conf\"");
    assert_eq!(code, Some(2), "{t}");
    assert!(
        t.contains("a MySQL or MariaDB variant names its my.cnf as defaults_file"),
        "{t}"
    );
    assert_eq!(t.lines().count(), 1, "{t}");
}

#[test]
fn a_postgresql_conf_is_read_with_its_includes_and_refusals_name_their_line() {
    let tmp = common::tempdir().unwrap();
    let d = tmp.path();
    std::fs::create_dir(d.join("conf.d")).unwrap();
    write(
        d,
        "postgresql.conf",
        "port = 5432\t# the host's\nwork_mem = '8MB'\ndata_directory = '/var/lib/postgresql/15/main'\n\
         include_dir 'conf.d'\ninclude_if_exists 'absent.conf'\n",
    );
    write(d, "conf.d/10-planner.conf", "random_page_cost = 1.5\n");
    let pg = "engine = \"postgres\"\nconfig_file = \"postgresql.conf\"";
    let o = run(d, &study(pg), &[]);
    assert!(o.status.success(), "{}", text(&o));
    let r = results(&d.join("out"));
    let v = &r["variants"]["mine"];
    assert_eq!(v["variables"]["random_page_cost"], "1.5", "{v}");
    assert_eq!(v["variables"]["work_mem"], "8192", "{v}");
    assert_ne!(v["variables"]["port"], "5432", "{v}");
    assert_eq!(v["config_file"]["settings"], 2, "{v}");
    let conf = d.join("postgresql.conf").display().to_string();
    let overridden = v["config_file"]["overridden"].to_string();
    assert!(
        overridden.contains(&format!("{conf}:1 port: the sandbox's own")),
        "{overridden}"
    );
    assert!(
        overridden.contains(&format!("{conf}:3 data_directory")),
        "{overridden}"
    );

    let bad = tmp.path().join("bad");
    std::fs::create_dir(&bad).unwrap();
    write(
        &bad,
        "postgresql.conf",
        "work_mem = '8MB'\nshared_bufers = '64MB'\n",
    );
    let o = run(&bad, &study(pg), &[]);
    let t = text(&o);
    assert_eq!(o.status.code(), Some(2), "{t}");
    let at = format!(
        "{}:2: the server refused shared_bufers=64MB",
        bad.join("postgresql.conf").display()
    );
    assert!(t.contains(&at), "{t}");
}
