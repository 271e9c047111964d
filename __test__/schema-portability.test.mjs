// Every schema the package publishes (each tool's input schema, and its
// output schema in full and as the server lists it) uses only constructs that
// clients carry over to their own schema dialects without loss: the checks of
// the MCP Inspector's --strict mode, written here as rules (running the
// Inspector itself needs the network and Node >= 22.19), plus what the model
// APIs refuse at the top of an input schema.
//
// The rules, for every schema node (the root, and every schema under
// properties, items, anyOf, ...):
//   type-union      `type` is one type name, never an array (["string","null"]
//                   becomes anyOf [{type: string}, {type: null}])
//   boolean-schema  a schema is an object; `true`/`false` only as the value of
//                   additionalProperties and the like
//   remote-ref      a `$ref` points inside the document (#...)
//   untyped-schema  a node constrains something (a type, an enum, a
//                   combinator...): an empty or description-only schema accepts
//                   anything
//   nullable        no `nullable` (OpenAPI's spelling, not JSON Schema)
// and for an input schema's root:
//   root-object     type "object", and no anyOf/oneOf/allOf/not at the top
//                   (the Anthropic and OpenAI APIs refuse a tool with one)
import './helpers/private-state.mjs'
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { createRequire } from 'node:module'

const require = createRequire(import.meta.url)
const tools = require('../js/tools.js')
const { leanSchema } = require('../js/mcp.js')

/** Keywords whose value is one subschema. */
const ONE = ['items', 'additionalItems', 'unevaluatedItems', 'contains', 'not', 'propertyNames', 'if', 'then', 'else', 'additionalProperties', 'unevaluatedProperties']
/** Keywords whose value is a list of subschemas. */
const LIST = ['allOf', 'anyOf', 'oneOf', 'prefixItems']
/** Keywords whose value maps names to subschemas. */
const MAP = ['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas']
/** Keywords where `true`/`false` is the usual spelling. */
const BOOLEAN_OK = new Set(['additionalProperties', 'unevaluatedProperties', 'additionalItems', 'unevaluatedItems'])
/** Keywords that constrain a value. */
const CONSTRAINS = new Set([
  'type', 'enum', 'const', 'anyOf', 'oneOf', 'allOf', 'not', '$ref', 'properties', 'patternProperties', 'additionalProperties',
  'items', 'prefixItems', 'contains', 'required', 'minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf',
  'minLength', 'maxLength', 'pattern', 'format', 'minItems', 'maxItems', 'uniqueItems', 'minProperties', 'maxProperties',
])

/** The portability issues of `schema`: [{rule, at}]. `input`: it is a tool's input schema. */
export function portabilityIssues(schema, { input = false } = {}) {
  const issues = []
  const add = (rule, at) => issues.push({ rule, at: at || '(root)' })
  const walk = (node, at, keyword) => {
    if (typeof node === 'boolean') {
      if (!BOOLEAN_OK.has(keyword)) add('boolean-schema', at)
      return
    }
    if (node === null || typeof node !== 'object' || Array.isArray(node)) return add('not-a-schema', at)
    if (Array.isArray(node.type)) add('type-union', at)
    if (typeof node.$ref === 'string' && !node.$ref.startsWith('#')) add('remote-ref', at)
    if ('nullable' in node) add('nullable', at)
    if (!Object.keys(node).some((k) => CONSTRAINS.has(k)) && keyword !== 'not') add('untyped-schema', at)
    for (const k of ONE) if (k in node && !(k === 'items' && Array.isArray(node.items))) walk(node[k], `${at}.${k}`, k)
    if (Array.isArray(node.items)) node.items.forEach((s, i) => walk(s, `${at}.items[${i}]`, 'items'))
    for (const k of LIST) if (Array.isArray(node[k])) node[k].forEach((s, i) => walk(s, `${at}.${k}[${i}]`, k))
    for (const k of MAP) {
      if (node[k] && typeof node[k] === 'object') for (const [name, s] of Object.entries(node[k])) walk(s, `${at}.${k}.${name}`, k)
    }
  }
  walk(schema, '', undefined)
  if (input && (schema.type !== 'object' || ['anyOf', 'oneOf', 'allOf', 'not'].some((k) => k in schema))) add('root-object', '')
  return issues
}

