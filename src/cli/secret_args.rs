//! A password typed on the command line would stay readable in the process title
//! (/proc/PID/cmdline, `ps`) for the whole run. psbench moves it into its environment
//! (readable only by the same user) and re-executes itself without it, before doing anything.

use std::ffi::OsString;

/// The environment variable the CLI reads the password from.
pub const PASSWORD_ENV: &str = "PSBENCH_MYSQL_PASSWORD";

const FLAGS: &[&str] = &["--mysql-password", "--mysql_password"];

/// The arguments without the password, and the password, when one was given.
pub fn split_password(args: &[OsString]) -> Option<(Vec<OsString>, OsString)> {
    let mut out = Vec::with_capacity(args.len());
    let mut password = None;
    let mut i = 0;
    while i < args.len() {
        let a = args[i].to_string_lossy();
        if a == "--" {
            out.extend(args[i..].iter().cloned());
            break;
        }
        if let Some(v) = FLAGS.iter().find_map(|f| a.strip_prefix(&format!("{f}="))) {
            password = Some(OsString::from(v));
        } else if FLAGS.contains(&a.as_ref()) && i + 1 < args.len() {
            password = Some(args[i + 1].clone());
            i += 1;
        } else {
            out.push(args[i].clone());
        }
        i += 1;
    }
    password.map(|p| (out, p))
}

/// Re-execute without the password on the command line. Returns only when there was none
/// (or when re-executing failed, in which case the run goes on as it is).
pub fn scrub_password_from_process_title() {
    use std::os::unix::process::CommandExt;
    let args: Vec<OsString> = std::env::args_os().collect();
    let Some((clean, password)) = split_password(&args) else {
        return;
    };
    let Ok(exe) = std::env::current_exe() else {
        return;
    };
    // An empty password is no secret, and the child must see "given but empty" as such.
    let err = std::process::Command::new(exe)
        .arg0(&clean[0])
        .args(&clean[1..])
        .env(PASSWORD_ENV, password)
        .exec();
    eprintln!("psbench: warning: could not hide the password from the process list: {err}");
}

#[cfg(test)]
mod tests {
    use super::*;

    fn os(v: &[&str]) -> Vec<OsString> {
        v.iter().map(OsString::from).collect()
    }

    #[test]
    fn removes_both_spellings() {
        let (clean, pw) = split_password(&os(&[
            "psbench",
            "bench",
            "x",
            "--mysql-password=s3cr=t",
            "run",
        ]))
        .unwrap();
        assert_eq!(clean, os(&["psbench", "bench", "x", "run"]));
        assert_eq!(pw, "s3cr=t");
        let (clean, pw) =
            split_password(&os(&["psbench", "--mysql_password", "pw", "run"])).unwrap();
        assert_eq!(clean, os(&["psbench", "run"]));
        assert_eq!(pw, "pw");
        assert!(split_password(&os(&["psbench", "run", "--mysql-password-file", "f"])).is_none());
        assert!(split_password(&os(&["psbench", "--", "--mysql-password=x"])).is_none());
    }
}
