// Preloaded into the server (node -r) by tests that act while a tool call is
// in flight: every tool call waits PFT_TEST_CALL_DELAY_MS before it reaches
// the engine (js/engine.js `run`, which the server calls for each tool).
'use strict'
const path = require('node:path')

const engine = require(path.join(__dirname, '..', '..', 'js', 'engine.js'))
const run = engine.run
const ms = Number(process.env.PFT_TEST_CALL_DELAY_MS) || 0
engine.run = async function (tool, args, options) {
  await new Promise((resolve) => setTimeout(resolve, ms))
  return run.call(this, tool, args, options)
}
