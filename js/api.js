'use strict'
// The public API object (index.js exports it; index.mjs re-exports its
// fields), built from the tool table in js/tools.js:
//
// 1. for each tool, in table order, its engine function and, when the entry
//    names one, its synchronous variant, taken from the native binding;
// 2. then what this package adds in JS: the frozen error-code map and the
//    tool schemas (`schemas.<tool>`, and `patchFileSchema`).
//
// scripts/gen-entry.mjs derives index.mjs's named exports and the function
// declarations of index.d.ts from the same two lists (`bindingExports()`
// and the keys of `ownExports()`), without loading the native addon.

const tools = require('./tools.js')
const { asyncCall } = require('./calls.js')

/** The names index.js takes from the native binding, in export order. */
function bindingExports() {
  const names = []
  for (const tool of tools.list()) {
    names.push(tool.engine)
    if (tool.sync) names.push(tool.sync)
  }
  return names
}

function deepFreeze(o) {
  for (const v of Object.values(o)) if (v && typeof v === 'object') deepFreeze(v)
  return Object.freeze(o)
}

/**
 * The exports this package defines in JS. Of the binding it only calls
 * `errorCodes()`.
 */
function ownExports(native) {
  const codes = {}
  for (const code of native.errorCodes()) codes[code] = code
  const schemas = {}
  for (const tool of tools.list()) schemas[tool.name] = deepFreeze(tool.schema)
  return {
    PATCH_FILE_ERROR_CODES: Object.freeze(codes),
    patchFileSchema: schemas.patch_file,
    schemas: Object.freeze(schemas),
  }
}

/**
 * The public API over `native` (the napi-rs loader, binding.js). The async
 * engine functions wait for a busy file on the event loop and can be
 * cancelled (js/calls.js); the
 * sync ones are the native functions themselves.
 */
function publicApi(native) {
  const api = {}
  const asyncEngines = new Set(tools.list().map((t) => t.engine))
  for (const name of bindingExports()) {
    if (typeof native[name] !== 'function') {
      throw new Error(`the native binding has no function ${name} (named in js/tools.js); rebuild it with npm run build`)
    }
    api[name] = asyncEngines.has(name) ? asyncCall(native[name], native) : native[name]
  }
  return Object.assign(api, ownExports(native))
}

module.exports = { publicApi, bindingExports, ownExports }
