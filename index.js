'use strict'
// Public entry point (CommonJS). js/api.js builds the exports from the tool
// table in js/tools.js: each tool's native function (from the napi-rs loader
// in binding.js, loaded by js/native.js, which turns a platform without a
// binary into an error that says so), then the frozen error-code map and the
// tool schemas, which are JSON files shared with the MCP server.

module.exports = require('./js/api.js').publicApi(require('./js/native.js').load())
