// The official SDK client connected to the real bin, for the MCP tests.
//
// Unless a test says otherwise the server lists every tool with its output
// schema (--tools all --output-schemas), and the client lists the tools
// before any call: the SDK client then validates every structuredContent it
// receives against the listed schema (callTool rejects one that does not
// fit, or a success without it). On top of that every answer goes through
// helpers/mcp-results.mjs (one compact JSON text block, isError exactly on
// failure, the result fits the tool's output schema), whatever the server's
// options.
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { BIN, cleanEnv } from './mcp-raw.mjs'
import { answersStructured, checkAnswer } from './mcp-results.mjs'

/**
 * Connects the SDK client to the bin started with `args`.
 * `tools` (default 'all') and `outputSchemas` (default true) add --tools and
 * --output-schemas unless `args` or `env` already choose.
 * @returns {Promise<{client: Client, transport: StdioClientTransport, stderr: () => string, listed: object[]}>}
 */
export async function connect({ args = [], env = cleanEnv(), cwd, tools = 'all', outputSchemas = true, name = 'mcp-test' } = {}) {
  const full = [...args]
  if (tools && !full.includes('--tools') && !env.PATCH_FILE_TOOLS) full.push('--tools', tools)
  if (outputSchemas && !full.includes('--output-schemas') && !env.PATCH_FILE_OUTPUT_SCHEMAS) full.push('--output-schemas')
  const structured = answersStructured(full, env)
  const transport = new StdioClientTransport({ command: process.execPath, args: [BIN, ...full], env, cwd, stderr: 'pipe' })
  let stderr = ''
  transport.stderr.setEncoding('utf8')
  transport.stderr.on('data', (s) => (stderr += s))
  const client = new Client({ name, version: '0' })
  await client.connect(transport)
  const { tools: listed } = await client.listTools()
  const callTool = client.callTool.bind(client)
  client.callTool = async (params, ...rest) => {
    const answer = await callTool(params, ...rest)
    if (structured) {
      const t = listed.find((x) => x.name === params.name)
      if (t && !client.getToolOutputValidator(params.name)) throw new Error(`the SDK client holds no output validator for ${params.name}`)
    }
    checkAnswer(params.name, answer, structured)
    return answer
  }
  return { client, transport, stderr: () => stderr, listed }
}

/** Runs `fn(client, connection)` on a fresh connection, closing it after. */
export async function withClient(opts, fn) {
  const c = await connect(opts)
  try {
    return await fn(c.client, c)
  } finally {
    await c.client.close()
  }
}

/** The engine's result object of a tools/call answer (already checked by connect's callTool). */
export function resultOf(answer) {
  return JSON.parse(answer.content[0].text)
}
