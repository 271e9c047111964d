//! Reading a repository's history with the `git` command line: the
//! commits, the text files each changed, their contents before and after
//! (one `git cat-file --batch` process for every blob), and the commit's
//! diff as `git diff` prints it. The repository is this one, or the one
//! `PFT_REPLAY_REPO` names (a clone or a bare git directory), so the
//! replay can be measured on other projects' history.

use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

/// Files larger than this are left out (lock files of many megabytes say
/// nothing the smaller files do not, and cost time).
pub const MAX_FILE_BYTES: usize = 512 << 10;

pub struct Git {
    root: PathBuf,
    batch: Batch,
}

struct Batch {
    _child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
}

/// A text file a commit changed.
#[derive(Debug, Clone)]
pub struct Changed {
    /// `M`, `A` or `D`.
    pub status: char,
    pub path: String,
    /// Before (none for an added file) and after (none for a deleted one).
    pub old: Option<String>,
    pub new: Option<String>,
}

fn git(root: &Path, args: &[&str]) -> Option<String> {
    let out = Command::new("git")
        .arg("-C")
        .arg(root)
        .args(["-c", "core.quotepath=false", "-c", "color.ui=false"])
        .args(args)
        .stderr(Stdio::null())
        .output()
        .ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).into_owned())
}

impl Git {
    /// The repository `PFT_REPLAY_REPO` names, or the one holding the
    /// crate (its root), when its history is there: `git` runs, the clone is not
    /// shallow, and it has more than one commit.
    pub fn open() -> Option<Git> {
        let root = std::env::var_os("PFT_REPLAY_REPO")
            .map(PathBuf::from)
            .unwrap_or_else(|| {
                // The repository's root: the crate is `core/` in it.
                let krate = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
                krate.parent().map_or(krate.clone(), PathBuf::from)
            });
        Git::at(root)
    }

    /// The repository at `root` (a work tree or a git directory).
    pub fn at(root: PathBuf) -> Option<Git> {
        if git(&root, &["rev-parse", "--is-shallow-repository"])?.trim() != "false" {
            return None;
        }
        let mut child = Command::new("git")
            .arg("-C")
            .arg(&root)
            .args(["cat-file", "--batch"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .ok()?;
        let batch = Batch {
            stdin: child.stdin.take()?,
            stdout: BufReader::new(child.stdout.take()?),
            _child: child,
        };
        let g = Git { root, batch };
        (g.commits(None).len() > 1).then_some(g)
    }

    /// Commits with one parent, oldest first, up to `last` (default HEAD).
    pub fn commits(&self, last: Option<&str>) -> Vec<String> {
        let head = last.unwrap_or("HEAD");
        git(
            &self.root,
            &[
                "rev-list",
                "--reverse",
                "--no-merges",
                "--min-parents=1",
                head,
            ],
        )
        .unwrap_or_default()
        .lines()
        .map(str::to_string)
        .collect()
    }

    /// A blob's bytes (`rev:path`), or `None` when it does not exist.
    fn blob(&mut self, spec: &str) -> Option<Vec<u8>> {
        writeln!(self.batch.stdin, "{spec}").ok()?;
        self.batch.stdin.flush().ok()?;
        let mut header = String::new();
        self.batch.stdout.read_line(&mut header).ok()?;
        let mut parts = header.split_whitespace();
        let (_, kind, size) = (parts.next()?, parts.next()?, parts.next()?);
        if kind != "blob" {
            return None;
        }
        let size: usize = size.parse().ok()?;
        let mut buf = vec![0u8; size + 1];
        self.batch.stdout.read_exact(&mut buf).ok()?;
        buf.pop();
        Some(buf)
    }

    /// The text files `commit` changed (UTF-8, at most [`MAX_FILE_BYTES`]),
    /// with their contents.
    pub fn changed(&mut self, commit: &str) -> Vec<Changed> {
        let stat = git(
            &self.root,
            &[
                "diff-tree",
                "-r",
                "--no-commit-id",
                "--no-renames",
                "--numstat",
                "-z",
                "--root",
                commit,
            ],
        )
        .unwrap_or_default();
        let names = git(
            &self.root,
            &[
                "diff-tree",
                "-r",
                "--no-commit-id",
                "--no-renames",
                "--name-status",
                "-z",
                "--root",
                commit,
            ],
        )
        .unwrap_or_default();
        let binary: Vec<&str> = stat
            .split('\0')
            .filter(|e| e.starts_with("-\t-\t"))
            .map(|e| &e[4..])
            .collect();
        let fields: Vec<&str> = names.split('\0').filter(|s| !s.is_empty()).collect();
        let mut out = Vec::new();
        for pair in fields.chunks(2) {
            let [status, path] = pair else { continue };
            let status = status.chars().next().unwrap_or('?');
            if !matches!(status, 'M' | 'A' | 'D') || binary.contains(path) {
                continue;
            }
            let text = |b: Option<Vec<u8>>| {
                b.filter(|b| b.len() <= MAX_FILE_BYTES)
                    .and_then(|b| String::from_utf8(b).ok())
            };
            let old = (status != 'A')
                .then(|| text(self.blob(&format!("{commit}^:{path}"))))
                .flatten();
            let new = (status != 'D')
                .then(|| text(self.blob(&format!("{commit}:{path}"))))
                .flatten();
            let whole = match status {
                'M' => old.is_some() && new.is_some(),
                'A' => new.is_some(),
                _ => old.is_some(),
            };
            if whole {
                out.push(Changed {
                    status,
                    path: path.to_string(),
                    old,
                    new,
                });
            }
        }
        out
    }

    /// `commit`'s diff of `paths`, as `git diff` prints it.
    pub fn diff(&self, commit: &str, paths: &[&str]) -> String {
        let parent = format!("{commit}^");
        let mut args = vec![
            "-c",
            "diff.noprefix=false",
            "-c",
            "diff.mnemonicPrefix=false",
            "diff",
            "--no-ext-diff",
            "--no-textconv",
            "--no-renames",
            "--src-prefix=a/",
            "--dst-prefix=b/",
            parent.as_str(),
            commit,
            "--",
        ];
        args.extend_from_slice(paths);
        git(&self.root, &args).unwrap_or_default()
    }
}
