pub(crate) mod formats;
pub(crate) mod request;
