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
// - LangChain: a ToolMessage whose content is that same text or JSON, whose
//   artifact is the result object, with status "error" on failure (chat
//   models that know tool errors, such as Anthropic's, pass it on).
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
 * The default tools, SDK-neutral: name, description, a fresh copy of the
 * JSON schema of their input, and run(args, signal) resolving to the
 * engine's result object. Loads the engine now, so that a platform without
 * it fails here (NATIVE_ENGINE_UNAVAILABLE) and not on the model's first call.
 */
function entries(callerOptions) {
  engine.warm()
  const { names, options: rest } = toolNames(callerOptions)
  const options = engine.modelOptions(rest)
  const set = tools.forSet(names)
  return names.map((name) => {
    const tool = tools.get(name)
    return {
      name,
      description: tool.schema.description,
      set,
      parameters: () => copy(tool.schema.parameters),
      async run(args, signal) {
        try {
          return await engine.run(tool, args, withSignal(options, signal))
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

/** The AI SDK tool set: tool name -> `tool({ description, inputSchema, execute, toModelOutput })`. */
function aiSdkTools(ai, options) {
  const set = {}
  for (const e of entries(options)) {
    set[e.name] = ai.tool({
      description: e.description,
      inputSchema: ai.jsonSchema(e.parameters()),
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

/** The LangChain tools (`tool()` from @langchain/core/tools), in DEFAULT_TOOLS order. */
function langchainTools(lc, options) {
  return entries(options).map((e) =>
    lc.tool(
      async (input, config) => {
        const result = await e.run(input, config && config.signal)
        const content = modelText(result, e.set)
        const id = config && config.toolCall && config.toolCall.id
        // Called with plain arguments (no tool call), LangChain returns the content itself.
        if (!id) return content
        return new lc.ToolMessage({
          content,
          artifact: result,
          tool_call_id: id,
          name: e.name,
          status: result && result.ok === true ? 'success' : 'error',
        })
      },
      // LangChain checks the arguments against the schema before the call; its error then names what is wrong.
      { name: e.name, description: e.description, schema: e.parameters(), verboseParsingErrors: true },
    ),
  )
}

module.exports = { aiSdkTools, langchainTools }
