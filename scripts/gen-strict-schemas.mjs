#!/usr/bin/env node
// Writes schemas/strict/<tool>.json, the strict variant of each tool's input
// schema, from schemas/<tool>.schema.json: the schema OpenAI's `strict: true`
// function calling (structured outputs) and Anthropic's strict tool use take,
// where the API guarantees the model's arguments fit the schema.
//
// The rules (OpenAI's supported subset, which Anthropic's strict mode also
// accepts), applied at every level:
//   - every property is required; one the tool does not require is nullable:
//     `type: [T, "null"]` (an enum gets `null` among its values too), or a
//     `{ type: "null" }` branch for an anyOf. The engine takes `null` as absent.
//   - every object has `additionalProperties: false`.
//   - only these keywords stay: type, properties, required,
//     additionalProperties, items, enum, anyOf, description. The others
//     (minLength, pattern, minimum, minItems, maxItems, uniqueItems, default,
//     ...) are dropped: the engine still checks what they said and answers
//     INVALID_INPUT.
// The name and description are the tool's.
//
//   node scripts/gen-strict-schemas.mjs          write schemas/strict/
//   node scripts/gen-strict-schemas.mjs --check  exit 1 if a file is not what would be written
// __test__/strict-schemas.test.mjs fails when the files are out of date.
import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
export const SCHEMAS = path.join(root, 'schemas')
export const STRICT = path.join(SCHEMAS, 'strict')

/** The keywords a strict schema keeps. */
export const KEPT = ['type', 'description', 'enum', 'anyOf', 'items', 'properties', 'required', 'additionalProperties']

/** `node` as a strict schema (its properties all required, optional ones nullable). */
export function strictNode(node) {
  const out = {}
  for (const k of KEPT) {
    if (!(k in node)) continue
    if (k === 'anyOf') out.anyOf = node.anyOf.map(strictNode)
    else if (k === 'items') out.items = strictNode(node.items)
    else if (k === 'properties') {
      const required = new Set(node.required || [])
      out.properties = {}
      for (const [name, sub] of Object.entries(node.properties)) {
        const s = strictNode(sub)
        out.properties[name] = required.has(name) ? s : nullable(s)
      }
      out.required = Object.keys(node.properties)
      out.additionalProperties = false
    } else if (k === 'required' || k === 'additionalProperties') continue
    else out[k] = node[k]
  }
  if (out.type === 'object' && !out.properties) {
    out.properties = {}
    out.required = []
    out.additionalProperties = false
  }
  return out
}

/** `s` also accepting null. */
function nullable(s) {
  if (s.anyOf) return { ...s, anyOf: [...s.anyOf, { type: 'null' }] }
  if (typeof s.type !== 'string') throw new Error(`cannot make ${JSON.stringify(s)} nullable`)
  const out = { ...s, type: [s.type, 'null'] }
  if (s.enum) out.enum = [...s.enum, null]
  return out
}

/** The strict variant of a tool's schema file. */
export function strictSchema(schema) {
  return { name: schema.name, description: schema.description, parameters: strictNode(schema.parameters) }
}

/** The tool schema files: [name, schema]. */
export function toolSchemas() {
  return fs
    .readdirSync(SCHEMAS)
    .filter((f) => f.endsWith('.schema.json'))
    .sort()
    .map((f) => [f.slice(0, -'.schema.json'.length), JSON.parse(fs.readFileSync(path.join(SCHEMAS, f), 'utf8'))])
}

/** What schemas/strict/ should hold: file name -> text. */
export function expected() {
  return new Map(toolSchemas().map(([name, schema]) => [`${name}.json`, JSON.stringify(strictSchema(schema), null, 2) + '\n']))
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const want = expected()
  if (process.argv.includes('--check')) {
    const have = fs.existsSync(STRICT) ? fs.readdirSync(STRICT) : []
    const stale = [...want].filter(([f, text]) => !have.includes(f) || fs.readFileSync(path.join(STRICT, f), 'utf8') !== text).map(([f]) => f)
    const extra = have.filter((f) => !want.has(f))
    if (stale.length || extra.length) {
      process.stderr.write(`schemas/strict/ is out of date (${[...stale, ...extra].join(', ')}): run node scripts/gen-strict-schemas.mjs\n`)
      process.exit(1)
    }
  } else {
    fs.rmSync(STRICT, { recursive: true, force: true })
    fs.mkdirSync(STRICT)
    for (const [f, text] of want) fs.writeFileSync(path.join(STRICT, f), text)
    process.stdout.write(`wrote ${want.size} files to schemas/strict/\n`)
  }
}
