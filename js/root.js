'use strict'
// The workspace root of the MCP server and the CLI: --root DIR, else
// PATCH_FILE_WORKSPACE_ROOT, else (the CLI's commands) the nearest enclosing
// git work tree, else the current directory. An explicit flag beats the
// environment, as command-line tools do; a variable that differs from the
// flag earns a warning. One rule for both front-ends, and the same meaning the
// engine gives `options.workspaceRoot` in the JS API:
//
// - The string is resolved physically, as the kernel would: relative to the
//   current directory, symlinks followed, and a `..` after a symlink goes to
//   the parent of where the link leads (realpath(3)), never lexically
//   (`a/link/..` is not `a`). The engine's Workspace::open canonicalizes the
//   same way, so a root string sandboxes the same directory in all three.
// - The front-ends resolve it once, at start, and hand the engine that real
//   path on every call: retargeting a symlink named as the root (or one of
//   its ancestors) afterwards does not move a running server. (The engine
//   re-opens the root per call; a directory handle cannot cross the napi
//   boundary, so the resolved real path stands in for one: it contains no
//   symlink to retarget.)
// - The CLI run from a subdirectory of a project edits, journals and undoes
//   in the project's one journal: without a flag or variable its root is the
//   nearest directory at or above the current one that holds `.git` (a
//   directory, or a file as in a git worktree or submodule), as git-aware
//   tools find their project; outside any work tree, the current directory.
// - `/` as the root works but earns a warning.

const fs = require('node:fs')
const path = require('node:path')

const ENV = 'PATCH_FILE_WORKSPACE_ROOT'

/** Errors that mean the root string names nothing usable (a usage error, CLI exit 2); any other is an I/O error (exit 3). */
const NOT_THERE = new Set(['ENOENT', 'ENOTDIR', 'ENAMETOOLONG', 'EINVAL', 'ERR_INVALID_ARG_VALUE', 'ERR_INVALID_ARG_TYPE'])

/**
 * `raw` made absolute against `cwd` without normalizing it (path.resolve
 * would drop `x/..` lexically), then resolved by realpath(3).
 * @throws the fs error
 */
function physical(raw, cwd) {
  const joined = path.isAbsolute(raw) ? raw : cwd.endsWith(path.sep) ? cwd + raw : cwd + path.sep + raw
  return fs.realpathSync.native(joined)
}

/** The warning for a root that is a file-system root (`/`, or a drive root on Windows). */
function rootWarning(root) {
  return `the workspace root is ${root} (the whole file system): any file this user can write can be edited; set ${ENV} or --root to a project directory`
}

/**
 * @param {string|undefined} flag  the --root value, if any
 * @returns {{root?: string, given?: string, source: string, error?: string, errorKind?: 'usage'|'io', warnings: string[]}}
 *   root is the real path (absolute, no symlinks); given is the string it came from;
 *   error says why it cannot be used, errorKind whether that is bad input or an I/O error.
 */
function resolveRoot(flag, env = process.env, cwd = process.cwd(), { gitRoot = false } = {}) {
  let raw
  let source
  const warnings = []
  const fromEnv = env[ENV] !== undefined && env[ENV] !== ''
  if (flag !== undefined) {
    raw = flag
    source = '--root'
  } else if (fromEnv) {
    raw = env[ENV]
    source = ENV
  } else {
    const work = gitRoot ? workTree(cwd) : null
    raw = work || cwd
    source = work ? 'the enclosing git work tree' : 'current directory'
  }
  if (raw === '') return { source, error: `${source} is empty`, errorKind: 'usage', warnings }
  let root
  try {
    root = physical(raw, cwd)
  } catch (err) {
    const code = err.code || err.message
    const shown = path.isAbsolute(raw) ? raw : `${raw} (in ${cwd})`
    if (NOT_THERE.has(err.code)) {
      const why = err.code === 'ENOENT' ? 'it does not exist' : err.code === 'ENOTDIR' ? 'a component is not a directory' : 'its path is invalid'
      return { source, error: `workspace root ${shown} (from ${source}) cannot be used: ${why} (${code})`, errorKind: 'usage', warnings }
    }
    return { source, error: `workspace root ${shown} (from ${source}) cannot be opened: ${err.message}`, errorKind: 'io', warnings }
  }
  let st
  try {
    st = fs.statSync(root)
  } catch (err) {
    return { source, error: `workspace root ${root} (from ${source}) cannot be opened: ${err.message}`, errorKind: 'io', warnings }
  }
  if (!st.isDirectory()) return { source, error: `workspace root ${root} (from ${source}) is not a directory`, errorKind: 'usage', warnings }
  if (source === '--root' && fromEnv) {
    let other
    try {
      other = physical(env[ENV], cwd)
    } catch {
      other = undefined
    }
    if (other !== root) warnings.push(`${ENV}=${env[ENV]} is ignored: --root is given and takes precedence`)
  }
  if (root === path.parse(root).root) warnings.push(rootWarning(root))
  return { root, given: raw, source, warnings }
}

/** Whether `p` (absolute, normalized) is `root` or lies beneath it. */
function beneath(p, root) {
  if (p === root) return true
  const withSep = root.endsWith(path.sep) ? root : root + path.sep
  return p.startsWith(withSep)
}

/** The nearest directory at or above `cwd` holding `.git` (directory or file), resolved; null outside a work tree. */
function workTree(cwd) {
  let dir
  try {
    dir = physical(cwd, cwd)
  } catch {
    return null
  }
  for (;;) {
    try {
      const st = fs.statSync(path.join(dir, '.git'))
      if (st.isDirectory() || st.isFile()) return dir
    } catch {
      // not here: go up
    }
    const up = path.dirname(dir)
    if (up === dir) return null
    dir = up
  }
}

/**
 * The engine options of a front-end call: the root, plus what the environment
 * chooses for everything the server and CLI have no per-call option for.
 * PATCH_FILE_HARD_LINKS: refuse (default) | split | keep (the engine validates).
 * PATCH_FILE_ELISIONS: expand (default) | literal (the engine validates).
 * PATCH_FILE_SYNTAX: warn (default) | refuse | off (the engine validates); `--syntax` sets it.
 * @param {string} root  the resolved root (resolveRoot's root)
 */
function engineOptions(root, env = process.env) {
  const options = { workspaceRoot: root }
  if (env.PATCH_FILE_HARD_LINKS) options.hardLinks = env.PATCH_FILE_HARD_LINKS
  if (env.PATCH_FILE_ELISIONS) options.elisions = env.PATCH_FILE_ELISIONS
  if (env.PATCH_FILE_SYNTAX) options.syntax = env.PATCH_FILE_SYNTAX
  return options
}

module.exports = { resolveRoot, engineOptions, rootWarning, physical, workTree, beneath, ENV }
