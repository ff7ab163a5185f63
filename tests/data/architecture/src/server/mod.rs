pub struct Endpoint;
pub fn free_port() -> u16 { 0 }

#[cfg(test)]
mod tests {
    // Inside an inline module, `super` is this file and `super::super` the crate root.
    use super::*;
    fn t() {
        super::free_port();
        let _ = super::super::study::Study::default();
    }
}
