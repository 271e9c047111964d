pub mod formats;
pub mod request;
