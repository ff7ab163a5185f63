//! What a study measures in which mode: `throughput_workloads` and `cost_workloads` name
//! workload entries, `full_only` variants wait for `--full`. Checked when the file is read,
//! so that a study never runs a workload neither mode measures.

use crate::results::study::{Mode, Study};

impl Study {
    pub(super) fn check_selections(&self) -> Result<(), String> {
        if let Some(tw) = &self.throughput_workloads {
            for n in tw {
                if !self.workloads.iter().any(|w| &w.label() == n) {
                    return Err(format!(
                        "throughput_workloads names '{n}', which is no workload entry (it has: {})",
                        self.workloads
                            .iter()
                            .map(|w| w.label())
                            .collect::<Vec<_>>()
                            .join(", ")
                    ));
                }
            }
        }
        for w in &self.workloads {
            let label = w.label();
            let throughput = self.mode != Mode::Cost && self.throughput_selects(&label);
            let cost = self.mode != Mode::Throughput && self.cost_measures(w);
            if !throughput && !cost {
                return Err(format!(
                    "workload '{label}' is measured in neither mode: name it in throughput_workloads or cost_workloads"
                ));
            }
        }
        if let Some(b) = &self.base {
            if self.variants.iter().any(|v| &v.name == b && v.full_only) {
                return Err(format!(
                    "base = '{b}' is full_only: the base runs in every run"
                ));
            }
        }
        if let Some(v) = self
            .variants
            .iter()
            .find(|v| v.means.as_deref().is_some_and(|m| m.trim().is_empty()))
        {
            return Err(format!("variant '{}': means is empty", v.name));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::super::file::parse;

    const VARIANTS: &str = r#"
[[variant]]
name = "a"
[[variant]]
name = "b"
"#;

    fn study(head: &str) -> Result<super::Study, String> {
        let text = format!(
            "name = \"t\"\n{head}\n{VARIANTS}\n[[workload]]\nworkload = \"oltp_point_select\"\n[[workload]]\nworkload = \"oltp_read_only\"\n"
        );
        parse(&text, "t.toml").map_err(|e| e.to_string())
    }

    #[test]
    fn throughput_workloads_select_entries_and_name_what_is_wrong() {
        let s = study("mode = \"both\"\nthroughput_workloads = [\"read_only\"]\ncost_workloads = [\"point_select\"]").unwrap();
        assert!(s.throughput_selects("read_only"));
        assert!(!s.throughput_selects("point_select"));
        assert_eq!(s.throughput_cells(), vec![("read_only".to_string(), 1)]);
        let e = study("throughput_workloads = [\"nope\"]").unwrap_err();
        assert!(e.contains("'nope', which is no workload entry"), "{e}");
        // read_only would be measured by neither mode.
        let e = study("mode = \"both\"\nthroughput_workloads = [\"point_select\"]\ncost_workloads = [\"point_select\"]").unwrap_err();
        assert!(e.contains("'read_only' is measured in neither mode"), "{e}");
        // In throughput mode, cost_workloads does not measure anything.
        let e = study("throughput_workloads = [\"point_select\"]").unwrap_err();
        assert!(e.contains("'read_only'"), "{e}");
    }

    #[test]
    fn the_base_cannot_wait_for_full() {
        let text = "name = \"t\"\nbase = \"a\"\n[[variant]]\nname = \"a\"\nfull_only = true\n[[variant]]\nname = \"b\"\n[[workload]]\nworkload = \"oltp_point_select\"\n";
        let e = parse(text, "t.toml").unwrap_err().to_string();
        assert!(e.contains("base = 'a' is full_only"), "{e}");
    }
}
