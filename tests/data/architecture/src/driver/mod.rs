// A reference to a module that is not in the rule list.
use crate::telemetry::Span;
use crate::study::Study;
pub struct Run;
