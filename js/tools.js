'use strict'
// The tool table, read from data: js/tools.json lists the tools and the
// profiles (named tool sets); each tool's name, description and input schema
// are its schema file, schemas/<name>.schema.json; its result's shape is its
// engine's entry in the generated result contract (js/output-schemas.js). Each tool is the same tool everywhere:
//
// - the MCP server lists the tools of the profile or names it is started with
//   and runs them (js/mcp.js); the CLI's `call` command runs any of them
//   (js/cli.js);
// - the public JS API exports each one's engine function (js/api.js builds
//   index.js from this table; scripts/gen-entry.mjs writes index.mjs and
//   index.d.ts from it), and `schemas.<name>` is its schema file;
// - the agent-SDK adapters (js/adapters/) offer the tools DEFAULT_TOOLS names.
//
// A tools.json entry:
//
//   name         MCP tool name = schema file name = key in the `schemas` export.
//   engine       the native binding's function that runs it, exported by index.js
//                under the same name and called as engine[fn](args, options).
//   sync         (optional) the binding's synchronous variant, also exported by index.js.
//   title        short human title (MCP `title`).
//   annotations  the MCP tool annotations whose value differs from the protocol's
//                default (readOnlyHint false, destructiveHint true, idempotentHint
//                false, openWorldHint true), so a listing carries only what informs.
//
// Adding a tool is: its schema file; one entry in tools.json (and in a profile
// if it belongs there); its result type in the Rust contract (src/result/,
// listed in src/result/contract.rs, then `npm run contract`); and its
// Rust entry point (a `#[napi]` function in src/binding, whose
// `ts_args_type`/`ts_return_type` name its input and result types in
// types/header.d.ts). docs/development.md (Adding a tool) lists the steps.
//
// This module is data and lookups only: it loads neither the native engine
// nor the public API (js/engine.js runs tools), so listing tools never pays
// for the engine, and nothing here depends back on index.js.

const data = require('./tools.json')
const { outputSchemaFor } = require('./output-schemas.js')

const byName = new Map()
for (const entry of data.tools) {
  for (const key of ['name', 'engine', 'title']) {
    if (typeof entry[key] !== 'string') throw new Error(`js/tools.json: an entry has no ${key}`)
  }
  if (byName.has(entry.name)) throw new Error(`js/tools.json: ${entry.name} is listed twice`)
  const schema = require(`../schemas/${entry.name}.schema.json`)
  if (schema.name !== entry.name) throw new Error(`schemas/${entry.name}.schema.json names ${schema.name}`)
  const outputSchema = outputSchemaFor(entry.engine)
  byName.set(entry.name, Object.freeze({ ...entry, annotations: Object.freeze({ ...entry.annotations }), schema, outputSchema }))
}

/** The profile every tool is in. */
const ALL = 'all'

/** Profile name -> its tool names, in table order; `all` is every tool. */
const PROFILES = {}
for (const [profile, names] of Object.entries({ ...data.profiles, [ALL]: data.tools.map((t) => t.name) })) {
  if (byName.has(profile)) throw new Error(`js/tools.json: the profile ${profile} has the name of a tool`)
  for (const name of names) {
    if (!byName.has(name)) throw new Error(`js/tools.json: the profile ${profile} names ${name}, which is not a tool`)
  }
  PROFILES[profile] = Object.freeze(data.tools.map((t) => t.name).filter((n) => names.includes(n)))
}
Object.freeze(PROFILES)

/**
 * The default tool set: what an agent needs for its editing job (exact
 * edits, reading, whole-file writes, patches, undo), in listing order. The
 * other tools do the same jobs in other shapes or serve narrower needs, and
 * each one listed costs the model context on every turn. The MCP server
 * lists these unless told otherwise; the agent-SDK adapters
 * (js/adapters/toolset.js) build their tool sets from this list.
 */
const DEFAULT_TOOLS = PROFILES.default

/**
 * Result fields that hand the model something only another tool takes: a
 * dry run's run_id (and expires_in, how long it stays valid) is for
 * apply_last_dry_run; an undo's own transaction id (undo it to redo: undo's
 * and str_replace_based_edit_tool undo_edit's `id`, at the top of the
 * result) is for undo. `anywhere`: the field is taken out at any depth of a
 * result (its name means nothing else there); otherwise only at the top
 * (history's transactions keep their `id`s, which its own entries refer to).
 */
