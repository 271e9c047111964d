'use strict'
// The default tool set (js/tools.js DEFAULT_TOOLS) as tools of the Vercel AI
// SDK and of LangChain.
//
// Each tool is the MCP tool of the same name: its description and input
// schema are the package's own (schemas/<name>.schema.json), and it runs the
// same engine function with the caller's options (workspaceRoot and the
// rest). What differs is only how each SDK wants a tool built and a result
// handed back:
//
// - AI SDK: `execute` returns the engine's result object (the application
//   sees it in `toolResults`); the model receives a success as that JSON and
//   a failure as error text with the engine's diagnosis (js/adapters/render.js).
//   The result is the engine's compact view unless the caller's options ask
//   for `results: "full"` (js/engine.js modelOptions), as through MCP.
// - LangChain: a ToolMessage whose content is that same text or JSON, whose
//   artifact is the result object, with status "error" on failure (chat
//   models that know tool errors, such as Anthropic's, pass it on). The
//   arguments are checked by the engine, not by LangChain's validator
//   (engineValidates), so that what the engine accepts (its aliases) lands and
//   what it refuses is an error ToolMessage, never an exception.
//
// The SDK's own functions are passed in (`ai`, `lc`) rather than required
// here: the CommonJS entry passes the SDK's CommonJS build and the ES module
// entry its ES module build, so an application loads one copy of the SDK,
// the one it imports itself. Each tool gets a fresh, unfrozen copy of its
// schema: LangChain's validator writes into the schema object it is given.
//
// A call never throws into the SDK: the engine answers every input with a
// result (a value whose reading throws, too: INVALID_INPUT), call options or
// a tool output whose reading throws (misuse from code) are answered
// INVALID_INPUT, and an unexpected exception becomes an INTERNAL_ERROR
// result. The SDK's abort signal (AI SDK `abortSignal`, LangChain `signal`)
// cancels the engine call, together with any `signal` in the options.
//
// What the model reads of a result holds no handle that no tool of the set
// takes (js/tools.js forSet): a dry run's run_id, since the default set has
// no apply_last_dry_run. The application's result object keeps it (AI SDK
// `toolResults`, LangChain `artifact`), for applyDryRun.

const tools = require('../tools.js')
const engine = require('../engine.js')
const { failureText, internalError, unreadable } = require('./render.js')
const { applyOperation } = require('./v4a.js')

/** How the default set answers the model (js/tools.js forSet). */
const defaultSet = tools.forSet(tools.DEFAULT_TOOLS)

/** A deep, unfrozen copy of a JSON value. */
const copy = (v) => JSON.parse(JSON.stringify(v))

/**
 * `options` with the SDK's abort signal for one call, joined to the caller's
 * own; options whose reading throws as they are (the engine refuses them).
 */
function withSignal(options, signal) {
  if (!signal) return options
  try {
    const own = options && options.signal
    if (!own) return { ...options, signal }
    return { ...options, signal: typeof AbortSignal.any === 'function' ? AbortSignal.any([own, signal]) : signal }
  } catch {
    return options
  }
}

/**
 * `value` without its null-valued object properties, at every depth (array
 * elements stay): what a strict model sends for a field it leaves out; but
 * edit_lines' `lines`, where `null` deletes and absence is refused. The
 * engine takes `null` as absent, except for the fields of the single-edit form
 * beside `edits` (patch_file's and each batch_patch_files file's
 * search_block, replace_block, expected_replacements, replace_all), which it
 * refuses even when null; the strict tools send it their input without them.
 * A value whose reading throws is returned as it is (the engine refuses it).
 */
function nullsAsAbsent(value) {
  const strip = (v, depth) => {
    if (v === null || typeof v !== 'object' || depth > 64) return v
    if (Array.isArray(v)) return v.map((x) => strip(x, depth + 1))
    const out = {}
    for (const [k, x] of Object.entries(v)) if (x !== null || k === 'lines') out[k] = strip(x, depth + 1)
    return out
  }
  try {
    return strip(value, 0)
  } catch {
    return value
  }
}

/**
 * The default tools, SDK-neutral: name, description, a fresh copy of the
 * JSON schema of their input, and run(args, signal) resolving to the
 * engine's result object. Loads the engine now, so that a platform without
 * it fails here (NATIVE_ENGINE_UNAVAILABLE) and not on the model's first call.
 */
function entries(callerOptions, { strict = false } = {}) {
  engine.warm()
  const { names, options: rest } = toolNames(callerOptions)
  engine.checkOptions(rest, 'patch-file-tool')
  const options = engine.modelOptions(rest)
  const set = tools.forSet(names)
  return names.map((name) => {
    const tool = tools.get(name)
    return {
      name,
      description: tool.schema.description,
      set,
      parameters: () => copy(set.parameters(name, (strict ? tool.strictSchema : tool.schema).parameters)),
      async run(args, signal) {
        try {
          return await engine.run(tool, set.args(name, strict ? nullsAsAbsent(args) : args), withSignal(options, signal))
        } catch (err) {
          return internalError(err)
        }
      },
    }
  })
}

/**
 * The tools an adapter offers: `options.tools` (tool or profile names, e.g. `'anchors'`: read_file with anchors,
 * edit_lines, undo), taken out of the options the engine gets; the default set without it. Unknown names throw.
 */
function toolNames(callerOptions) {
  let spec
  try {
    spec = callerOptions && typeof callerOptions === 'object' ? callerOptions.tools : undefined
  } catch {
    return { names: tools.DEFAULT_TOOLS, options: callerOptions }
  }
  if (spec === undefined) return { names: tools.DEFAULT_TOOLS, options: callerOptions }
  const picked = tools.select(Array.isArray(spec) ? spec.join(',') : String(spec))
  if (picked.error) throw new TypeError(`patch-file-tool: options.tools ${picked.error}`)
  const { tools: _, ...options } = callerOptions
  return { names: picked.tools.map((t) => t.name), options }
}

