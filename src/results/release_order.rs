//! Release order, the one rule every stage sorts releases by: by their numbers (`10.11.9`
//! before `10.11.18`, `9.6` before `10.0`), whatever follows them (`10.11.9-MariaDB`).

use std::cmp::Ordering;

/// The leading numbers of a version (`15.8.0` → 15, 8, 0; `10.11.9-MariaDB` → 10, 11, 9).
pub fn numbers(version: &str) -> Vec<u64> {
    version
        .split(|c: char| !c.is_ascii_digit())
        .take_while(|p| !p.is_empty())
        .map(|p| p.parse().unwrap_or(0))
        .collect()
}

/// Two versions in release order; the text decides between equal numbers.
pub fn order(a: &str, b: &str) -> Ordering {
    numbers(a).cmp(&numbers(b)).then_with(|| a.cmp(b))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cmp::Ordering::Less;

    #[test]
    fn releases_sort_by_number() {
        assert_eq!(order("10.11.9-MariaDB", "10.11.18-MariaDB"), Less);
        assert_eq!(order("15.3", "15.10"), Less);
        assert_eq!(order("9.6", "10.0"), Less);
        assert_eq!(order("17.2", "17.2.0"), Less);
        assert_eq!(numbers("15.5.1"), [15, 5, 1]);
    }
}
