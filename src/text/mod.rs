pub mod fold;
pub mod indent;
pub mod legacy;
pub mod source;
