//! The syntax guard: does the new text of a file parse where the old one
//! did? tree-sitter grammars compiled into the engine parse both texts
//! ([`grammar`] chooses one by extension, file name or `#!` line); the
//! errors of the new tree that the old tree did not have are the edit's
//! ([`errors`]); the C, C++ and C# grammars read a file with its
//! preprocessor lines blanked ([`preproc`]), and their errors count only
//! when a second reading, with macros and newer syntax read as a compiler
//! would, keeps them ([`reading`]), and so do TypeScript's and
//! JavaScript's where their grammars miss valid syntax ([`scripts`]); a `.json` file is read as strict JSON
//! first ([`json`]), which its grammar is not; [`verdict`] runs the check under a size
//! limit and a time budget, and [`parse`] keeps the trees so the next edit
//! of the same file parses incrementally.

#[cfg(test)]
mod cases;
mod depth;
mod errors;
#[cfg(test)]
mod fuzz;
mod grammar;
mod indent;
mod json;
mod lexing;
mod parse;
mod preproc;
mod reading;
#[cfg(test)]
mod samples;
mod scripts;
mod verdict;

pub use grammar::language;
pub(crate) use verdict::check_until;
pub use verdict::{check, parse_errors, BUDGET, MAX_BYTES};
