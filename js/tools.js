'use strict'
// The one table of tools shared by the MCP server and the CLI. Each entry
// names the JSON schema file (schemas/<name>.schema.json: the tool's name,
// description and parameters), the engine function that runs it, MCP hints
// and the result's output schema. Adding a tool is adding an entry here.
//
// The engine (the native addon) is loaded on the first call, not when this
// table is read, so listing tools never pays for it.

const outputSchemas = require('./output-schemas.js')

/**
 * name       MCP tool name = schema file name.
 * engine     export of index.js called as engine[fn](args, options).
 * title      short human title (MCP `title` / annotations.title).
 * hints      MCP tool annotations.
 */
const TABLE = [
  {
    name: 'patch_file',
    engine: 'patchFile',
    title: 'Patch file (exact search/replace)',
    hints: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
  },
  {
    name: 'batch_patch_files',
    engine: 'batchPatchFiles',
    title: 'Patch several edits or files at once (all or nothing)',
    hints: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
  },
  {
    name: 'apply_last_dry_run',
    engine: 'applyDryRun',
    title: 'Apply a previewed dry run',
    hints: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
  },
  {
    name: 'read_file',
    engine: 'readFile',
    title: 'Read file (with sha256 and encoding)',
    hints: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  },
  {
    name: 'write_file',
    engine: 'writeFile',
    title: 'Write whole file (atomic)',
    hints: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  },
  {
    name: 'edit_block',
    engine: 'applyEditBlocks',
    title: 'Apply SEARCH/REPLACE blocks (all or nothing)',
    hints: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
  },
  {
    name: 'apply_patch',
    engine: 'applyPatch',
    title: 'Apply a Codex patch or unified diff (all or nothing)',
    hints: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
  },
  {
    name: 'str_replace_based_edit_tool',
    engine: 'textEditor',
    title: 'Text editor (view, create, str_replace, insert, undo_edit)',
    hints: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
  },
  {
    name: 'edit_file',
    engine: 'editFile',
    title: 'Edit file (filesystem-server input, exact-once)',
    hints: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
  },
]

let engineModule = null
/** The package's public API (loads the native addon once). */
function engine() {
  if (!engineModule) engineModule = require('../index.js')
  return engineModule
}

const byName = new Map()
for (const entry of TABLE) {
  const schema = require(`../schemas/${entry.name}.schema.json`)
  if (schema.name !== entry.name) throw new Error(`schemas/${entry.name}.schema.json names ${schema.name}`)
  const output = outputSchemas[entry.name]
  if (!output) throw new Error(`no output schema for ${entry.name}`)
  byName.set(entry.name, Object.freeze({ ...entry, schema, outputSchema: output }))
}

/** Every tool, in table order. */
function list() {
  return [...byName.values()]
}

/** The tool called `name`, or undefined. */
function get(name) {
  return byName.get(name)
}

/**
 * Runs a tool through the engine. Never throws for bad input: the engine
 * answers every input with a result object (`ok: false` + `code` on failure).
 * @param {object} tool  an entry from list()/get()
 * @param {unknown} args the tool arguments as received
 * @param {{workspaceRoot: string}} options engine options
 */
function run(tool, args, options) {
  return engine()[tool.engine](args === undefined ? {} : args, options)
}

/** Loads the engine ahead of the first call (e.g. once a client is connected). */
function warm() {
  engine()
}

module.exports = { list, get, run, warm, engine }
