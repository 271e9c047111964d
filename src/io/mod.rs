pub mod commit;
pub mod dir;
pub mod locks;
pub mod meta;
pub mod source;
pub mod state;
pub mod workspace;
