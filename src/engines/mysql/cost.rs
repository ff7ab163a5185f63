//! How cost mode runs a MariaDB or MySQL server: its work counted on the thread that serves
//! the measured connection (cost::ServingThread), and the InnoDB options it needs under
//! valgrind.

use crate::server::ServerOption;

/// Server options needed under valgrind (docs/cost-mode.md): io_uring hangs, and the default
/// 8 TB buffer-pool reservation cannot be mapped. A buffer pool the variant sizes itself stands
/// (its reservation sized to match); otherwise 64 MB, which cost mode's small tables fit.
pub fn valgrind_options(variant: &[ServerOption]) -> Vec<ServerOption> {
    let own = |key: &str| variant.iter().find(|o| o.base_key() == key);
    let mut v = vec![ServerOption::new("innodb_use_native_aio", "OFF")];
    let pool = match own("innodb_buffer_pool_size").and_then(|o| o.value.clone()) {
        Some(size) => size,
        None => {
            v.push(ServerOption::new("innodb_buffer_pool_size", "64M"));
            "64M".to_string()
        }
    };
    if own("innodb_buffer_pool_size_max").is_none() {
        v.push(ServerOption::new(
            "loose_innodb_buffer_pool_size_max",
            &pool,
        ));
    }
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shown(opts: &[ServerOption]) -> Vec<String> {
        opts.iter().map(|o| o.display()).collect()
    }

    #[test]
    fn a_buffer_pool_the_variant_sizes_stands_under_valgrind() {
        assert_eq!(
            shown(&valgrind_options(&[])),
            [
                "innodb_use_native_aio=OFF",
                "innodb_buffer_pool_size=64M",
                "loose_innodb_buffer_pool_size_max=64M"
            ]
        );
        let own = [ServerOption::parse("innodb_buffer_pool_size=2G").unwrap()];
        assert_eq!(
            shown(&valgrind_options(&own)),
            [
                "innodb_use_native_aio=OFF",
                "loose_innodb_buffer_pool_size_max=2G"
            ]
        );
    }
}
