pub(crate) mod blocks;
pub(crate) mod exact;
pub(crate) mod guard;
pub(crate) mod locate;
pub(crate) mod many;
pub(crate) mod plan;
pub(crate) mod tolerant;
pub(crate) mod verify;
