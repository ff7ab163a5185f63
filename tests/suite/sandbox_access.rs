//! Who can reach a sandbox: another local user gets in over TCP with no account, with or
//! without a (wrong) password, and cannot reach its socket; its owner gets in through the
//! printed connect command; the server runs unprivileged and touches files in its own
//! directory only.

use crate::common;

use common::{psbench, text};
use psbench::server::{Home, SandboxState};
use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::{Command, Output};

/// Stops the sandbox by name when the test ends, however it ends.
struct Stop<'a>(&'a Path);

impl Drop for Stop<'_> {
    fn drop(&mut self) {
        let _ = psbench(self.0).args(["sandbox", "stop", "sec1"]).output();
    }
}

/// `mariadb ARGS` run as the unprivileged user `nobody`.
fn as_nobody(args: &[&str]) -> Output {
    let mut c = Command::new("mariadb");
    c.arg("--no-defaults").args(args).current_dir("/");
    common::as_nobody(&mut c).output().unwrap()
}

fn sql_as_owner(connect: &str, query: &str) -> String {
    let o = Command::new("sh")
        .arg("-c")
        .arg(format!("{connect} -N -B -e \"{query}\""))
        .output()
        .unwrap();
    assert!(o.status.success(), "{connect}: {}", text(&o));
    String::from_utf8_lossy(&o.stdout).trim().to_string()
}

#[test]
fn other_local_users_get_nothing_and_the_owner_gets_in() {
    let home = common::tempdir().unwrap();
    let o = psbench(home.path())
        .args(["sandbox", "start", "--name", "sec1"])
        .output()
        .unwrap();
    let _stop = Stop(home.path());
    let out = text(&o);
    assert!(o.status.success(), "{out}");
    let st = SandboxState::load(&Home::new(home.path()).sandbox_dir("sec1")).unwrap();
    let port = st.port.to_string();

    // The printed connect command reads the password from a file, never the command line.
    let connect = out
        .lines()
        .find_map(|l| l.trim().strip_prefix("connect "))
        .and_then(|l| l.split("   ").next())
        .unwrap_or_else(|| panic!("no connect line: {out}"))
        .to_string();
    assert!(connect.contains("--defaults-file="), "{connect}");
    let pw = std::fs::read_to_string(st.client_defaults()).unwrap();
    let pw = pw
        .lines()
        .find_map(|l| l.strip_prefix("password="))
        .unwrap();
    assert!(pw.len() >= 20 && !out.contains(pw), "{out}");
    let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode(&st.client_defaults()), 0o600);
    assert_eq!(mode(&st.dir), 0o700);

    // The owner gets in over TCP as root; files go to the sandbox's own directory only.
    let who = sql_as_owner(&connect, "SELECT CURRENT_USER(), @@secure_file_priv");
    let files = st.dir.join("files");
    assert!(
        who.starts_with("root@127.0.0.1") && who.contains(files.to_str().unwrap()),
        "{who}"
    );
    assert_eq!(
        sql_as_owner(&connect, "SELECT LOAD_FILE('/etc/hostname') IS NULL"),
        "1"
    );
    let inside = files.join("note.txt");
    std::fs::write(&inside, "inside").unwrap();
    std::fs::set_permissions(&inside, std::fs::Permissions::from_mode(0o644)).unwrap();
    assert_eq!(
        sql_as_owner(
            &connect,
            &format!("SELECT LOAD_FILE('{}')", inside.display())
        ),
        "inside"
    );

    if !common::require::root("the other-user checks (they drop privileges)") {
        return;
    }
    // The server does not run as root.
    let status =
        std::fs::read_to_string(format!("/proc/{}/status", st.process.unwrap().pid)).unwrap();
    let uid = status
        .lines()
        .find_map(|l| l.strip_prefix("Uid:"))
        .and_then(|l| l.split_whitespace().next())
        .unwrap();
    assert_ne!(uid, "0", "the server runs as root");
    // psbench's own account, as every engine's server does (not Debian's `mysql`).
    let own = nix::unistd::User::from_name(psbench::server::account::SERVER_USER)
        .unwrap()
        .expect("setup creates the server account");
    assert_eq!(uid, own.uid.to_string(), "the server runs as uid {uid}");

    // As nobody: every account, no password or a wrong one, over TCP; then the socket.
    let tcp = ["--protocol=tcp", "-h127.0.0.1", "-P", &port];
    for user in ["root", "mysql", "mariadb.sys", "nobody", "no_such_user"] {
        for password in [None, Some("-pwrong")] {
            let mut args: Vec<&str> = tcp.to_vec();
            args.extend(["-u", user]);
            args.extend(password);
            args.extend(["-e", "SELECT CURRENT_USER()"]);
            let o = as_nobody(&args);
            assert!(
                !o.status.success() && text(&o).contains("Access denied"),
                "nobody got in as '{user}' ({password:?}): {}",
                text(&o)
            );
        }
    }
    let o = as_nobody(&[
        "-uroot",
        "-S",
        st.socket.to_str().unwrap(),
        "-e",
        "SELECT 1",
    ]);
    assert!(
        !o.status.success(),
        "nobody reached the socket: {}",
        text(&o)
    );
    assert!(
        std::fs::metadata(&st.socket).is_ok(),
        "the socket exists, for its owner"
    );
}
