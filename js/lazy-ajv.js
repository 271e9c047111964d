'use strict'
// Start-up cost: the SDK's server module loads its JSON-schema validator
// (`@modelcontextprotocol/sdk/validation/ajv`: ajv + ajv-formats, ~70 files)
// and builds an Ajv instance in the Server constructor, although a server
// uses it only to check answers to elicitation requests, which this server
// never sends. This puts a lazy stand-in for that module in the require
// cache: the real module is loaded, and the real validator built, on the
// first getValidator() call, so behaviour is unchanged and the cost is paid
// only if it is ever needed. If the SDK's layout differs (the module cannot
// be resolved, or is already loaded), nothing is done and the SDK loads as
// usual.

const Module = require('node:module')

function deferAjvValidator() {
  let file
  try {
    file = require.resolve('@modelcontextprotocol/sdk/validation/ajv')
  } catch {
    return false
  }
  if (require.cache[file]) return false

  let Real = null
  const loadReal = () => {
    if (!Real) {
      delete require.cache[file]
      Real = require(file).AjvJsonSchemaValidator
    }
    return Real
  }
  class AjvJsonSchemaValidator {
    constructor(ajv) {
      this._ajv = ajv
      this._real = null
    }
    getValidator(schema) {
      if (!this._real) this._real = new (loadReal())(this._ajv)
      return this._real.getValidator(schema)
    }
  }
  const stand = new Module(file, module)
  stand.filename = file
  stand.loaded = true
  stand.exports = { AjvJsonSchemaValidator }
  require.cache[file] = stand
  return true
}

module.exports = { deferAjvValidator }
