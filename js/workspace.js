'use strict'
// The workspace roots of the MCP server and which one a tool call runs in.
//
// A root configured by the user (--root or PATCH_FILE_WORKSPACE_ROOT,
// js/root.js) is the only root: the client's roots are not asked for. Without
// one, the roots are the client's (the MCP roots capability): after
// initialize the server sends roots/list and sends it again on each
// notifications/roots/list_changed. Each root is a `file://` URI, converted
// with url.fileURLToPath (percent-decoding, Windows drive letters) and
// resolved physically like a configured root; a URI of another scheme, one
// that names no directory, is left out with a warning. With no root at all
// every call is refused with a message that says how to configure one: the
// server never falls back to its working directory (often / or home).
//
// With several roots, a call runs in the root its paths lie beneath:
//
// - an absolute path belongs to the root it lies beneath (the deepest, if
//   roots nest); beneath none, the call is refused (PATH_OUTSIDE_WORKSPACE);
// - a relative path belongs to the one root beneath which it exists; existing
//   beneath none (a new file) or several, it is ambiguous and refused
//   (INVALID_INPUT naming the roots: send an absolute path);
// - the paths of one call (a patch's files, a batch) must share one root: a
//   transaction is one root's, as its journal is;
// - a call that names no path (undo, history without file_path, a malformed
//   call) runs in the current root: the root of the latest call that named a
//   path, else the first root; apply_last_dry_run runs where its dry run ran.
//
// The engine keys its journal by workspaceRoot, so each root has its own
// history and undo.

const fs = require('node:fs')
const path = require('node:path')
const { fileURLToPath } = require('node:url')
const { physical, beneath, ENV } = require('./root.js')

/** The refusal of a call when there is no root to run it in. */
const NO_ROOT =
  'no workspace root: the MCP client gave no roots (the roots capability) and none is configured; ' +
  `set ${ENV} (env) or --root (args) in the server's configuration to the project directory`

/**
 * The directory a client's root URI names: {root} (its real path) or {error}.
 * @param {unknown} uri
 */
function rootFromUri(uri) {
  if (typeof uri !== 'string') return { error: 'a root without a uri' }
  let url
  try {
    url = new URL(uri)
  } catch {
    return { error: `${JSON.stringify(uri)} is not a URI` }
  }
  if (url.protocol !== 'file:') return { error: `${uri} is not a file:// URI` }
  let file
  try {
    file = fileURLToPath(url)
  } catch (err) {
    return { error: `${uri} names no local path (${err.message})` }
  }
  let root
  try {
    root = physical(file, '/')
    if (!fs.statSync(root).isDirectory()) return { error: `${uri} is not a directory` }
  } catch (err) {
    return { error: `${uri} cannot be used (${err.code || err.message})` }
  }
  return { root }
}

const PATH_KEYS = ['file_path', 'filePath', 'path']

/** The keys that carry a patch or diff, and those that carry SEARCH/REPLACE blocks (`text`: either). */
const PATCH_KEYS = ['patch', 'input', 'diff', 'text']
const BLOCK_KEYS = ['blockContent', 'block_content', 'text']

