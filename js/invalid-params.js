'use strict'
// The words of a JSON-RPC error for a message that fails its schema: each
// field named the way the caller wrote it ("params.name must be a string, not
// the number 5"), instead of the validator's own report (a JSON dump of zod
// issues, which names "record" and "invalid_union" and says nothing of what
// was sent). Used by the transport for the envelope (jsonrpc, id, method,
// params) and by the server for each method's params.
//
// The issues are those of the MCP SDK's schemas (zod 4): `code`, `path`,
// `expected`, `values`, `keys`, and for a union the issues of each branch.

/** How many issues are described; the rest are counted. */
const MAX_DESCRIBED = 5

const EXPECTED = {
  string: 'a string',
  number: 'a number',
  int: 'an integer',
  bigint: 'an integer',
  boolean: 'a boolean',
  object: 'an object',
  record: 'an object',
  map: 'an object',
  array: 'an array',
  tuple: 'an array',
  null: 'null',
}

/** `params.arguments.edits[0]` for the path ['params', 'arguments', 'edits', 0]. */
function fieldName(path) {
  let out = ''
  for (const p of path) out += typeof p === 'number' ? `[${p}]` : out ? `.${String(p)}` : String(p)
  return out || 'the message'
}

function valueAt(root, path) {
  let v = root
  for (const p of path) {
    if (v === null || typeof v !== 'object') return undefined
    v = Object.prototype.hasOwnProperty.call(v, p) ? v[p] : undefined
  }
  return v
}

/** What a value is, for "not …": its type, and its value when short (numbers, booleans). */
function what(v) {
  if (v === null) return 'null'
  if (Array.isArray(v)) return 'an array'
  switch (typeof v) {
    case 'number':
      return `the number ${String(v)}`
    case 'boolean':
      return `the boolean ${v}`
    case 'string':
      return 'a string'
    case 'object':
      return 'an object'
    default:
      return typeof v
  }
}

function expected(name) {
  return EXPECTED[name] || String(name)
}

/** The types a union accepted, from its branches' type issues at the union's own path. */
function unionTypes(issue) {
  const out = []
  for (const branch of issue.errors || []) {
    for (const e of branch) {
      if (e.code === 'invalid_type' && e.path.length === 0 && !out.includes(expected(e.expected))) out.push(expected(e.expected))
    }
  }
  return out
}

/** One sentence for one issue. */
function describe(issue, root) {
  const field = fieldName(issue.path)
  const value = valueAt(root, issue.path)
  const wrongType = (wants) => (value === undefined ? `${field} is required (${wants})` : `${field} must be ${wants}, not ${what(value)}`)
  switch (issue.code) {
    case 'invalid_type':
      return wrongType(expected(issue.expected))
    case 'invalid_union': {
      const types = unionTypes(issue)
      return types.length ? wrongType(types.join(' or ')) : `${field} is not valid`
    }
    case 'invalid_value':
      return `${field} must be ${(issue.values || []).map((v) => JSON.stringify(v)).join(' or ')}${value === undefined ? ' (it is missing)' : ''}`
    case 'unrecognized_keys':
      return `${field} has unknown field${issue.keys.length === 1 ? '' : 's'} ${issue.keys.map((k) => JSON.stringify(k)).join(', ')}`
    default: {
      // too_big, too_small, invalid_format...: zod's own sentence, which is about the value, not the schema.
      const msg = String(issue.message || 'is not valid').replace(/^Invalid input:?\s*/, '')
      return `${field}: ${msg}`
    }
  }
}

/**
 * The description of `issues` (zod issues of `root`, the message as sent):
 * `{ text, fields }`, text naming each field (at most MAX_DESCRIBED, the rest
 * counted), fields the dotted names of every field at fault.
 */
function describeIssues(issues, root) {
  const fields = []
  for (const i of issues) {
    const f = fieldName(i.path)
    if (!fields.includes(f)) fields.push(f)
  }
  const parts = issues.slice(0, MAX_DESCRIBED).map((i) => describe(i, root))
  const more = issues.length - MAX_DESCRIBED
  const text = parts.join('; ') + (more > 0 ? `; and ${more} more` : '')
  return { text, fields }
}

module.exports = { describeIssues, fieldName, what }
