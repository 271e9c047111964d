'use strict'
// The MCP `outputSchema` of each tool: the shape of its result object (the
// `structuredContent` of a tools/call answer), made from the result contract,
// schemas/results.json. That file is generated from the engine's Rust
// result types (core/src/result/, `npm run contract`; the test suite fails when it
// is out of date), so the schemas here are the engine's own description of
// what it answers, never a second copy written by hand.
//
// A tool's schema is an object that is either of its entry point's results
// (`anyOf` the success and the failure, told apart by `ok`), with the
// definitions it reaches under `$defs`. A failure is described by what every
// failure has (`ok: false`, its `code`, its `message`; other fields allowed):
// its details (closest_match, failed_edits, the failures of an edit format,
// ...) are one type shared by every tool, about 6 KB of schema that every
// tool would otherwise repeat, and are described in the contract and the d.ts.
// The server answers in the compact
// view by default (fewer fields: core/src/result/view.rs), so the fields that view
// may leave out (the contract's `compact.optional`) are not required here;
// a full result fits the same schema.
//
// The server lists these schemas only when asked (--output-schemas), and then
// without descriptions (js/mcp.js `leanSchema`). Every construct is one that
// clients map to their own schema dialects without loss (one `type` per
// schema; a nullable value is an `anyOf` of its type and null):
// __test__/schema-portability.test.mjs checks it.

const contract = require('../schemas/results.json')

const REF = '#/$defs/'
const mayOmit = new Set(contract.compact.optional)

/** The names of the definitions `schema` refers to, directly or through others. */
function reachable(schema, seen = new Set()) {
  const walk = (v) => {
    if (Array.isArray(v)) return v.forEach(walk)
    if (v === null || typeof v !== 'object') return
    if (typeof v.$ref === 'string' && v.$ref.startsWith(REF)) {
      const name = v.$ref.slice(REF.length)
      if (!seen.has(name) && contract.$defs[name]) {
        seen.add(name)
        walk(contract.$defs[name])
      }
    }
    Object.values(v).forEach(walk)
  }
  walk(schema)
  return seen
}

/** `schema` with the fields the compact view may omit taken out of every `required`. */
function compactable(schema) {
  if (Array.isArray(schema)) return schema.map(compactable)
  if (schema === null || typeof schema !== 'object') return schema
  const out = {}
  for (const [k, v] of Object.entries(schema)) {
    if (k === 'required' && Array.isArray(v)) out[k] = v.filter((f) => !mayOmit.has(f))
    else if (k === 'properties') out[k] = Object.fromEntries(Object.entries(v).map(([p, s]) => [p, compactable(s)]))
    else out[k] = compactable(v)
  }
  return out
}

/** What every failure has: `Failed` with only its required fields (others allowed). */
function failureCore() {
  const full = contract.$defs.Failed
  const properties = Object.fromEntries(full.required.map((f) => [f, full.properties[f]]))
  return { type: 'object', description: full.description, properties, required: full.required }
}

/** `schema` with each reference to the full failure type made to the failure's core. */
function withFailureCore(schema) {
  if (Array.isArray(schema)) return schema.map(withFailureCore)
  if (schema === null || typeof schema !== 'object') return schema
  if (schema.$ref === `${REF}Failed`) return { $ref: `${REF}Failure` }
  return Object.fromEntries(Object.entries(schema).map(([k, v]) => [k, withFailureCore(v)]))
}

/** The output schema of the entry point `engine` (its JavaScript name). */
function outputSchemaFor(engine) {
  const found = contract.results[engine]
  if (!found) throw new Error(`schemas/results.json: no result for ${engine}`)
  const result = withFailureCore(found)
  const core = failureCore()
  const defs = { Failure: core }
  for (const name of [...reachable([result, core])].sort()) {
    if (name !== 'Failure') defs[name] = compactable(withFailureCore(contract.$defs[name]))
  }
  return { type: 'object', required: ['ok'], ...compactable(result), $defs: defs }
}

module.exports = { outputSchemaFor, compactable }
