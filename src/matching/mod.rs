pub mod blocks;
pub mod exact;
pub mod guard;
pub mod locate;
pub mod many;
pub mod plan;
pub mod tolerant;
pub mod verify;
