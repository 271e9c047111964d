pub mod fold;
pub mod indent;
pub mod source;