const HANDLES = [
  { tool: 'apply_last_dry_run', fields: ['run_id', 'expires_in'], anywhere: true },
  { tool: 'undo', fields: ['id'], anywhere: false },
]

/**
 * What the tool set `names` answers: a result without the handles (HANDLES)
 * whose tool the set lacks, and output schemas that do not describe them, so
 * that no answer offers a call the set cannot make. Where apply_last_dry_run
 * is not in the set, a dry run is a preview without a run_id, written by
 * sending the same call without dry_run.
 * @param {readonly string[]} names the tools of the set
 * @returns {{result: (r: unknown) => unknown, outputSchema: (tool: object) => object}}
 */
function forSet(names) {
  const lacking = HANDLES.filter((h) => !names.includes(h.tool))
  const anywhere = new Set(lacking.filter((h) => h.anywhere).flatMap((h) => h.fields))
  const top = new Set(lacking.filter((h) => !h.anywhere).flatMap((h) => h.fields))
  if (anywhere.size === 0 && top.size === 0) return { result: (r) => r, outputSchema: (tool) => tool.outputSchema }
  /** `v` without the `anywhere` fields at any depth; the same object when it holds none. */
  const strip = (v) => {
    if (Array.isArray(v)) {
      const out = v.map(strip)
      return out.some((x, i) => x !== v[i]) ? out : v
    }
    if (v === null || typeof v !== 'object') return v
    let out = v
    for (const [k, x] of Object.entries(v)) {
      const y = anywhere.has(k) ? undefined : strip(x)
      if (y === x) continue
      if (out === v) out = { ...v }
      if (anywhere.has(k)) delete out[k]
      else out[k] = y
    }
    return out
  }
  const result = (r) => {
    const out = strip(r)
    if (out === null || typeof out !== 'object' || Array.isArray(out) || ![...top].some((k) => k in out)) return out
    const copy = out === r ? { ...out } : out
    for (const k of top) delete copy[k]
    return copy
  }
  const outputSchema = (tool) => {
    const schema = JSON.parse(JSON.stringify(tool.outputSchema))
    const prune = (s, fields) => {
      if (s.properties) for (const f of fields) delete s.properties[f]
      if (Array.isArray(s.required)) s.required = s.required.filter((f) => !fields.has(f))
    }
    // The `anywhere` fields from every object schema; the `top` ones from what a result itself can be.
    const walk = (v) => {
      if (Array.isArray(v)) return v.forEach(walk)
      if (v === null || typeof v !== 'object') return
      prune(v, anywhere)
      Object.values(v).forEach(walk)
    }
    walk(schema)
    const seen = new Set()
    const branches = (s) => {
      if (seen.has(s)) return
      seen.add(s)
      if (typeof s.$ref === 'string') return branches(schema.$defs[s.$ref.split('/').pop()])
      if (Array.isArray(s.anyOf)) return s.anyOf.forEach(branches)
      prune(s, top)
    }
    branches(schema)
    return schema
  }
  return { result, outputSchema }
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
 * The tools a selection names: a comma-separated list of tool names and
 * profile names (`default`, `all`, ...), in any mix; the result holds each
 * tool once, in table order. Spaces around names are ignored.
 * @param {string} spec
 * @returns {{tools: object[]} | {error: string}} the tools, or why the selection is unusable
 */
function select(spec) {
  const names = String(spec)
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
  if (names.length === 0) return { error: 'names no tool; give tool or profile names separated by commas' }
  const unknown = names.filter((n) => !byName.has(n) && !Object.prototype.hasOwnProperty.call(PROFILES, n))
  if (unknown.length) {
    const what = unknown.map((n) => JSON.stringify(n)).join(', ')
    return {
      error: `unknown tool or profile ${what}; tools: ${[...byName.keys()].join(', ')}; profiles: ${Object.keys(PROFILES).join(', ')}`,
    }
  }
  const chosen = new Set(names.flatMap((n) => (byName.has(n) ? [n] : PROFILES[n])))
  return { tools: list().filter((t) => chosen.has(t.name)) }
}

module.exports = { list, get, select, forSet, PROFILES, DEFAULT_TOOLS }
