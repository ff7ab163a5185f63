use crate::report::a::A;
use crate::{
    stats::{self, Summary},
    results::{document::Document as Doc, *},
    ibench::{buckets::{Bucket, Span}},
};
pub struct B;
