//! Which grammar reads a file: by its extension, a few well-known file
//! names, and the `#!` line of a file that has neither. A file no grammar
//! claims is not checked, and nothing is said about it.
//!
//! The table is deliberately conservative: an extension maps to a grammar
//! only when that grammar parses the files people write under it. `.h`
//! is read as C++ (which parses C headers too, while the C grammar refuses
//! every C++ header); `.jsx` by the JavaScript grammar (it has JSX);
//! `.json` by the JSON grammar, but not the JSONC files (`tsconfig.json`,
//! `.vscode/settings.json`, `.jsonc`: trailing commas, which it refuses).
//! Dialects the grammars do not cover (`.scss`, `.zsh`, `.json5`, JSONC,
//! templates such as `.erb` or `.vue`) are left unchecked rather than
//! checked wrongly.

use tree_sitter::Language;

/// A language the engine has a grammar for: the published name is the
/// grammar's name, one vocabulary.
pub(crate) use crate::result::syntax::SyntaxLanguage as Grammar;

impl Grammar {
    /// The compiled grammar.
    pub(crate) fn language(self) -> Language {
        match self {
            Grammar::TypeScript => tree_sitter_typescript::LANGUAGE_TYPESCRIPT.into(),
            Grammar::Tsx => tree_sitter_typescript::LANGUAGE_TSX.into(),
            Grammar::JavaScript => tree_sitter_javascript::LANGUAGE.into(),
            Grammar::Python => tree_sitter_python::LANGUAGE.into(),
            Grammar::Rust => tree_sitter_rust::LANGUAGE.into(),
            Grammar::Go => tree_sitter_go::LANGUAGE.into(),
            Grammar::Java => tree_sitter_java::LANGUAGE.into(),
            Grammar::C => tree_sitter_c::LANGUAGE.into(),
            Grammar::Cpp => tree_sitter_cpp::LANGUAGE.into(),
            Grammar::CSharp => tree_sitter_c_sharp::LANGUAGE.into(),
            Grammar::Json => tree_sitter_json::LANGUAGE.into(),
            Grammar::Yaml => tree_sitter_yaml::LANGUAGE.into(),
            Grammar::Toml => tree_sitter_toml_ng::LANGUAGE.into(),
            Grammar::Html => tree_sitter_html::LANGUAGE.into(),
            Grammar::Css => tree_sitter_css::LANGUAGE.into(),
            Grammar::Bash => tree_sitter_bash::LANGUAGE.into(),
            Grammar::Ruby => tree_sitter_ruby::LANGUAGE.into(),
            Grammar::Php => tree_sitter_php::LANGUAGE_PHP.into(),
        }
    }

    /// Whether an edit of a file the grammar could not read before it is
    /// judged: not for C, C++ and C# (macros and conditionals the grammar
    /// does not expand) nor CSS (browser hacks such as `*display` or
    /// `_zoom`, whose recovery moves with every edit near them): on real
    /// history every report on such a file was false.
    pub(crate) fn judges_broken_files(self) -> bool {
        !matches!(
            self,
            Grammar::C | Grammar::Cpp | Grammar::CSharp | Grammar::Css
        )
    }

    /// Whether a new file is judged: not in C, C++ and C#, whose macros
    /// (`BOOLEAN WINAPI f()`) the grammar may not read.
    pub(crate) fn judges_new_files(self) -> bool {
        !matches!(self, Grammar::C | Grammar::Cpp | Grammar::CSharp)
    }

    /// The grammar of the file at `path` (as the caller wrote it), whose
    /// text starts with `head`; `None` when no grammar claims it.
    pub(crate) fn of(path: &str, head: &[u8]) -> Option<Grammar> {
        let name = path.rsplit(['/', '\\']).next().unwrap_or(path);
        if jsonc(path, name) {
            return None;
        }
        if let Some(g) = by_name(name) {
            return Some(g);
        }
        match name.rsplit_once('.') {
            Some((stem, ext)) if !stem.is_empty() => by_extension(&ext.to_ascii_lowercase()),
            _ => by_shebang(head),
        }
    }
}

/// The language the check reads the file `path` in, whose text starts
/// with `head`; `None` when it is not checked.
pub fn language(path: &str, head: &[u8]) -> Option<Grammar> {
    Grammar::of(path, head)
}

/// JSON with comments and trailing commas (JSONC), which the JSON grammar
/// refuses (`"a": 1,}`): `.jsonc`, TypeScript's and VS Code's files
/// (`tsconfig*.json`, `jsconfig*.json`, `.vscode/**/*.json`,
/// `devcontainer.json`), the configuration files of tools that read JSONC
/// (TSLint, Turborepo, Biome, Deno), and the `rc` files of Babel, ESLint
/// and Prettier (JSON5 or YAML as often as JSON). Left unchecked, as other
/// dialects.
fn jsonc(path: &str, name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    let json = lower.ends_with(".json");
    lower.ends_with(".jsonc")
        || lower.ends_with(".json5")
        || matches!(
            lower.as_str(),
            "devcontainer.json"
                | ".devcontainer.json"
                | ".babelrc"
                | ".eslintrc"
                | ".eslintrc.json"
                | ".prettierrc"
                | ".prettierrc.json"
                | "tslint.json"
                | "turbo.json"
                | "biome.json"
                | "deno.json"
        )
        || (json && (lower.starts_with("tsconfig") || lower.starts_with("jsconfig")))
        || (json && path.split(['/', '\\']).any(|c| c == ".vscode"))
}

