pub(crate) mod fields;
pub(crate) mod formats;
pub(crate) mod request;
