pub(crate) mod fields;
pub mod formats;
pub mod request;
