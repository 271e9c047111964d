'use strict'
// The MCP stdio server: the SDK's low-level `Server` answers initialize,
// ping, cancellation and protocol errors; this file registers the tools of
// js/tools.js (tools/list and tools/call) and handles shutdown.
//
// Why the low-level `Server` and not `McpServer.registerTool`: registerTool
// only takes zod schemas (a plain JSON schema throws "inputSchema must be a
// Zod schema or raw shape") and re-derives the JSON schema it lists from
// zod, so the listed inputSchema could not be exactly the `parameters` of
// schemas/<tool>.schema.json. Here tools/list returns those objects as they
// are, and no zod schemas are built at start-up.
//
// stdout carries only protocol messages; logs go to stderr.

const { LineTransport } = require('./stdio-transport.js')
const tools = require('./tools.js')

const LEVELS = { silent: 0, error: 1, info: 2, debug: 3 }

/** Exit code when the native engine cannot be loaded (the CLI's EXIT.NO_ENGINE too). */
const EXIT_NO_ENGINE = 4

function makeLogger(env = process.env) {
  const level = LEVELS[env.PATCH_FILE_LOG] ?? LEVELS.info
  const out = (lvl) => (msg) => {
    if (LEVELS[lvl] <= level) process.stderr.write(`patch-file-tool: ${msg}\n`)
  }
  return { error: out('error'), info: out('info'), debug: out('debug') }
}

/** The result of a tools/call: the engine's result object, structured and as JSON text. */
function toCallResult(result) {
  return {
    content: [{ type: 'text', text: JSON.stringify(result) }],
    structuredContent: result,
    isError: result.ok !== true,
  }
}

/** The tools/list entry of a tool: inputSchema is the schema file's `parameters`, unchanged. */
function toListedTool(tool) {
  return {
    name: tool.name,
    title: tool.title,
    description: tool.schema.description,
    inputSchema: tool.schema.parameters,
    outputSchema: tool.outputSchema,
    annotations: { title: tool.title, ...tool.hints },
  }
}

function instructions(root) {
  return (
    `Edits files under the workspace root ${root} by exact search/replace: read_file, then patch_file with the ` +
    `smallest block of current text that occurs exactly once, copied byte for byte. Relative paths are relative ` +
    `to the workspace root; paths outside it are refused. A failed call writes nothing and returns a stable ` +
    `code with the next step in its message.`
  )
}

/**
 * Serves MCP on stdin/stdout until stdin ends or SIGINT/SIGTERM/SIGHUP, then
 * waits for calls in flight (their writes complete and are answered) and exits 0.
 * @param {{root: string, version: string}} opts
 */
async function serve({ root, version }) {
  const log = makeLogger()
  // Load the native engine before anything else (a few ms): on a machine it
  // cannot load on (no prebuilt binary for the platform, or the platform
  // package not installed) the server refuses to start, with the reason on
  // stderr and exit code 4 (EXIT_NO_ENGINE), instead of answering initialize
  // and then failing every call.
  try {
    tools.warm()
  } catch (err) {
    process.stderr.write(`patch-file-tool: the MCP server cannot start.\n${err.message}\n`)
    process.exit(EXIT_NO_ENGINE)
  }
  require('./lazy-ajv.js').deferAjvValidator()
  const { Server } = require('@modelcontextprotocol/sdk/server/index.js')
  const { ListToolsRequestSchema, CallToolRequestSchema, McpError, ErrorCode } = require('@modelcontextprotocol/sdk/types.js')

  const delayMs = Number(process.env.PATCH_FILE_TEST_CALL_DELAY_MS) || 0
  const options = require('./root.js').engineOptions(root)
  const inflight = new Set()
  let stopping = null

  const server = new Server(
    { name: 'patch-file-tool', title: 'patch-file-tool', version },
    { capabilities: { tools: {} }, instructions: instructions(root) },
  )
  server.onerror = (err) => log.debug(`protocol: ${err && err.message ? err.message : err}`)

  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: tools.list().map(toListedTool) }))

  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const { name, arguments: args } = request.params
    const tool = tools.get(name)
    if (!tool) {
      throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${name}. Tools: ${tools.list().map((t) => t.name).join(', ')}`)
    }
    log.debug(`call ${name} (request ${extra.requestId})`)
    const call = (async () => {
      if (delayMs) await new Promise((r) => setTimeout(r, delayMs))
      // A call cancelled before it started writes nothing; once started it completes (writes are atomic).
      if (extra.signal.aborted) return null
      try {
        return await tools.run(tool, args, options)
      } catch (err) {
        log.error(`${name}: ${err.stack || err}`)
        return { ok: false, code: 'INTERNAL_ERROR', message: `internal error (${err.message}); nothing was written` }
      }
    })()
    inflight.add(call)
    let result
    try {
      result = await call
    } finally {
      inflight.delete(call)
    }
    if (result === null) throw new McpError(ErrorCode.RequestTimeout, 'Request cancelled before it started')
    log.debug(`done ${name} (request ${extra.requestId}): ${result.ok ? 'ok' : result.code}`)
    return toCallResult(result)
  })

  const maxMessageBytes = Number(process.env.PATCH_FILE_MCP_MAX_MESSAGE_BYTES) || undefined
  const transport = new LineTransport({ maxMessageBytes, onEnd: () => shutdown('stdin closed') })

  function shutdown(reason) {
    if (stopping) return stopping
    log.debug(`shutting down: ${reason}; ${inflight.size} call(s) in flight`)
    transport.stopReading()
    stopping = (async () => {
      // Requests read just before the end reach their handlers in a later
      // microtask; let them register before looking at what is in flight.
      await new Promise((r) => setImmediate(r))
      // Finish every call in flight; the SDK sends each answer as it settles.
      while (inflight.size > 0) await Promise.allSettled([...inflight])
      await new Promise((r) => setImmediate(r))
      await transport.flush()
      process.exit(0)
    })()
    return stopping
  }

  for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(sig, () => shutdown(sig))

  await server.connect(transport)
  log.info(`MCP server ${version} on stdio; workspace root ${root}`)
}

module.exports = { serve, toCallResult, toListedTool, EXIT_NO_ENGINE }
