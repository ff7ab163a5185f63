//! A password typed on the command line would stay readable in the process title
//! (/proc/PID/cmdline, `ps`) for the whole run. psbench moves it into its environment
//! (readable only by the same user) and re-executes itself without it, before doing anything.

use std::ffi::OsString;

/// Each password option, in both spellings, and the environment variable the CLI reads it
/// from instead.
const SECRETS: &[(&[&str], &str)] = &[
    (
        &["--mysql-password", "--mysql_password"],
        "PSBENCH_MYSQL_PASSWORD",
    ),
    (
        &["--pgsql-password", "--pgsql_password"],
        "PSBENCH_PGSQL_PASSWORD",
    ),
];

/// A password taken off the command line, with the environment variable that carries it.
type Moved = (&'static str, OsString);

/// The arguments without the passwords, and each password with its environment variable,
/// when any was given.
pub fn split_password(args: &[OsString]) -> Option<(Vec<OsString>, Vec<Moved>)> {
    let mut out = Vec::with_capacity(args.len());
    let mut found = Vec::new();
    let mut i = 0;
    while i < args.len() {
        let a = args[i].to_string_lossy();
        if a == "--" {
            out.extend(args[i..].iter().cloned());
            break;
        }
        let given = SECRETS.iter().find_map(|(flags, env)| {
            flags.iter().find_map(|f| {
                if let Some(v) = a.strip_prefix(&format!("{f}=")) {
                    Some((*env, OsString::from(v), 0))
                } else if a == *f && i + 1 < args.len() {
                    Some((*env, args[i + 1].clone(), 1))
                } else {
                    None
                }
            })
        });
        match given {
            Some((env, value, skip)) => {
                found.push((env, value));
                i += skip;
            }
            None => out.push(args[i].clone()),
        }
        i += 1;
    }
    (!found.is_empty()).then_some((out, found))
}

/// Re-execute without the passwords on the command line. Returns only when there were none
/// (or when re-executing failed, in which case the run goes on as it is).
pub fn scrub_password_from_process_title() {
    use std::os::unix::process::CommandExt;
    let args: Vec<OsString> = std::env::args_os().collect();
    let Some((clean, passwords)) = split_password(&args) else {
        return;
    };
    let Ok(exe) = std::env::current_exe() else {
        return;
    };
    // An empty password is no secret, and the child must see "given but empty" as such.
    let mut cmd = std::process::Command::new(exe);
    cmd.arg0(&clean[0]).args(&clean[1..]);
    for (env, value) in passwords {
        cmd.env(env, value);
    }
    let err = cmd.exec();
    eprintln!("psbench: warning: could not hide the password from the process list: {err}");
}

#[cfg(test)]
mod tests {
    use super::*;

    fn os(v: &[&str]) -> Vec<OsString> {
        v.iter().map(OsString::from).collect()
    }

    #[test]
    fn removes_both_spellings_of_both_engines() {
        let (clean, pw) = split_password(&os(&[
            "psbench",
            "bench",
            "x",
            "--mysql-password=s3cr=t",
            "run",
        ]))
        .unwrap();
        assert_eq!(clean, os(&["psbench", "bench", "x", "run"]));
        assert_eq!(
            pw,
            vec![("PSBENCH_MYSQL_PASSWORD", OsString::from("s3cr=t"))]
        );
        let (clean, pw) =
            split_password(&os(&["psbench", "--mysql_password", "pw", "run"])).unwrap();
        assert_eq!(clean, os(&["psbench", "run"]));
        assert_eq!(pw[0].1, "pw");
        let (clean, pw) = split_password(&os(&[
            "psbench",
            "--pgsql-password",
            "pg1",
            "--pgsql_password=pg2",
        ]))
        .unwrap();
        assert_eq!(clean, os(&["psbench"]));
        assert_eq!(
            pw,
            vec![
                ("PSBENCH_PGSQL_PASSWORD", OsString::from("pg1")),
                ("PSBENCH_PGSQL_PASSWORD", OsString::from("pg2"))
            ]
        );
        assert!(split_password(&os(&["psbench", "run", "--mysql-password-file", "f"])).is_none());
        assert!(split_password(&os(&["psbench", "--", "--mysql-password=x"])).is_none());
    }
}
