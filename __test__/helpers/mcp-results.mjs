// Every tools/call answer the MCP tests receive goes through checkAnswer: it
// must be one compact JSON text block holding the engine's result object
// (never pretty-printed, never a second copy unless structuredContent was
// asked for), with isError set exactly on failure, and the result must fit
// the tool's output schema (js/output-schemas.js, what the server lists with
// --output-schemas), checked with the SDK's own validator (ajv). The SDK
// client validates structuredContent against the listed schemas as well
// (helpers/mcp-client.mjs lists them before any call).
import assert from 'node:assert/strict'
import { createRequire } from 'node:module'

const require = createRequire(import.meta.url)
const tools = require('../../js/tools.js')
const { AjvJsonSchemaValidator } = require('@modelcontextprotocol/sdk/validation/ajv')

const ajv = new AjvJsonSchemaValidator()
const validators = new Map()

/** Whether a server started with `args` and `env` answers with structuredContent (--output-schemas). */
export function answersStructured(args = [], env = {}) {
  const v = String(env.PATCH_FILE_OUTPUT_SCHEMAS ?? '').trim().toLowerCase()
  if (v) return ['1', 'on', 'true', 'yes'].includes(v)
  return args.includes('--output-schemas')
}

/** Throws unless `result` fits the output schema of the tool `name`. */
export function checkResultSchema(name, result) {
  const tool = tools.get(name)
  assert.ok(tool, `${name} is a tool`)
  if (!validators.has(name)) validators.set(name, ajv.getValidator(tool.outputSchema))
  const v = validators.get(name)(result)
  assert.ok(v.valid, `${name}: the result does not fit its output schema: ${v.errorMessage}\n${JSON.stringify(result).slice(0, 2000)}`)
}

/**
 * The engine's result carried by `answer` (a tools/call result) for the tool
 * `name`, after checking the answer's shape and the result's schema.
 * `structured`: whether the server was started with output schemas.
 */
export function checkAnswer(name, answer, structured) {
  assert.ok(answer && Array.isArray(answer.content), `${name}: a tools/call result: ${JSON.stringify(answer)?.slice(0, 500)}`)
  assert.equal(answer.content.length, 1, `${name}: one content block`)
  assert.equal(answer.content[0].type, 'text')
  const text = answer.content[0].text
  const result = JSON.parse(text)
  assert.equal(text, JSON.stringify(result), `${name}: the text block is compact JSON`)
  if (structured) assert.deepEqual(answer.structuredContent, result, `${name}: structuredContent is the text's JSON`)
  else assert.equal(answer.structuredContent, undefined, `${name}: no structuredContent without output schemas`)
  assert.equal(answer.isError, result.ok !== true, `${name}: isError exactly on failure`)
  checkResultSchema(name, result)
  return result
}
