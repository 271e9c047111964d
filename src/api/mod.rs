pub mod edit_file;
pub mod text_editor;
