// Cost mode is run by the study; it must not reach back into it.
use crate::connection::Endpoint;
use crate::study::Plan;
