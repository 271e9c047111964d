pub mod exact;
pub mod locate;
pub mod tolerant;
