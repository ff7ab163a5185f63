//! PostgreSQL as a sandbox's server: its binary trees, its cluster (initialised once per
//! binary by initdb and copied per sandbox), its start-up arguments, who may reach it, and
//! whether the settings asked for took effect (read back from pg_settings).

pub mod binaries;
pub mod cluster;
pub mod launch;
pub mod secure;
pub mod settings;

/// The superuser initdb creates and psbench connects as.
pub const SUPERUSER: &str = "postgres";

/// Settings the sandbox sets itself; a variant may not move them.
pub const RESERVED: &[&str] = &[
    "data_directory",
    "config_file",
    "hba_file",
    "ident_file",
    "external_pid_file",
    "port",
    "listen_addresses",
    "unix_socket_directories",
    "unix_socket_permissions",
    "unix_socket_group",
    "logging_collector",
    "ssl",
];
