pub mod blocks;
pub mod exact;
pub mod locate;
pub mod many;
pub mod tolerant;
pub mod verify;
