'use strict'
// The workspace root of the MCP server and the CLI: PATCH_FILE_WORKSPACE_ROOT,
// else --root DIR, else the current directory. One rule for both front-ends.

const fs = require('node:fs')
const path = require('node:path')

const ENV = 'PATCH_FILE_WORKSPACE_ROOT'

/**
 * @param {string|undefined} flag  the --root value, if any
 * @returns {{root?: string, source: string, error?: string, warning?: string}}
 *   root is absolute; error says why it cannot be used.
 */
function resolveRoot(flag, env = process.env, cwd = process.cwd()) {
  let raw
  let source
  let warning
  if (env[ENV] !== undefined && env[ENV] !== '') {
    raw = env[ENV]
    source = ENV
    if (flag !== undefined && path.resolve(cwd, flag) !== path.resolve(cwd, raw)) {
      warning = `--root ${flag} is ignored: ${ENV} is set and takes precedence`
    }
  } else if (flag !== undefined) {
    raw = flag
    source = '--root'
  } else {
    raw = cwd
    source = 'current directory'
  }
  if (raw === '') return { source, error: `${source} is empty` }
  const root = path.resolve(cwd, raw)
  let st
  try {
    st = fs.statSync(root)
  } catch (err) {
    return { source, error: `workspace root ${root} (from ${source}) cannot be used: ${err.code || err.message}` }
  }
  if (!st.isDirectory()) return { source, error: `workspace root ${root} (from ${source}) is not a directory` }
  return { root, source, warning }
}

/**
 * The engine options of a front-end call: the root, plus what the environment
 * chooses for everything the server and CLI have no per-call option for.
 * PATCH_FILE_HARD_LINKS: refuse (default) | split | keep (the engine validates).
 * @param {string} root
 */
function engineOptions(root, env = process.env) {
  const options = { workspaceRoot: root }
  if (env.PATCH_FILE_HARD_LINKS) options.hardLinks = env.PATCH_FILE_HARD_LINKS
  return options
}

module.exports = { resolveRoot, engineOptions, ENV }
