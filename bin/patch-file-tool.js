#!/usr/bin/env node
'use strict'
// `patch-file-tool` and `patch-file-mcp`: with no command, the MCP stdio
// server; with a command (patch, call, ...), the CLI. See `--help`.

// Node >= 22.1 can keep compiled code of the modules we load (mostly the MCP
// SDK) in its on-disk compile cache, which shortens every later start.
// NODE_DISABLE_COMPILE_CACHE=1 turns it off; older Node versions skip this.
const nodeModule = require('node:module')
if (typeof nodeModule.enableCompileCache === 'function') {
  try {
    nodeModule.enableCompileCache()
  } catch {
    // A cache that cannot be set up only costs speed.
  }
}

require('../js/cli.js').main(process.argv.slice(2))
