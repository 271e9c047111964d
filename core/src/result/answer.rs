//! A success or a failure, as layers return it and as JSON has it.

use schemars::JsonSchema;
use serde::Serialize;

use super::failure::Failed;

/// What a layer answers: its typed success, or the failure (boxed: a
/// failure carries many optional details and is moved rarely).
pub type Outcome<T> = Result<T, Box<Failed>>;

/// A result as JSON has it: the success or the failure, told apart by `ok`.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[serde(untagged)]
#[schemars(inline)]
pub enum Answer<T> {
    Done(T),
    Failed(Box<Failed>),
}

impl<T> From<Outcome<T>> for Answer<T> {
    fn from(o: Outcome<T>) -> Self {
        match o {
            Ok(t) => Answer::Done(t),
            Err(f) => Answer::Failed(f),
        }
    }
}

impl From<crate::error::Failure> for Box<Failed> {
    fn from(f: crate::error::Failure) -> Self {
        Box::new(Failed::from(f))
    }
}
