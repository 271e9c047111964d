//! A file's bytes as text and back: the encodings a file may be in (UTF-8
//! with or without BOM, UTF-16, a legacy single- or multi-byte encoding,
//! bytes), its line endings, and the edit written back as the same kind of
//! bytes or refused ([`source`]); what a legacy encoding may and may not
//! take ([`legacy`]). Pure; above the printer, which words its refusals.

pub(crate) mod legacy;
pub(crate) mod source;
