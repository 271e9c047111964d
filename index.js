'use strict'
// Public entry point (CommonJS). js/engine.js builds the exports once, with
// js/api.js, from the tool table in js/tools.js: each tool's native function
// (from the napi-rs loader in binding.js, loaded by js/native.js, which turns
// a platform without a binary into an error that says so), then the frozen
// error-code map and the tool schemas, which are JSON files shared with the
// MCP server. The MCP server, the CLI and the SDK adapters use this same object.

module.exports = require('./js/engine.js').engine()
