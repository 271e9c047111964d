'use strict'
// The engine as the front-ends call it: the package's public API object
// (the one index.js exports), built once, on first use, from the native
// binding (js/native.js) and the tool table (js/api.js), and a way to run a
// tool of the table (js/tools.js) through it.
//
// The MCP server, the CLI and the agent-SDK adapters run tools through here,
// so they share the API object a program gets from require('patch-file-tool')
// (its busy-file waits and cancellation, js/calls.js), and the table stays
// plain data: js/tools.js never loads the engine, and nothing depends back on
// index.js.

let api = null

/** The package's public API (loads the native addon once); throws NATIVE_ENGINE_UNAVAILABLE. */
function engine() {
  if (!api) api = require('./api.js').publicApi(require('./native.js').load())
  return api
}

/**
 * Runs a tool through the engine. Never throws for bad input: the engine
 * answers every input with a result object (`ok: false` + `code` on failure).
 * @param {object} tool  an entry of js/tools.js (list(), get(), select())
 * @param {unknown} args the tool arguments as received
 * @param {{workspaceRoot: string}} options engine options
 */
function run(tool, args, options) {
  return engine()[tool.engine](args === undefined ? {} : args, options)
}

/**
 * The engine options of a call a model makes (the MCP server, the agent-SDK
 * adapters): a search/replace edit that gives no `match` tolerates line
 * endings alone, so LF text sent against a CRLF file (what models emit) lands
 * where it is unique, the file keeping its CRLF, instead of costing a retry.
 * The plan is verified as every tolerant plan is. Results come in the
 * compact view (core/src/result/view.rs: each fact once, paths relative to the
 * root), what a model reads. The JS API stays exact and full by default. A
 * caller's own `defaultMatch` and `results` win.
 */
function modelOptions(options) {
  try {
    return { defaultMatch: ['line_endings'], results: 'compact', ...options }
  } catch {
    return options // options whose reading throws go as they are: the engine refuses them
  }
}

/**
 * The engine options of an adapter whose model reads text written from the
 * result (Anthropic's text editor, apply_patch operations): the compact
 * view, as modelOptions, and nothing else changed. A caller's `results` wins.
 */
function compactOptions(options) {
  try {
    return { results: 'compact', ...options }
  } catch {
    return options
  }
}

/**
 * Throws a TypeError naming `who` when the engine would refuse `options` on
 * every call (`workspaceroot`, `timeout`): a developer's mistake, told to the
 * developer at construction rather than to the model at each call, which
 * cannot fix it. Options whose reading throws, and a `signal` (a call's own),
 * are left to the calls; `formats`: an edit format's options (a dry run too).
 */
function checkOptions(options, who, { formats = false } = {}) {
  if (options === undefined || options === null) return
  let probe
  try {
    const { signal: _signal, ...rest } = options
    // The edit formats' entry points also take a dry run among their options.
    if (formats) for (const k of ['dryRun', 'dry_run']) delete rest[k]
    probe = rest
  } catch {
    return
  }
  const r = engine().patchFileSync({}, probe)
  if (r && r.ok === false && r.code === 'INVALID_INPUT' && /^options\b/.test(String(r.message))) {
    throw new TypeError(`${who}: ${r.message}`)
  }
}

/** Loads the engine ahead of the first call (the MCP server does at start-up); throws NATIVE_ENGINE_UNAVAILABLE. */
function warm() {
  engine()
}

module.exports = { engine, run, warm, checkOptions, modelOptions, compactOptions }
