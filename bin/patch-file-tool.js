#!/usr/bin/env node
'use strict'
// `patch-file-tool` and `patch-file-mcp`: with no command, the MCP stdio
// server; with a command (patch, call, ...), the CLI. See `--help`.
require('../js/cli.js').main(process.argv.slice(2))