test('the portability rules catch each construct they name', () => {
  const rules = (schema, opts) => portabilityIssues(schema, opts).map((i) => `${i.rule} ${i.at}`)
  const obj = (properties) => ({ type: 'object', properties })
  // What the output schemas held before: a nullable written as a type array.
  assert.deepEqual(rules(obj({ sha256: { type: ['string', 'null'], description: 'x' } })), ['type-union .properties.sha256'])
  assert.deepEqual(rules(obj({ a: { description: 'anything' } })), ['untyped-schema .properties.a'])
  assert.deepEqual(rules(obj({ a: {} })), ['untyped-schema .properties.a'])
  assert.deepEqual(rules(obj({ a: true })), ['boolean-schema .properties.a'])
  assert.deepEqual(rules(obj({ a: { type: 'array', items: { $ref: 'https://example.com/s.json' } } })), ['remote-ref .properties.a.items'])
  assert.deepEqual(rules(obj({ a: { type: 'string', nullable: true } })), ['nullable .properties.a'])
  assert.deepEqual(rules({ type: 'array', items: [{ type: 'string' }, { anyOf: [{ type: ['integer', 'null'] }] }] }), ['type-union .items[1].anyOf[0]'])
  assert.deepEqual(rules({ anyOf: [obj({}), obj({})] }, { input: true }), ['root-object (root)'])
  assert.deepEqual(rules({ type: 'object', oneOf: [{ required: ['a'] }, { required: ['b'] }] }, { input: true }), ['root-object (root)'])
  // What they hold now passes: a nullable as anyOf, additionalProperties: false, a described anyOf.
  assert.deepEqual(rules(obj({ sha256: { anyOf: [{ type: 'string' }, { type: 'null' }], description: 'x' } })), [])
  assert.deepEqual(rules({ ...obj({ m: { description: 'd', anyOf: [{ type: 'string', enum: ['exact'] }, { type: 'array', items: { type: 'string' } }] } }), additionalProperties: false }, { input: true }), [])
})

test('every input schema and every output schema (in full and as listed) is portable', () => {
  const found = []
  for (const t of tools.list()) {
    for (const i of portabilityIssues(t.schema.parameters, { input: true })) found.push(`${t.name} inputSchema${i.at}: ${i.rule}`)
    for (const i of portabilityIssues(t.outputSchema)) found.push(`${t.name} outputSchema${i.at}: ${i.rule}`)
    for (const i of portabilityIssues(leanSchema(t.outputSchema))) found.push(`${t.name} listed outputSchema${i.at}: ${i.rule}`)
  }
  assert.deepEqual(found, [])
})

test('every top-level input property has one type: the MCP Inspector CLI turns a --tool-arg into a list or object by it', async () => {
  // @modelcontextprotocol/inspector-cli's own conversion of `--tool-arg key=value` (it needs Node >= 22.19 to run):
  // JSON.parse only when the property's `type` is "array" or "object"; otherwise the text stays a string.
  const src = require('node:fs').readFileSync(require.resolve('@modelcontextprotocol/inspector-cli/build/client/tools.js'), 'utf8')
  assert.match(src, /schema\.type === "object" \|\| schema\.type === "array"/, 'the Inspector CLI converts by `type` as this test assumes')
  const untyped = []
  for (const t of tools.list()) {
    for (const [k, v] of Object.entries(t.schema.parameters.properties || {})) if (typeof v.type !== 'string') untyped.push(`${t.name}.${k}`)
  }
  assert.deepEqual(untyped, [])
  assert.equal(tools.get('patch_file').schema.parameters.properties.match.type, 'array')
})