/** The text the model receives for a result: its JSON on success, the failure text otherwise. */
function modelText(result, set = defaultSet) {
  return result && result.ok === true ? JSON.stringify(set.result(result)) : failureText(result)
}

/** The AI SDK's model output for a tool output part ({ output }): the JSON on success, error text otherwise. Never throws. */
function modelOutput(part, set = defaultSet) {
  try {
    if (!part || typeof part !== 'object') {
      return { type: 'error-text', value: failureText({ code: 'INVALID_INPUT', message: 'the tool output is missing: toModelOutput takes { output }' }) }
    }
    const output = part.output
    return output && output.ok === true ? { type: 'json', value: set.result(output) } : { type: 'error-text', value: failureText(output) }
  } catch (err) {
    return { type: 'error-text', value: failureText(unreadable('the tool output', err)) }
  }
}

/**
 * Whether `toolOptions` (the adapters' second argument) asks for strict tools:
 * the strict schemas (schemas/strict/), and the SDK's strict flag where it has one.
 */
function strictOf(toolOptions) {
  return toolOptions !== null && typeof toolOptions === 'object' && toolOptions.strict === true
}

/**
 * The AI SDK tool set: tool name -> `tool({ description, inputSchema, execute, toModelOutput })`;
 * with `{ strict: true }`, the strict schemas and the tool's `strict` flag.
 */
function aiSdkTools(ai, options, toolOptions) {
  const strict = strictOf(toolOptions)
  const set = {}
  for (const e of entries(options, { strict })) {
    set[e.name] = ai.tool({
      description: e.description,
      inputSchema: ai.jsonSchema(e.parameters()),
      ...(strict ? { strict: true } : {}),
      execute: (input, callOptions) => {
        let signal
        try {
          signal = callOptions && callOptions.abortSignal
        } catch (err) {
          return Promise.resolve(unreadable('the call options', err))
        }
        return e.run(input, signal)
      },
      toModelOutput: (part) => modelOutput(part, e.set),
    })
  }
  return set
}

/**
 * `t` (a LangChain structured tool whose `schema` is a JSON schema) with its
 * input checked by the engine alone. LangChain reads `schema` twice: bindTools
 * turns it into the model's function definition, and `call` validates each
 * call's arguments against it, throwing ToolInputParsingException out of the
 * agent loop on a mismatch. The engine accepts more than the model-facing
 * schema lists (the aliases: `old_string`, `filePath`, ...) and refuses the
 * rest with an INVALID_INPUT that names the field, answered as an error
 * ToolMessage. So `call` validates against `{}` (any input; a fresh object
 * each time, as LangChain's validator writes into it): `schema` is swapped for
 * the synchronous start of `call`, where LangChain validates a JSON schema
 * (before its first await), and restored before anything else can read it.
 */
function engineValidates(t) {
  const call = t.call
  Object.defineProperty(t, 'call', {
    configurable: true,
    writable: true,
    value: function callCheckedByTheEngine(...args) {
      const schema = this.schema
      this.schema = {}
      try {
        return call.apply(this, args)
      } finally {
        this.schema = schema
      }
    },
  })
  return t
}

/** The ToolMessage of a tool call's answer, or the text itself when called without a tool call. */
function toolAnswer(lc, config, name, content, result, ok) {
  let id
  try {
    id = config && config.toolCall && config.toolCall.id
  } catch {
    id = undefined
  }
  if (!id) return content
  return new lc.ToolMessage({ content, artifact: result, tool_call_id: id, name, status: ok ? 'success' : 'error' })
}

/**
 * The `execute` of @langchain/openai's `tools.applyPatch({ execute })`: the
 * text for the model, as a ToolMessage with status "error" when the operation
 * failed (LangChain passes a ToolMessage through; a string would be "success").
 */
function langchainApplyPatch(lc, options) {
  engine.warm()
  engine.checkOptions(options, 'createApplyPatchExecute', { formats: true })
  return async (operation, config) => {
    // The call's abort signal reaches the engine (CANCELLED, nothing written), as for the other tools: without
    // it, LangChain answered the call aborted while its edit landed later.
    let signal
    try {
      signal = config && config.signal
    } catch (err) {
      const failure = unreadable('the call options', err)
      return toolAnswer(lc, undefined, 'apply_patch', failureText(failure), failure, false)
    }
    const r = await applyOperation(operation, withSignal(options, signal))
    return toolAnswer(lc, config, 'apply_patch', r.output, r.result, r.ok)
  }
}

/**
 * The LangChain tools (`tool()` from @langchain/core/tools), in DEFAULT_TOOLS order; with
 * `{ strict: true }`, their schemas are the strict ones (bind them with `bindTools(tools, { strict: true })`).
 */
function langchainTools(lc, options, toolOptions) {
  return entries(options, { strict: strictOf(toolOptions) }).map((e) =>
    engineValidates(lc.tool(
      async (input, config) => {
        let signal
        try {
          signal = config && config.signal
        } catch (err) {
          const failure = unreadable('the call options', err)
          return toolAnswer(lc, undefined, e.name, modelText(failure), failure, false)
        }
        const result = await e.run(input, signal)
        // Called with plain arguments (no tool call), LangChain returns the content itself.
        return toolAnswer(lc, config, e.name, modelText(result, e.set), result, result && result.ok === true)
      },
      // The model-facing schema; the arguments of a call are checked by the engine (engineValidates).
      { name: e.name, description: e.description, schema: e.parameters() },
    )),
  )
}

module.exports = { aiSdkTools, langchainTools, langchainApplyPatch, nullsAsAbsent }