/// Well-known file names without a telling extension.
fn by_name(name: &str) -> Option<Grammar> {
    Some(match name {
        "Gemfile" | "Rakefile" | "Guardfile" | "Vagrantfile" | "Podfile" | "Brewfile" => {
            Grammar::Ruby
        }
        ".bashrc" | ".bash_profile" | ".bash_logout" | ".profile" | "PKGBUILD" => Grammar::Bash,
        "Pipfile" | "Cargo.lock" | "uv.lock" | "poetry.lock" => Grammar::Toml,
        _ => return None,
    })
}

fn by_extension(ext: &str) -> Option<Grammar> {
    Some(match ext {
        "ts" | "mts" | "cts" => Grammar::TypeScript,
        "tsx" => Grammar::Tsx,
        "js" | "mjs" | "cjs" | "jsx" => Grammar::JavaScript,
        "py" | "pyi" | "pyw" => Grammar::Python,
        "rs" => Grammar::Rust,
        "go" => Grammar::Go,
        "java" => Grammar::Java,
        "c" => Grammar::C,
        "h" | "cc" | "cpp" | "cxx" | "c++" | "hh" | "hpp" | "hxx" | "h++" | "ipp" | "tpp"
        | "inl" => Grammar::Cpp,
        "cs" => Grammar::CSharp,
        "json" => Grammar::Json,
        "yaml" | "yml" => Grammar::Yaml,
        "toml" => Grammar::Toml,
        "html" | "htm" => Grammar::Html,
        "css" => Grammar::Css,
        "sh" | "bash" => Grammar::Bash,
        "rb" | "rake" | "gemspec" | "ru" => Grammar::Ruby,
        "php" | "phtml" => Grammar::Php,
        _ => return None,
    })
}

/// The interpreter a `#!` line names (`#!/usr/bin/env -S node --flag`
/// names `node`).
fn by_shebang(head: &[u8]) -> Option<Grammar> {
    let rest = head.strip_prefix(b"#!")?;
    let line = &rest[..memchr::memchr(b'\n', rest).unwrap_or(rest.len())];
    let line = std::str::from_utf8(line).ok()?;
    let mut words = line.split_whitespace();
    let mut prog = words.next()?.rsplit('/').next()?;
    if prog == "env" {
        prog = words.find(|w| !w.starts_with('-'))?;
    }
    let base = prog.trim_end_matches(|c: char| c.is_ascii_digit() || c == '.');
    Some(match base {
        "sh" | "bash" | "dash" => Grammar::Bash,
        "node" | "nodejs" | "bun" => Grammar::JavaScript,
        "deno" | "ts-node" | "tsx" => Grammar::TypeScript,
        "python" | "pypy" => Grammar::Python,
        "ruby" => Grammar::Ruby,
        "php" => Grammar::Php,
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn extensions_names_and_shebangs_choose_the_grammar() {
        assert_eq!(Grammar::of("src/a.ts", b""), Some(Grammar::TypeScript));
        assert_eq!(Grammar::of("C:\\x\\A.TSX", b""), Some(Grammar::Tsx));
        assert_eq!(Grammar::of("lib/x.h", b""), Some(Grammar::Cpp));
        assert_eq!(Grammar::of("Gemfile", b""), Some(Grammar::Ruby));
        assert_eq!(
            Grammar::of("bin/tool", b"#!/usr/bin/env python3\n"),
            Some(Grammar::Python)
        );
        assert_eq!(
            Grammar::of("bin/tool", b"#!/usr/bin/env -S node --x\n"),
            Some(Grammar::JavaScript)
        );
        assert_eq!(
            Grammar::of("run", b"#!/bin/sh\nset -e\n"),
            Some(Grammar::Bash)
        );
        assert_eq!(Grammar::of("notes.md", b"#!/bin/sh\n"), None);
        assert_eq!(Grammar::of("style.scss", b""), None);
        assert_eq!(Grammar::of(".gitignore", b""), None);
        assert_eq!(Grammar::of("bin/tool", b"#!/usr/bin/awk -f\n"), None);
        // JSON with comments and trailing commas, which the JSON grammar
        // refuses: not checked. Plain JSON is.
        assert_eq!(Grammar::of("package.json", b""), Some(Grammar::Json));
        assert_eq!(Grammar::of("data/tsconfig.json", b""), None);
        for jsonc in [
            "tsconfig.json",
            "app/tsconfig.build.json",
            "jsconfig.json",
            ".vscode/settings.json",
            "C:\\w\\.vscode\\launch.json",
            "x.jsonc",
            ".devcontainer/devcontainer.json",
            ".eslintrc",
            ".babelrc",
            ".eslintrc.json",
            "jsconfig.base.json",
            "turbo.json",
            "tslint.json",
            ".vscode/sub/x.json",
        ] {
            assert_eq!(Grammar::of(jsonc, b""), None, "{jsonc}");
        }
        assert_eq!(
            Grammar::of("vscode/settings.json", b""),
            Some(Grammar::Json)
        );
    }

    #[test]
    fn every_grammar_loads() {
        for &g in Grammar::ALL {
            let mut p = tree_sitter::Parser::new();
            p.set_language(&g.language())
                .unwrap_or_else(|e| panic!("{}: {e}", g.as_str()));
        }
    }
}