/** A diff header's path without git's `a/`/`b/` prefix and a `diff -u` timestamp. */
function diffPath(raw) {
  return raw.replace(/\t.*$/, '').trim().replace(/^"(.*)"$/, '$1').replace(/^[ab]\//, '')
}

/** The file names of a Codex patch or a unified diff: every header that can name one. */
function patchPaths(text, out) {
  const lines = text.split(/\r?\n/)
  lines.forEach((line, i) => {
    let m = /^\*\*\* (?:Add File|Update File|Delete File|Move to): (.+?)\s*$/.exec(line)
    if (m) return out.push(m[1])
    // `---`/`+++` only as a pair: a hunk line removing `-- x` is `--- x`.
    if (line.startsWith('--- ') && (lines[i + 1] || '').startsWith('+++ ')) {
      for (const h of [line, lines[i + 1]]) {
        const p = h.slice(4)
        if (!/^\/dev\/null(\t|\s*$)/.test(p)) out.push(diffPath(p))
      }
      return
    }
    m = /^(?:rename|copy) (?:from|to) (.+?)\s*$/.exec(line)
    if (m) return out.push(m[1])
    m = /^diff --git (.+?)\s*$/.exec(line)
    if (m) {
      // `a/x b/y`: split where ` b/` occurs once; otherwise both halves of an even split.
      const parts = m[1].split(' b/')
      if (parts.length === 2) out.push(diffPath(parts[0]), parts[1])
      else out.push(m[1])
    }
  })
}

/** The file line of each SEARCH/REPLACE block: the line above it, or above its opening fence. */
function blockPaths(text, out) {
  const lines = text.split(/\r?\n/)
  lines.forEach((line, i) => {
    if (!/^<{5,9} SEARCH\s*$/.test(line)) return
    let k = i - 1
    if (k >= 0 && /^\s*(`{3,}|~{3,})/.test(lines[k])) k--
    if (k < 0) return
    const name = lines[k].trim().replace(/^`+|`+$/g, '').replace(/:$/, '')
    if (name && !/^(`{3,}|~{3,})/.test(name)) out.push(name)
  })
}

/**
 * The paths a tool call names, as far as they can be read from its
 * arguments: path fields (top level and in `files[]`), the file headers of a
 * Codex patch or a unified diff (`---`/`+++` pairs, `diff --git`, renames),
 * the file line of each SEARCH/REPLACE block (above its fence, if any).
 * A call whose text names files this reading misses is refused with several
 * roots (see `route`), never sent to the last root used.
 */
function pathsOf(args, tool) {
  const out = []
  if (args === null || typeof args !== 'object' || Array.isArray(args)) return out
  const fields = (o) => {
    if (o === null || typeof o !== 'object') return
    for (const k of PATH_KEYS) if (typeof o[k] === 'string' && o[k] !== '') out.push(o[k])
  }
  try {
    fields(args)
    if (Array.isArray(args.files)) args.files.forEach(fields)
    // One operation as structure (OpenAI's apply_patch): its path and move target.
    const op = args.operation
    if (op !== null && typeof op === 'object') {
      for (const k of ['path', 'move_to', 'moveTo']) if (typeof op[k] === 'string' && op[k] !== '') out.push(op[k])
    }
    const blocks = tool === 'edit_block' || tool === 'edit_blocks' || tool === 'apply_edit_blocks'
    for (const k of blocks ? [] : PATCH_KEYS) if (typeof args[k] === 'string') patchPaths(args[k], out)
    for (const k of BLOCK_KEYS) {
      if (typeof args[k] !== 'string' || (k === 'text' && !blocks && tool !== undefined)) continue
      blockPaths(args[k], out)
    }
  } catch {
    // arguments whose reading throws: no paths (the engine refuses them)
  }
  return out
}

/** Whether a call of `tool` carries a text whose files its own headers name (a patch, blocks), or an operation naming one. */
function carriesText(args) {
  if (args === null || typeof args !== 'object') return false
  return [...PATCH_KEYS, ...BLOCK_KEYS].some((k) => typeof args[k] === 'string') || (args.operation !== null && typeof args.operation === 'object')
}

/**
 * The roots of a server and the routing of calls among them.
 * @param {{configured?: string}} opts configured: the resolved --root / env root
 */
class Workspace {
  constructor({ configured } = {}) {
    this.configured = configured
    /** @type {string[]} */
    this.roots = configured ? [configured] : []
    this.current = this.roots[0]
    /** run_id of a dry run -> the root it ran in (several roots only). */
    this.runIds = new Map()
  }

  /**
   * Sets the client's roots from a roots/list result (ignored when a root is configured).
   * @returns {string[]} warnings about roots left out
   */
  setClientRoots(list) {
    if (this.configured) return []
    const warnings = []
    const roots = []
    for (const r of Array.isArray(list) ? list : []) {
      const { root, error } = rootFromUri(r && r.uri)
      if (error) warnings.push(`client root left out: ${error}`)
      else if (!roots.includes(root)) roots.push(root)
    }
    this.roots = roots
    if (!roots.includes(this.current)) this.current = roots[0]
    return warnings
  }

  /**
   * Where a call of `tool` with `args` runs: {root} or {refusal} (a result object).
   */
  route(tool, args) {
    const roots = this.roots
    if (roots.length === 0) return { refusal: { ok: false, code: 'INVALID_INPUT', message: NO_ROOT } }
    if (roots.length === 1) return { root: roots[0] }
    if (tool.name === 'apply_last_dry_run' && args && typeof args.run_id === 'string' && this.runIds.has(args.run_id)) {
      const root = this.runIds.get(args.run_id)
      if (roots.includes(root)) return { root }
    }
    const names = pathsOf(args, tool.name)
    if (names.length === 0) {
      if (carriesText(args)) {
        return {
          refusal: {
            ok: false,
            code: 'INVALID_INPUT',
            message: `the workspace has several roots (${roots.join(', ')}) and the files this call's text names could not be read from it: name them by their absolute paths`,
          },
        }
      }
      return { root: this.current, implicit: true }
    }
    const list = roots.join(', ')
    const chosen = new Set()
    for (const p of names) {
      if (path.isAbsolute(p)) {
        const root = this.rootOf(p)
        if (!root) {
          return { refusal: { ok: false, code: 'PATH_OUTSIDE_WORKSPACE', message: `\`${p}\` lies beneath none of the workspace roots (${list})`, file_path: p } }
        }
        chosen.add(root)
      } else {
        const found = roots.filter((r) => exists(path.join(r, p)))
        if (found.length !== 1) {
          const where = found.length === 0 ? 'exists under none of them' : `exists under ${found.join(' and ')}`
          return {
            refusal: {
              ok: false,
              code: 'INVALID_INPUT',
              message: `\`${p}\` is relative and the workspace has several roots (${list}); it ${where}: give its absolute path`,
            },
          }
        }
        chosen.add(found[0])
      }
    }
    if (chosen.size > 1) {
      return { refusal: { ok: false, code: 'INVALID_INPUT', message: `the files of one call must lie under one workspace root; these lie under ${[...chosen].join(' and ')}: send one call per root` } }
    }
    const root = [...chosen][0]
    this.current = root
    return { root }
  }

  /** The deepest root `p` (absolute) lies beneath, lexically or once resolved; undefined if none. */
  rootOf(p) {
    const deepest = (q) => this.roots.filter((r) => beneath(q, r)).sort((a, b) => b.length - a.length)[0]
    const lexical = deepest(path.resolve(p))
    if (lexical) return lexical
    // A spelling through a symlink: resolve the longest existing prefix.
    let dir = path.resolve(p)
    const rest = []
    for (;;) {
      try {
        return deepest(path.join(fs.realpathSync.native(dir), ...rest))
      } catch {
        const up = path.dirname(dir)
        if (up === dir) return undefined
        rest.unshift(path.basename(dir))
        dir = up
      }
    }
  }

  /** Notes where a dry run ran, so that apply_last_dry_run applies it there. */
  ran(root, result) {
    // Noted with one root too: the client may add roots before applying it.
    if (!result || typeof result.run_id !== 'string') return
    this.runIds.set(result.run_id, root)
    if (this.runIds.size > 256) this.runIds.delete(this.runIds.keys().next().value)
  }
}

function exists(p) {
  try {
    fs.lstatSync(p)
    return true
  } catch {
    return false
  }
}

module.exports = { Workspace, rootFromUri, pathsOf, NO_ROOT, PATCH_KEYS }
