// The MCP stdio server, driven through the real bin: with the SDK's own
// Client + StdioClientTransport for the tools (helpers/mcp-client.mjs: every
// result validated against the listed output schemas), and over raw lines
// for malformed input, signals and exit codes.
import './helpers/private-state.mjs'
import { listedByDefault } from './helpers/listed.mjs'
import { test, afterEach } from 'node:test'
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { createRequire } from 'node:module'
import fs from 'node:fs'
import path from 'node:path'
import crypto from 'node:crypto'
import { LATEST_PROTOCOL_VERSION } from '@modelcontextprotocol/sdk/types.js'
import { BIN, ROOT, INITIALIZE, tempDir, cleanEnv, delayedEnv, rawServer, killAll } from './helpers/mcp-raw.mjs'
import { withClient, resultOf } from './helpers/mcp-client.mjs'

afterEach(killAll)

const T = { timeout: 60_000 }
const require = createRequire(import.meta.url)
const sha256 = (bytes) => crypto.createHash('sha256').update(bytes).digest('hex')
const tools = require('../js/tools.js')

function schemaFiles() {
  const dir = path.join(ROOT, 'schemas')
  return fs
    .readdirSync(dir)
    .filter((f) => f.endsWith('.schema.json'))
    .map((f) => JSON.parse(fs.readFileSync(path.join(dir, f), 'utf8')))
}

/** The structured result, checked against its text copy. */
function structured(r) {
  assert.equal(r.content.length, 1)
  assert.equal(r.content[0].type, 'text')
  assert.deepEqual(JSON.parse(r.content[0].text), r.structuredContent)
  return r.structuredContent
}

/** The names tools/list answers with, for a server started with `args` (and `env`). */
async function listedNames(args, env = cleanEnv()) {
  const s = rawServer({ args: ['--root', tempDir(), ...args], env })
  await s.initialize()
  s.send({ jsonrpc: '2.0', id: 1, method: 'tools/list' })
  const { tools: listed } = (await s.response(1)).result
  s.child.stdin.end()
  assert.equal((await s.exit).code, 0)
  return listed.map((t) => t.name)
}

test('tools/list by default: exactly patch_file, read_file, write_file, apply_patch, undo, without output schemas', T, async () => {
  const dir = tempDir()
  await withClient({ args: ['--root', dir], tools: null, outputSchemas: false }, async (client, c) => {
    const { tools: listed } = await client.listTools()
    assert.deepEqual(listed.map((t) => t.name), ['patch_file', 'read_file', 'write_file', 'apply_patch', 'undo'])
    for (const t of listed) {
      const s = JSON.parse(fs.readFileSync(path.join(ROOT, 'schemas', `${t.name}.schema.json`), 'utf8'))
      // Only what the model needs: no output schema, no duplicated title, hints that differ from the defaults.
      assert.deepEqual(Object.keys(t).sort(), ['annotations', 'description', 'inputSchema', 'name', 'title'], t.name)
      assert.deepEqual(t.inputSchema, listedByDefault(t.name, s.parameters), `${t.name} inputSchema`)
      assert.equal(t.description, s.description)
      assert.deepEqual(t.annotations, tools.get(t.name).annotations)
      assert.equal('title' in t.annotations, false)
    }
    assert.deepEqual(listed.find((t) => t.name === 'read_file').annotations, { readOnlyHint: true, openWorldHint: false })
    assert.deepEqual(listed.find((t) => t.name === 'patch_file').annotations, { openWorldHint: false })
    assert.deepEqual(listed.find((t) => t.name === 'write_file').annotations, { idempotentHint: true, openWorldHint: false })
    // The instructions say only what no tool description does.
    assert.equal(client.getInstructions(), `Workspace root: ${dir}. Relative paths resolve from it. A failed call changes nothing.`)
    assert.match(c.stderr(), /tools patch_file, read_file, write_file, apply_patch, undo\n/)
  })
})

test('tools/list with --tools all --output-schemas: every schemas/*.schema.json tool, with its output schema without descriptions', T, async () => {
  const dir = tempDir()
  await withClient({ args: ['--root', dir] }, async (client) => {
    const { tools: listed } = await client.listTools()
    const files = schemaFiles()
    assert.deepEqual(listed.map((t) => t.name).sort(), files.map((s) => s.name).sort())
    assert.deepEqual(listed.map((t) => t.name), tools.list().map((t) => t.name), 'in table order')
    for (const s of files) {
      const t = listed.find((x) => x.name === s.name)
      assert.deepEqual(t.inputSchema, s.parameters, `${s.name} inputSchema`)
      assert.equal(t.description, s.description)
      assert.equal(t.inputSchema.additionalProperties, false)
      assert.equal(t.outputSchema.type, 'object')
      assert.deepEqual(t.outputSchema.required, ['ok'])
      assert.doesNotMatch(JSON.stringify(t.outputSchema), /"description"/, `${s.name}: a lean output schema`)
      // The same schema as js/output-schemas.js, less its prose.
      const strip = (v) => JSON.parse(JSON.stringify(v, (k, x) => (k === 'description' && typeof x === 'string' ? undefined : x)))
      assert.deepEqual(t.outputSchema, strip(tools.get(s.name).outputSchema), `${s.name} outputSchema`)
    }
  })
})

test('--tools and PATCH_FILE_TOOLS: each profile lists exactly its tools; names and profiles mix, each tool once, in table order', T, async () => {
  const profiles = {
    default: ['patch_file', 'read_file', 'write_file', 'apply_patch', 'undo'],
    minimal: ['patch_file', 'read_file'],
    'text-editor': ['str_replace_based_edit_tool'],
    'edit-blocks': ['read_file', 'write_file', 'edit_block'],
    filesystem: ['read_file', 'write_file', 'edit_file'],
    codex: ['read_file', 'apply_patch'],
    anchors: ['read_file', 'edit_lines', 'undo'],
    all: tools.list().map((t) => t.name),
  }
  assert.deepEqual(Object.keys(tools.PROFILES).sort(), Object.keys(profiles).sort())
  for (const [name, want] of Object.entries(profiles)) {
    assert.deepEqual(tools.PROFILES[name], want, name)
    assert.deepEqual(await listedNames(['--tools', name]), want, `--tools ${name}`)
  }
  assert.equal(profiles.all.length, 12)
  assert.deepEqual(await listedNames(['--tools', ' history , minimal,patch_file ']), ['patch_file', 'read_file', 'history'])
  assert.deepEqual(await listedNames([], cleanEnv({ PATCH_FILE_TOOLS: 'codex,undo' })), ['read_file', 'apply_patch', 'undo'])
  // The flag wins over the variable, as for the workspace root, and says so.
  const s = rawServer({ args: ['--root', tempDir(), '--tools', 'minimal'], env: cleanEnv({ PATCH_FILE_TOOLS: 'all' }) })
  await s.initialize()
  s.send({ jsonrpc: '2.0', id: 1, method: 'tools/list' })
  assert.deepEqual((await s.response(1)).result.tools.map((t) => t.name), ['patch_file', 'read_file'])
  assert.match(s.stderr, /warning: PATCH_FILE_TOOLS=all is ignored: --tools minimal is given/)
  s.child.stdin.end()
  await s.exit
})

test('an unknown tool or profile name, or an output-schema switch neither on nor off, stops the server at start with exit 2', T, () => {
  const start = (args, env = cleanEnv()) => spawnSync(process.execPath, [BIN, '--root', tempDir(), ...args], { env, input: '', encoding: 'utf8' })
  for (const [args, env, re] of [
    [['--tools', 'patch_file,edit_blocks'], cleanEnv(), /--tools: unknown tool or profile "edit_blocks"; tools: patch_file, .*; profiles: default, .*edit-blocks/],
    [['--tools', ' , '], cleanEnv(), /--tools: names no tool/],
    [[], cleanEnv({ PATCH_FILE_TOOLS: 'defualt' }), /PATCH_FILE_TOOLS: unknown tool or profile "defualt"/],
    [[], cleanEnv({ PATCH_FILE_OUTPUT_SCHEMAS: 'maybe' }), /PATCH_FILE_OUTPUT_SCHEMAS must be on or off/],
    // Settings every call would find wrong, one by one, are checked at start too.
    [[], cleanEnv({ PATCH_FILE_HARD_LINKS: 'bogus' }), /PATCH_FILE_HARD_LINKS must be refuse, split or keep/],
    // (An elisions switch that is neither was found by every call, read_file too.)
    [[], cleanEnv({ PATCH_FILE_ELISIONS: 'bogus' }), /PATCH_FILE_ELISIONS must be expand or literal, not "bogus"/],
    // A word for a journal switch, or a relative path, was a journal directory under the server's cwd (a project).
    [[], cleanEnv({ PATCH_FILE_JOURNAL: 'disabled' }), /PATCH_FILE_JOURNAL must be off, on or an absolute directory, not "disabled"/],
    [[], cleanEnv({ PATCH_FILE_JOURNAL: 'state/journal' }), /PATCH_FILE_JOURNAL must be off, on or an absolute directory/],
    [[], cleanEnv({ PATCH_FILE_MCP_MAX_MESSAGE_BYTES: '-1' }), /PATCH_FILE_MCP_MAX_MESSAGE_BYTES must be a whole number of bytes, at least 4096/],
    [[], cleanEnv({ PATCH_FILE_MCP_MAX_RESULT_BYTES: '1' }), /PATCH_FILE_MCP_MAX_RESULT_BYTES must be a whole number/],
  ]) {
    const r = start(args, env)
    assert.equal(r.status, 2, `${args} ${r.stderr}`)
    assert.equal(r.stdout, '')
    assert.match(r.stderr, re)
  }
  const cmd = spawnSync(process.execPath, [BIN, 'call', 'read_file'], { env: cleanEnv({ PATCH_FILE_HARD_LINKS: 'bogus' }), input: '{}', encoding: 'utf8' })
  assert.equal(cmd.status, 2)
  assert.match(cmd.stderr, /PATCH_FILE_HARD_LINKS must be/)
  // --tools is an option of the server, not of the commands.
  const c = spawnSync(process.execPath, [BIN, 'call', 'read_file', '--tools', 'all'], { env: cleanEnv(), input: '{}', encoding: 'utf8' })
  assert.equal(c.status, 2)
  assert.match(c.stderr, /unknown option --tools \(options here: --root, --help;/)
})

test('a tool the server does not list is an unknown tool, and the error says how to enable it', T, async () => {
  const dir = tempDir()
  fs.writeFileSync(path.join(dir, 'a.txt'), 'a\n')
  await withClient({ args: ['--root', dir], tools: 'minimal', outputSchemas: false }, async (client) => {
    await assert.rejects(client.callTool({ name: 'write_file', arguments: { file_path: 'a.txt', content: 'b\n' } }), (e) => {
      assert.equal(e.code, -32602)
      assert.match(e.message, /Unknown tool: write_file \(write_file is not enabled: add it to --tools or PATCH_FILE_TOOLS\)\. Tools: patch_file, read_file/)
      return true
    })
    assert.equal(fs.readFileSync(path.join(dir, 'a.txt'), 'utf8'), 'a\n')
    assert.equal(resultOf(await client.callTool({ name: 'read_file', arguments: { file_path: 'a.txt' } })).content, 'a\n')
  })
})

test('without output schemas an answer is one compact JSON text block, no structuredContent; PATCH_FILE_OUTPUT_SCHEMAS=on adds it', T, async () => {
  const dir = tempDir()
  fs.writeFileSync(path.join(dir, 'c.ts'), 'x = 1\n')
  const call = { name: 'patch_file', arguments: { file_path: 'c.ts', search_block: 'x = 1', replace_block: 'x = 2' } }
  await withClient({ args: ['--root', dir], tools: null, outputSchemas: false }, async (client) => {
    const r = await client.callTool(call)
    assert.deepEqual(Object.keys(r).sort(), ['content', 'isError'])
    assert.equal(r.isError, false)
    assert.doesNotMatch(r.content[0].text, /\n/)
    assert.equal(resultOf(r).ok, true)
    const miss = await client.callTool(call)
    assert.equal(miss.isError, true)
    assert.equal(resultOf(miss).code, 'SEARCH_BLOCK_NOT_FOUND')
  })
  await withClient({ args: ['--root', dir], env: cleanEnv({ PATCH_FILE_OUTPUT_SCHEMAS: 'on' }), tools: null, outputSchemas: false }, async (client) => {
    const { tools: listed } = await client.listTools()
    assert.ok(listed.every((t) => t.outputSchema && t.outputSchema.type === 'object'))
    const r = await client.callTool({ ...call, arguments: { ...call.arguments, search_block: 'x = 2', replace_block: 'x = 3' } })
    assert.deepEqual(r.structuredContent, resultOf(r))
    assert.equal(r.structuredContent.ok, true)
  })
  assert.equal(fs.readFileSync(path.join(dir, 'c.ts'), 'utf8'), 'x = 3\n')
})

test('patch_file edits the file and returns structuredContent plus the same JSON as text', T, async () => {
  const dir = tempDir()
  fs.writeFileSync(path.join(dir, 'config.ts'), 'a\nexport const retries = 2;\n')
  await withClient({ args: ['--root', dir] }, async (client) => {
    const r = await client.callTool({
      name: 'patch_file',
      arguments: { file_path: 'config.ts', search_block: 'retries = 2;', replace_block: 'retries = 3;' },
    })
    assert.equal(r.isError, false)
    const s = structured(r)
    // The compact result: where it landed and the hash the next call's expected_sha256 takes, nothing twice.
    assert.deepEqual(Object.keys(s).sort(), ['file_path', 'line_number', 'ok', 'sha256'])
    assert.equal(s.ok, true)
    assert.equal(s.file_path, 'config.ts')
    assert.equal(s.line_number, 2)
    assert.equal(s.sha256, sha256(fs.readFileSync(path.join(dir, 'config.ts'))))
    assert.equal(fs.readFileSync(path.join(dir, 'config.ts'), 'utf8'), 'a\nexport const retries = 3;\n')
  })
})

test('--full-results (or PATCH_FILE_RESULTS=full) answers with the full result; a bad PATCH_FILE_RESULTS is a usage error', T, async () => {
  const dir = tempDir()
  const file = path.join(dir, 'config.ts')
  fs.writeFileSync(file, 'a\nexport const retries = 2;\n')
  const before = sha256(fs.readFileSync(file))
  for (const [i, opts] of [{ args: ['--root', dir, '--full-results'] }, { args: ['--root', dir], env: cleanEnv({ PATCH_FILE_RESULTS: 'full' }) }].entries()) {
    await withClient(opts, async (client) => {
      const from = i === 0 ? 'retries = 2;' : 'retries = 3;'
      const to = i === 0 ? 'retries = 3;' : 'retries = 4;'
      const s = resultOf(await client.callTool({ name: 'patch_file', arguments: { file_path: 'config.ts', search_block: from, replace_block: to } }))
      assert.equal(s.ok, true, JSON.stringify(s))
      assert.equal(s.file_path, file)
      assert.equal(s.replacements, 1)
      assert.equal(s.write_strategy, 'rename')
      assert.equal(s.after_bytes, fs.statSync(file).size)
      if (i === 0) assert.equal(s.sha256_before, before)
      assert.equal(s.sha256, sha256(fs.readFileSync(file)))
    })
  }
  const r = spawnSync(process.execPath, [BIN, '--root', dir], { input: '', env: cleanEnv({ PATCH_FILE_RESULTS: 'short' }), encoding: 'utf8' })
  assert.equal(r.status, 2)
  assert.match(r.stderr, /PATCH_FILE_RESULTS must be full or compact/)
})

test('patch_file with edits[] through MCP: applied in order, all or none', T, async () => {
  const dir = tempDir()
  const file = path.join(dir, 'e.ts')
  fs.writeFileSync(file, 'const a = 1\nconst b = 2\n')
  await withClient({ args: ['--root', dir], tools: null, outputSchemas: false }, async (client) => {
    const edits = [
      { search_block: 'const a = 1', replace_block: 'const a = 10' },
      { search_block: 'a = 10\nconst b', replace_block: 'a = 10\nlet b' },
    ]
    const bad = resultOf(await client.callTool({ name: 'patch_file', arguments: { file_path: 'e.ts', edits: [...edits, { search_block: 'nope', replace_block: 'x' }] } }))
    assert.equal(bad.ok, false)
    assert.deepEqual(bad.failed_edits.map((e) => [e.index, e.code]), [[2, 'SEARCH_BLOCK_NOT_FOUND']])
    assert.equal(fs.readFileSync(file, 'utf8'), 'const a = 1\nconst b = 2\n')
    const ok = resultOf(await client.callTool({ name: 'patch_file', arguments: { file_path: 'e.ts', edits } }))
    assert.equal(ok.ok, true, JSON.stringify(ok))
    assert.equal(ok.replacements, 2)
    assert.equal(fs.readFileSync(file, 'utf8'), 'const a = 10\nlet b = 2\n')
  })
})

test('a failing call has isError: true with code, message and match_count, and writes nothing', T, async () => {
  const dir = tempDir()
  const file = path.join(dir, 'f.txt')
  fs.writeFileSync(file, 'x = 1\nx = 1\n')
  await withClient({ args: ['--root', dir] }, async (client) => {
    const missing = await client.callTool({ name: 'patch_file', arguments: { file_path: 'f.txt', search_block: 'y = 1', replace_block: 'z' } })
    assert.equal(missing.isError, true)
    const m = structured(missing)
    assert.equal(m.ok, false)
    assert.equal(m.code, 'SEARCH_BLOCK_NOT_FOUND')
    assert.equal(m.match_count, 0)
    assert.ok(m.message.length > 0)

    const twice = await client.callTool({ name: 'patch_file', arguments: { file_path: 'f.txt', search_block: 'x = 1', replace_block: 'z' } })
    assert.equal(twice.isError, true)
    const a = structured(twice)
    assert.equal(a.code, 'SEARCH_BLOCK_AMBIGUOUS')
    assert.equal(a.match_count, 2)
    assert.deepEqual(a.match_lines, [1, 2])

    const bad = await client.callTool({ name: 'patch_file', arguments: { file_path: 'f.txt', search_block: 'x' } })
    assert.equal(bad.isError, true)
    assert.equal(structured(bad).code, 'INVALID_INPUT')
    assert.equal(fs.readFileSync(file, 'utf8'), 'x = 1\nx = 1\n')
  })
})

test('paths outside the workspace root are refused (relative and absolute)', T, async () => {
  const outer = tempDir()
  const root = path.join(outer, 'ws')
  fs.mkdirSync(root)
  const outside = path.join(outer, 'secret.txt')
  fs.writeFileSync(outside, 'token = 1\n')
  await withClient({ args: ['--root', root] }, async (client) => {
    for (const p of ['../secret.txt', outside]) {
      const r = await client.callTool({ name: 'patch_file', arguments: { file_path: p, search_block: 'token = 1', replace_block: 'token = 2' } })
      assert.equal(r.isError, true, p)
      assert.equal(structured(r).code, 'PATH_OUTSIDE_WORKSPACE', p)
    }
    const w = await client.callTool({ name: 'write_file', arguments: { file_path: '../new.txt', content: 'x' } })
    assert.equal(structured(w).code, 'PATH_OUTSIDE_WORKSPACE')
    const rd = await client.callTool({ name: 'read_file', arguments: { file_path: '../secret.txt' } })
    assert.equal(structured(rd).code, 'PATH_OUTSIDE_WORKSPACE')
  })
  assert.equal(fs.readFileSync(outside, 'utf8'), 'token = 1\n')
  assert.equal(fs.existsSync(path.join(outer, 'new.txt')), false)
})

test('workspace root: --root, else PATCH_FILE_WORKSPACE_ROOT, else the client\'s roots (mcp-roots.test.mjs), never the cwd', T, async () => {
  const envDir = tempDir()
  const flagDir = tempDir()
  const cwdDir = tempDir()
  for (const d of [envDir, flagDir, cwdDir]) fs.writeFileSync(path.join(d, 'which.txt'), 'root\n')
  const call = (client) =>
    client.callTool({ name: 'patch_file', arguments: { file_path: 'which.txt', search_block: 'root', replace_block: 'chosen' } })
  const chosen = () => [envDir, flagDir, cwdDir].filter((d) => fs.readFileSync(path.join(d, 'which.txt'), 'utf8') === 'chosen\n')

  await withClient({ args: ['--root', flagDir], env: cleanEnv({ PATCH_FILE_WORKSPACE_ROOT: envDir }), cwd: cwdDir }, async (client, c) => {
    assert.equal(structured(await call(client)).ok, true)
    assert.deepEqual(chosen(), [flagDir])
    assert.match(c.stderr(), /PATCH_FILE_WORKSPACE_ROOT=.* is ignored: --root is given/)
  })
  await withClient({ env: cleanEnv({ PATCH_FILE_WORKSPACE_ROOT: envDir }), cwd: cwdDir }, async (client) => {
    assert.equal(structured(await call(client)).ok, true)
    assert.deepEqual(chosen(), [envDir, flagDir])
  })
  await withClient({ cwd: cwdDir }, async (client) => {
    const r = structured(await call(client))
    assert.equal(r.code, 'INVALID_INPUT')
    assert.match(r.message, /no workspace root/)
    assert.deepEqual(chosen(), [envDir, flagDir])
  })
  // A relative PATCH_FILE_WORKSPACE_ROOT is taken from the cwd.
  fs.mkdirSync(path.join(cwdDir, 'sub'))
  fs.writeFileSync(path.join(cwdDir, 'sub', 'which.txt'), 'root\n')
  await withClient({ env: cleanEnv({ PATCH_FILE_WORKSPACE_ROOT: 'sub' }), cwd: cwdDir }, async (client) => {
    assert.equal(structured(await call(client)).ok, true)
    assert.equal(fs.readFileSync(path.join(cwdDir, 'sub', 'which.txt'), 'utf8'), 'chosen\n')
  })
})

test('a workspace root that does not exist stops the server at start with exit 2', T, () => {
  const dir = tempDir()
  const r = spawnSync(process.execPath, [BIN, '--root', path.join(dir, 'nope')], { env: cleanEnv(), input: '', encoding: 'utf8' })
  assert.equal(r.status, 2)
  assert.equal(r.stdout, '')
  assert.match(r.stderr, /workspace root .*nope.* cannot be used/)
  const e = spawnSync(process.execPath, [BIN], { env: cleanEnv({ PATCH_FILE_WORKSPACE_ROOT: path.join(dir, 'nope') }), input: '', encoding: 'utf8' })
  assert.equal(e.status, 2)
  assert.match(e.stderr, /PATCH_FILE_WORKSPACE_ROOT/)
})

test('an unknown tool is a JSON-RPC InvalidParams error and the server keeps working', T, async () => {
  const dir = tempDir()
  await withClient({ args: ['--root', dir] }, async (client) => {
    await assert.rejects(client.callTool({ name: 'no_such_tool', arguments: {} }), (e) => e.code === -32602 && /Unknown tool/.test(e.message))
    // The SDK client adds "MCP error -32602: " to what the server sent: shown once, not twice.
    const e = await client.callTool({ name: 'no_such_tool', arguments: {} }).catch((err) => err)
    assert.match(e.message, /^MCP error -32602: Unknown tool: no_such_tool\./)
    assert.equal(e.message.match(/MCP error/g).length, 1, e.message)
    // A name of any length is quoted cut to 64 characters, never echoed whole.
    const long = await client.callTool({ name: 'x'.repeat(100_000), arguments: {} }).catch((err) => err)
    assert.match(long.message, new RegExp(`Unknown tool: ${'x'.repeat(64)}…\\.`))
    assert.ok(long.message.length < 1000, long.message.length)
    const bad = await client.request({ method: 'tools/call', params: { arguments: {} } }, (await import('@modelcontextprotocol/sdk/types.js')).CallToolResultSchema).catch((err) => err)
    assert.equal(bad.code, -32602)
    assert.equal(bad.message.match(/MCP error/g).length, 1, bad.message)
    assert.deepEqual(await client.ping(), {})
  })
})

test('malformed request params are answered -32602 naming each field, never with a raw validation dump', T, async () => {
  const s = rawServer({ args: ['--root', tempDir()] })
  await s.initialize()
  const cases = [
    [{ method: 'tools/call', params: { name: 5, arguments: {} } }, ['params.name'], /params\.name must be a string, not the number 5/],
    [{ method: 'tools/call', params: { name: 'read_file', arguments: 'x' } }, ['params.arguments'], /params\.arguments must be an object, not a string/],
    [{ method: 'tools/call', params: { arguments: {} } }, ['params.name'], /params\.name is required \(a string\)/],
    [{ method: 'tools/call' }, ['params'], /params is required \(an object\)/],
    [{ method: 'tools/call', params: ['read_file', {}] }, ['params'], /params must be an object, not an array/],
    [{ method: 'tools/call', params: { name: 'read_file', _meta: { progressToken: {} } } }, ['params._meta.progressToken'], /params\._meta\.progressToken must be a string or a number, not an object/],
    [{ method: 'tools/list', params: { cursor: 5 } }, ['params.cursor'], /params\.cursor must be a string/],
    [{ method: 'ping', params: { _meta: 5 } }, ['params._meta'], /params\._meta must be an object, not the number 5/],
    [{ method: 'initialize', params: {} }, ['params.protocolVersion', 'params.capabilities', 'params.clientInfo'], /params\.protocolVersion is required/],
  ]
  let id = 100
  for (const [request, fields, re] of cases) {
    s.send({ jsonrpc: '2.0', id: ++id, ...request })
    const r = await s.response(id)
    const what = `${JSON.stringify(request)} -> ${JSON.stringify(r)}`
    assert.equal(r.error?.code, -32602, what)
    assert.match(r.error.message, re, what)
    assert.match(r.error.message, new RegExp(`Invalid params for ${request.method}`), what)
    assert.doesNotMatch(r.error.message, /\n|invalid_type|"path"|expected \w+, received/, `no raw validation dump: ${what}`)
    assert.deepEqual(r.error.data, { fields }, what)
  }
  // params that is not even a structured value: the request object itself is invalid (-32600), named too.
  s.send({ jsonrpc: '2.0', id: 200, method: 'tools/call', params: 'read_file' })
  const notStructured = await s.response(200)
  assert.equal(notStructured.error.code, -32600)
  assert.match(notStructured.error.message, /params must be an object, not a string/)
  // The envelope's own fields are named as well.
  s.send({ jsonrpc: '2.0', id: 201, method: 5 })
  assert.match((await s.response(201)).error.message, /Invalid Request: method must be a string, not the number 5/)
  s.send({ jsonrpc: '1.0', id: 202, method: 'ping' })
  assert.match((await s.response(202)).error.message, /Invalid Request: jsonrpc must be "2\.0"/)
  s.send({ jsonrpc: '2.0', id: { a: 1 }, method: 'ping' })
  assert.match((await s.waitFor((m) => m.error && m.id === null, 'invalid id')).error.message, /id must be a string or an integer, not an object/)
  // Nothing ran, and the server goes on.
  s.send({ jsonrpc: '2.0', id: 203, method: 'tools/call', params: { name: 'read_file', arguments: { file_path: 'missing.txt' } } })
  assert.equal((await s.result(203)).code, 'FILE_READ_ERROR')
  s.child.stdin.end()
  assert.deepEqual(await s.exit, { code: 0, signal: null })
})

test('the SDK client gets malformed params as an McpError with code -32602 and the field in its message', T, async () => {
  const { CallToolResultSchema, ListToolsResultSchema } = await import('@modelcontextprotocol/sdk/types.js')
  await withClient({ args: ['--root', tempDir()] }, async (client) => {
    await assert.rejects(client.request({ method: 'tools/call', params: { name: 'read_file', arguments: [] } }, CallToolResultSchema), (e) => {
      assert.equal(e.code, -32602)
      assert.match(e.message, /params\.arguments must be an object, not an array/)
      assert.deepEqual(e.data, { fields: ['params.arguments'] })
      return true
    })
    await assert.rejects(client.request({ method: 'tools/list', params: { cursor: {} } }, ListToolsResultSchema), (e) => e.code === -32602 && /params\.cursor/.test(e.message))
    assert.deepEqual(await client.ping(), {})
  })
})

/** The engine's result in a raw tools/call answer message. */
function textResult(message) {
  return JSON.parse(message.result.content[0].text)
}

/** The top-level "id" of a raw answer line, as text (the answers here hold no other "id" member). */
function idText(line) {
  const m = /"id":(-?[0-9][0-9.eE+-]*|"(?:[^"\\]|\\.)*"|null)[,}]/.exec(line)
  assert.ok(m, `no id in ${line}`)
  return m[1]
}

test('request ids are echoed exactly as sent: strings, and integers of any size, on every path', T, async () => {
  const dir = tempDir()
  fs.writeFileSync(path.join(dir, 'r.txt'), 'one\n')
  const s = rawServer({ args: ['--root', dir], env: cleanEnv({ PATCH_FILE_MCP_MAX_MESSAGE_BYTES: '4096' }) })
  await s.initialize()
  const read = (id) => `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":"read_file","arguments":{"file_path":"r.txt"}}}`
  // Past 2^53, a JS number would round: 9007199254740993 would come back as ...992.
  const ids = ['9007199254740993', '-9007199254740993', '123456789012345678901234567890', '18446744073709551617', '1e3', '1E+400', '-0']
  for (const id of ids) {
    s.send(`{"jsonrpc":"2.0","id":${id},"method":"ping"}`)
    const line = await s.waitForLine((l) => idText(l) === id, `ping ${id}`)
    assert.deepEqual(JSON.parse(line).result, {}, line)
    // As the SDK's client writes a request: the id last.
    s.send(`{"method":"tools/call","params":{"name":"read_file","arguments":{"file_path":"r.txt"}},"jsonrpc":"2.0","id":${id}}`)
    s.send(read(id))
  }
  for (const id of ids) {
    const answers = await s.waitFor(() => s.lines.filter((l) => idText(l) === id).length === 3, `3 answers to ${id}`).then(() => s.lines.filter((l) => idText(l) === id))
    for (const line of answers.slice(1)) assert.equal(textResult(JSON.parse(line)).content, 'one\n', line)
  }
  // Strings, with escapes, come back as the same string.
  const str = 'r\u00e9q "9007199254740993" \\ \u2028 end'
  s.send({ jsonrpc: '2.0', id: str, method: 'ping' })
  assert.deepEqual((await s.response(str)).result, {})
  s.send({ jsonrpc: '2.0', id: '9007199254740993', method: 'ping' })
  assert.equal(idText(await s.waitForLine((l) => l.includes('"9007199254740993"'), 'string id')), '"9007199254740993"')
  // Errors the transport answers itself carry the exact id too: a line that is not JSON, a line
  // over the size limit (the id read from its start, or from its end), a fractional id, bad params.
  const big = '98765432109876543210'
  s.send(`{"jsonrpc":"2.0","id":${big}1,"method":"ping",`)
  assert.match(await s.waitForLine((l) => idText(l) === `${big}1`, 'parse error'), /-32700/)
  s.send(`{"jsonrpc":"2.0","id":${big}2,"method":"tools/call","params":{"name":"write_file","arguments":{"file_path":"a.txt","content":"${'x'.repeat(8000)}"}}}`)
  assert.match(await s.waitForLine((l) => idText(l) === `${big}2`, 'oversized, id first'), /-32600/)
  s.send(`{"method":"tools/call","params":{"name":"write_file","arguments":{"file_path":"a.txt","content":"${'x'.repeat(8000)}"}},"jsonrpc":"2.0","id":${big}3}`)
  assert.match(await s.waitForLine((l) => idText(l) === `${big}3`, 'oversized, id last'), /-32600/)
  s.send(`{"jsonrpc":"2.0","id":1.50,"method":"ping"}`)
  assert.match(await s.waitForLine((l) => idText(l) === '1.50', 'fractional id'), /"code":-32600.*id must be a string or an integer/)
  s.send(`{"jsonrpc":"2.0","id":${big}4,"method":"tools/call","params":{"name":7}}`)
  assert.match(await s.waitForLine((l) => idText(l) === `${big}4`, 'invalid params'), /"code":-32602/)
  assert.equal(fs.existsSync(path.join(dir, 'a.txt')), false)
  s.child.stdin.end()
  assert.deepEqual(await s.exit, { code: 0, signal: null })
  assert.deepEqual(s.nonJson, [])
})

test("transport: a numeric id's exact text is found wherever the client put it, the last duplicate winning as in JSON.parse", () => {
  const { numericIdText, rawValueAt, isIntegerText } = createRequire(import.meta.url)('../js/stdio-transport.js')
  const big = '9007199254740993'
  const pad = JSON.stringify('x"}{,\\"id\\":1'.repeat(2000))
  const layouts = [
    `{"method":"ping","params":{"p":${pad}},"jsonrpc":"2.0","id":${big}}`,
    `{"jsonrpc":"2.0","id":${big},"method":"ping","params":{"p":${pad}}}`,
    `{"jsonrpc":"2.0","method":"ping","params":{"id":1,"p":${pad}},"id":${big},"x":[{"id":2}]}`,
    `{ "jsonrpc" : "2.0" , "params" : { "p" : ${pad} } , "id" : ${big} , "method" : "ping" }`,
    `{"jsonrpc":"2.0","id":5,"method":"ping","params":{"p":${pad}},"\\u0069d":${big}}`,
  ]
  for (const text of layouts) assert.equal(numericIdText(text, JSON.parse(text).id), big, text.slice(0, 80))
  // The usual spelling of a safe integer needs no text; other spellings keep theirs.
  assert.equal(numericIdText('{"jsonrpc":"2.0","id":42,"method":"ping"}', 42), undefined)
  assert.equal(numericIdText('{"method":"ping","jsonrpc":"2.0","id":42}', 42), undefined)
  assert.equal(numericIdText('{"jsonrpc":"2.0","id":4.2e1,"method":"ping"}', 42), '4.2e1')
  assert.equal(numericIdText('{"method":"ping","jsonrpc":"2.0","id":-0}', -0), '-0')
  assert.equal(rawValueAt('{"params":{"requestId":1},"params":{"requestId":12345678901234567890}}', ['params', 'requestId']), '12345678901234567890')
  assert.equal(rawValueAt('{"params":{"requestId":1},"params":{}}', ['params', 'requestId']), undefined)
  for (const t of ['12', '-12', '1e3', '1.50e2', '100e-2', '0.0', '1e400', '12345678901234567890123']) assert.equal(isIntegerText(t), true, t)
  for (const t of ['1.5', '1e-3', '0.1e1', '1.25e1']) assert.equal(isIntegerText(t), t === '0.1e1', t)
})

test('a call with an id past 2^53 can be cancelled by that id: it writes nothing and gets no answer', T, async () => {
  const dir = tempDir()
  const s = rawServer({ args: ['--root', dir], env: delayedEnv(1500, { PATCH_FILE_LOG: 'debug' }) })
  await s.initialize()
  const id = '9007199254740993'
  // Its neighbour as a JS number (…992) must not be taken for it.
  s.send(`{"jsonrpc":"2.0","id":9007199254740992,"method":"tools/call","params":{"name":"write_file","arguments":{"file_path":"kept.txt","content":"k"}}}`)
  s.send(`{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":"write_file","arguments":{"file_path":"never.txt","content":"x"}}}`)
  await s.waitForStderr(`(request ${id})`)
  s.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":${id},"reason":"test"}}`)
  const kept = await s.waitForLine((l) => idText(l) === '9007199254740992', 'the neighbour answered')
  assert.equal(textResult(JSON.parse(kept)).ok, true)
  s.send({ jsonrpc: '2.0', id: 4, method: 'ping' })
  await s.response(4)
  s.child.stdin.end()
  assert.deepEqual(await s.exit, { code: 0, signal: null })
  assert.equal(s.lines.some((l) => idText(l) === id), false, 'no answer to the cancelled call')
  assert.equal(fs.existsSync(path.join(dir, 'never.txt')), false)
  assert.equal(fs.readFileSync(path.join(dir, 'kept.txt'), 'utf8'), 'k')
})

test('batch_patch_files through MCP: multi-edit and multi-file, all or nothing', T, async () => {
  const dir = tempDir()
  fs.writeFileSync(path.join(dir, 'a.txt'), 'one\ntwo\nthree\n')
  fs.writeFileSync(path.join(dir, 'b.txt'), 'alpha\nbeta\n')
  await withClient({ args: ['--root', dir] }, async (client) => {
    const fail = await client.callTool({
      name: 'batch_patch_files',
      arguments: {
        files: [
          { file_path: 'a.txt', edits: [{ search_block: 'one', replace_block: '1' }] },
          { file_path: 'b.txt', search_block: 'gamma', replace_block: 'g' },
        ],
      },
    })
    assert.equal(fail.isError, true)
    const f = structured(fail)
    assert.equal(f.code, 'SEARCH_BLOCK_NOT_FOUND')
    assert.equal(f.files.length, 2)
    assert.equal(f.files[1].code, 'SEARCH_BLOCK_NOT_FOUND')
    assert.equal(fs.readFileSync(path.join(dir, 'a.txt'), 'utf8'), 'one\ntwo\nthree\n')

    const ok = await client.callTool({
      name: 'batch_patch_files',
      arguments: {
        files: [
          { file_path: 'a.txt', edits: [{ search_block: 'one', replace_block: '1' }, { search_block: 'three', replace_block: '3' }] },
          { file_path: 'b.txt', search_block: 'beta', replace_block: 'b' },
        ],
      },
    })
    assert.equal(ok.isError, false)
    const s = structured(ok)
    assert.equal(s.ok, true)
    assert.equal(s.replacements, 3)
    assert.equal(fs.readFileSync(path.join(dir, 'a.txt'), 'utf8'), '1\ntwo\n3\n')
    assert.equal(fs.readFileSync(path.join(dir, 'b.txt'), 'utf8'), 'alpha\nb\n')
  })
})

test('dry_run then apply_last_dry_run writes exactly the preview, once', T, async () => {
  const dir = tempDir()
  const file = path.join(dir, 'm.py')
  fs.writeFileSync(file, 'def f():\n    return 1\n')
  await withClient({ args: ['--root', dir] }, async (client) => {
    const dry = structured(
      await client.callTool({
        name: 'patch_file',
        arguments: { file_path: 'm.py', search_block: 'return 1', replace_block: 'return 2', dry_run: true },
      }),
    )
    assert.equal(dry.ok, true)
    assert.equal(dry.dry_run, true)
    assert.match(dry.diff, /^--- a\/m\.py\n\+\+\+ b\/m\.py\n/)
    assert.match(dry.diff, /\n-    return 1\n\+    return 2\n/)
    assert.equal(fs.readFileSync(file, 'utf8'), 'def f():\n    return 1\n')

    const applied = await client.callTool({ name: 'apply_last_dry_run', arguments: { run_id: dry.run_id } })
    assert.equal(applied.isError, false)
    const a = structured(applied)
    assert.equal(a.ok, true)
    assert.equal(a.sha256, dry.sha256)
    assert.equal(fs.readFileSync(file, 'utf8'), 'def f():\n    return 2\n')

    const again = await client.callTool({ name: 'apply_last_dry_run', arguments: { run_id: dry.run_id } })
    assert.equal(again.isError, true)
    assert.equal(structured(again).code, 'RUN_ID_NOT_FOUND')

    // A file changed after its dry run is not overwritten.
    const dry2 = structured(
      await client.callTool({ name: 'batch_patch_files', arguments: { dry_run: true, files: [{ file_path: 'm.py', search_block: 'return 2', replace_block: 'return 3' }] } }),
    )
    fs.writeFileSync(file, 'def f():\n    return 2  # edited\n')
    const stale = await client.callTool({ name: 'apply_last_dry_run', arguments: { run_id: dry2.run_id } })
    assert.equal(stale.isError, true)
    assert.equal(structured(stale).code, 'FILE_CHANGED')
    assert.equal(fs.readFileSync(file, 'utf8'), 'def f():\n    return 2  # edited\n')
  })
})

test('read_file and write_file through MCP, guarded by expected_sha256', T, async () => {
  const dir = tempDir()
  fs.writeFileSync(path.join(dir, 'crlf.txt'), 'l1\r\nl2\r\nl3\r\n')
  await withClient({ args: ['--root', dir] }, async (client) => {
    const r = structured(await client.callTool({ name: 'read_file', arguments: { file_path: 'crlf.txt', offset: 1, limit: 1 } }))
    assert.equal(r.ok, true)
    assert.equal(r.content, 'l2\r\n')
    assert.equal(r.total_lines, 3)
    assert.equal(r.next_offset, 2)
    assert.equal(r.line_ending, 'crlf')

    const created = await client.callTool({ name: 'write_file', arguments: { file_path: 'new/dir/x.txt', content: 'hello\n' } })
    assert.equal(created.isError, false)
    const c = structured(created)
    assert.equal(c.created, true)
    assert.equal(fs.readFileSync(path.join(dir, 'new/dir/x.txt'), 'utf8'), 'hello\n')

    const stale = await client.callTool({
      name: 'write_file',
      arguments: { file_path: 'crlf.txt', content: 'replaced\n', expected_sha256: 'a'.repeat(64) },
    })
    assert.equal(stale.isError, true)
    const s = structured(stale)
    assert.equal(s.code, 'FILE_CHANGED')
    assert.equal(s.sha256, r.sha256)
    assert.equal(fs.readFileSync(path.join(dir, 'crlf.txt'), 'utf8'), 'l1\r\nl2\r\nl3\r\n')

    const fresh = await client.callTool({ name: 'write_file', arguments: { file_path: 'crlf.txt', content: 'replaced\n', expected_sha256: r.sha256 } })
    assert.equal(structured(fresh).ok, true)
    // The file keeps its CRLF line breaks (LF sent, as models do).
    assert.equal(fs.readFileSync(path.join(dir, 'crlf.txt'), 'utf8'), 'replaced\r\n')
  })
})

// ---------------------------------------------------------------------------
// Raw protocol, exits and signals

test('exits 0 when stdin closes', T, async () => {
  const s = rawServer({ args: ['--root', tempDir()] })
  await s.initialize()
  s.child.stdin.end()
  assert.deepEqual(await s.exit, { code: 0, signal: null })
  assert.deepEqual(s.nonJson, [])
})

test('requests piped in with EOF right behind them are all answered before exit 0', T, () => {
  const dir = tempDir()
  fs.writeFileSync(path.join(dir, 'p.txt'), 'q = 1\n')
  const lines = [
    INITIALIZE,
    { jsonrpc: '2.0', method: 'notifications/initialized' },
    { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'patch_file', arguments: { file_path: 'p.txt', search_block: 'q = 1', replace_block: 'q = 2' } } },
    { jsonrpc: '2.0', id: 2, method: 'tools/list' },
  ]
  const r = spawnSync(process.execPath, [BIN, '--root', dir], { env: cleanEnv(), input: lines.map((l) => JSON.stringify(l) + '\n').join(''), encoding: 'utf8' })
  assert.equal(r.status, 0, r.stderr)
  const out = r.stdout.trim().split('\n').map((l) => JSON.parse(l))
  // Answers may come in any order (calls run concurrently); each comes once.
  assert.deepEqual(out.map((m) => m.id).sort(), [0, 1, 2])
  assert.equal(textResult(out.find((m) => m.id === 1)).ok, true)
  assert.equal(fs.readFileSync(path.join(dir, 'p.txt'), 'utf8'), 'q = 2\n')
})

test('exits 0 when stdin closes before anything was sent', T, async () => {
  const s = rawServer({ args: ['--root', tempDir()] })
  s.child.stdin.end()
  assert.deepEqual(await s.exit, { code: 0, signal: null })
})

for (const sig of ['SIGTERM', 'SIGINT']) {
  test(`exits 0 on ${sig}`, T, async () => {
    const s = rawServer({ args: ['--root', tempDir()] })
    await s.initialize()
    s.child.kill(sig)
    assert.deepEqual(await s.exit, { code: 0, signal: null })
  })
}

test('SIGTERM during a write: the write completes and is answered, then exit 0', T, async () => {
  const dir = tempDir()
  const s = rawServer({ args: ['--root', dir], env: delayedEnv(400, { PATCH_FILE_LOG: 'debug' }) })
  await s.initialize()
  s.send({ jsonrpc: '2.0', id: 5, method: 'tools/call', params: { name: 'write_file', arguments: { file_path: 'late.txt', content: 'landed\n' } } })
  await s.waitForStderr('call write_file')
  s.child.kill('SIGTERM')
  const r = await s.response(5)
  assert.equal(r.result.isError, false)
  assert.equal(textResult(r).ok, true)
  assert.deepEqual(await s.exit, { code: 0, signal: null })
  assert.equal(fs.readFileSync(path.join(dir, 'late.txt'), 'utf8'), 'landed\n')
})

test('stdin closing during a write: the write completes before exit 0', T, async () => {
  const dir = tempDir()
  const s = rawServer({ args: ['--root', dir], env: delayedEnv(400, { PATCH_FILE_LOG: 'debug' }) })
  await s.initialize()
  s.send({ jsonrpc: '2.0', id: 6, method: 'tools/call', params: { name: 'write_file', arguments: { file_path: 'eof.txt', content: 'x\n' } } })
  await s.waitForStderr('call write_file')
  s.child.stdin.end()
  assert.deepEqual(await s.exit, { code: 0, signal: null })
  assert.equal(fs.readFileSync(path.join(dir, 'eof.txt'), 'utf8'), 'x\n')
})

test('malformed JSON-RPC gets an error response and the server keeps working; stdout carries only JSON-RPC', T, async () => {
  const s = rawServer({ args: ['--root', tempDir()] })
  await s.initialize()
  s.send('this is not json')
  const parse = await s.waitFor((m) => m.error && m.error.code === -32700, 'parse error')
  assert.equal(parse.id, null)
  s.send({ jsonrpc: '2.0', id: 7, method: 5 })
  const invalid = await s.response(7)
  assert.equal(invalid.error.code, -32600)
  s.send('{"no":"jsonrpc"}')
  await s.waitFor((m) => m.error && m.error.code === -32600 && m.id === null, 'invalid request without id')
  s.send('[1,2')
  await s.waitFor((m) => m.error && m.error.code === -32700 && m !== parse, 'second parse error')
  s.send({ jsonrpc: '2.0', id: 8, method: 'no/such/method' })
  assert.equal((await s.response(8)).error.code, -32601)
  s.send({ jsonrpc: '2.0', id: 9, method: 'tools/call', params: 'not an object' })
  assert.ok((await s.response(9)).error)
  s.send({ jsonrpc: '2.0', id: 10, method: 'ping' })
  assert.deepEqual((await s.response(10)).result, {})
  s.send({ jsonrpc: '2.0', id: 11, method: 'tools/list' })
  assert.ok((await s.response(11)).result.tools.length >= 5)
  s.child.stdin.end()
  assert.deepEqual(await s.exit, { code: 0, signal: null })
  assert.deepEqual(s.nonJson, [])
  for (const m of s.messages) assert.equal(m.jsonrpc, '2.0')
})

test('a message over the size limit is answered with -32600 and skipped; the next one works', T, async () => {
  const s = rawServer({ args: ['--root', tempDir()], env: cleanEnv({ PATCH_FILE_MCP_MAX_MESSAGE_BYTES: '4096' }) })
  await s.initialize()
  s.send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'write_file', arguments: { file_path: 'big.txt', content: 'x'.repeat(20_000) } } })
  const tooBig = await s.waitFor((m) => m.error && m.error.code === -32600, 'size error')
  assert.match(tooBig.error.message, /larger than 4096 bytes/)
  s.send({ jsonrpc: '2.0', id: 3, method: 'ping' })
  assert.deepEqual((await s.response(3)).result, {})
  // Answered once, with the request's id (so the client's pending request resolves), and never run.
  assert.equal(tooBig.id, 2)
  assert.equal(s.messages.filter((m) => m.id === 2).length, 1)
  s.child.stdin.end()
  assert.equal((await s.exit).code, 0)
})

test('a 3 MiB write_file and read_file round trip through the stdio transport', T, async () => {
  const dir = tempDir()
  const content = Array.from({ length: 60_000 }, (_, i) => `line ${i} \u00e9\u4e2d\r\n`).join('')
  assert.ok(Buffer.byteLength(content) > 1_000_000)
  await withClient({ args: ['--root', dir] }, async (client) => {
    const w = structured(await client.callTool({ name: 'write_file', arguments: { file_path: 'big.txt', content } }))
    assert.equal(w.ok, true)
    assert.equal(fs.readFileSync(path.join(dir, 'big.txt'), 'utf8'), content)
    const r = structured(await client.callTool({ name: 'read_file', arguments: { file_path: 'big.txt' } }))
    assert.equal(r.content, content)
    assert.equal(r.total_lines, 60_000)
  })
})

test('protocol version negotiation comes from the SDK', T, async () => {
  const s = rawServer({ args: ['--root', tempDir()] })
  s.send({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2024-11-05', capabilities: {}, clientInfo: { name: 'old', version: '0' } } })
  const r = await s.response(1)
  assert.equal(r.result.protocolVersion, '2024-11-05')
  assert.equal(r.result.serverInfo.name, 'patch-file-tool')
  assert.ok(r.result.capabilities.tools)
  assert.match(r.result.instructions, /^Workspace root: \//)
  s.child.kill('SIGTERM')
  await s.exit
  const t = rawServer({ args: ['--root', tempDir()] })
  t.send({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '1999-01-01', capabilities: {}, clientInfo: { name: 'odd', version: '0' } } })
  assert.equal((await t.response(1)).result.protocolVersion, LATEST_PROTOCOL_VERSION)
  t.child.stdin.end()
  assert.equal((await t.exit).code, 0)
})

test('a call cancelled before it starts writes nothing and gets no answer', T, async () => {
  const dir = tempDir()
  const s = rawServer({ args: ['--root', dir], env: delayedEnv(1500, { PATCH_FILE_LOG: 'debug' }) })
  await s.initialize()
  s.send({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'write_file', arguments: { file_path: 'never.txt', content: 'x' } } })
  await s.waitForStderr('call write_file')
  s.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 3, reason: 'test' } })
  s.send({ jsonrpc: '2.0', id: 4, method: 'tools/call', params: { name: 'read_file', arguments: { file_path: 'never.txt' } } })
  assert.equal((await s.result(4)).code, 'FILE_READ_ERROR')
  s.child.stdin.end()
  assert.deepEqual(await s.exit, { code: 0, signal: null })
  assert.equal(s.messages.some((m) => m.id === 3), false)
  assert.equal(fs.existsSync(path.join(dir, 'never.txt')), false)
})

// ---------------------------------------------------------------------------
// MCP Inspector CLI

function inspectorBin() {
  try {
    const req = createRequire(import.meta.url)
    const pkgPath = req.resolve('@modelcontextprotocol/inspector/package.json')
    const pkg = JSON.parse(fs.readFileSync(pkgPath, 'utf8'))
    const bin = typeof pkg.bin === 'string' ? pkg.bin : pkg.bin.inspector || pkg.bin['mcp-inspector']
    return path.join(path.dirname(pkgPath), bin)
  } catch {
    return null
  }
}

const inspector = inspectorBin()
test('MCP Inspector CLI lists the default tools and calls patch_file', { ...T, skip: inspector ? false : '@modelcontextprotocol/inspector is not installed' }, () => {
  const dir = tempDir()
  fs.writeFileSync(path.join(dir, 'i.txt'), 'before\n')
  const run = (...args) => {
    const r = spawnSync(process.execPath, [inspector, '--cli', process.execPath, BIN, '--root', dir, ...args], {
      env: cleanEnv(),
      encoding: 'utf8',
      timeout: 45_000,
    })
    assert.equal(r.status, 0, `inspector ${args.join(' ')}: ${r.stderr}`)
    return JSON.parse(r.stdout)
  }
  const list = run('--method', 'tools/list')
  assert.deepEqual(list.tools.map((t) => t.name), [...tools.DEFAULT_TOOLS])
  const patchSchema = JSON.parse(fs.readFileSync(path.join(ROOT, 'schemas', 'patch_file.schema.json'), 'utf8'))
  assert.deepEqual(list.tools.find((t) => t.name === 'patch_file').inputSchema, patchSchema.parameters)
  const call = run('--method', 'tools/call', '--tool-name', 'patch_file', '--tool-arg', 'file_path=i.txt', '--tool-arg', 'search_block=before', '--tool-arg', 'replace_block=after')
  assert.equal(call.isError, false)
  assert.equal(JSON.parse(call.content[0].text).ok, true)
  assert.equal(fs.readFileSync(path.join(dir, 'i.txt'), 'utf8'), 'after\n')
})

test('answers name the tools the server lists and its configuration, not the JavaScript API', () => {
  const { toolWords, settingWords } = require('../js/words.js')
  // What the MCP server does: its set's tools (forSet), then its configuration.
  const mcpWords = (r, listed) => settingWords(toolWords(r, listed))
  const { tooLargeResult } = require('../js/mcp.js')
  const all = new Set(['patch_file', 'read_file', 'apply_last_dry_run', 'write_file'])
  const lean = new Set(['patch_file', 'read_file'])
  const r = {
    ok: false,
    code: 'HARD_LINKED',
    message: 'Retry with options.hardLinks: "split" to give only this name the new content; writeFile refuses',
    files: [{ warnings: ['a comment meant as written can be reworded (options.elisions: "literal" writes markers as they are)'] }],
  }
  const said = mcpWords(r, all)
  assert.equal(said.message, "Retry with PATCH_FILE_HARD_LINKS=split in the server's environment to give only this name the new content; write_file refuses")
  assert.match(said.files[0].warnings[0], /PATCH_FILE_ELISIONS=literal in the server's environment/)
  assert.equal(r.message.includes('options.hardLinks'), true, 'the engine result itself is not changed')
  const dry = { ok: true, dry_run: true, diff_omitted: 'the planned change is kept: apply it with applyDryRun, or review the file after writing' }
  assert.match(mcpWords(dry, all).diff_omitted, /apply it with apply_last_dry_run, or review/)
  assert.match(mcpWords(dry, lean).diff_omitted, /send the call again without dry_run to write it, or review/)
  assert.doesNotMatch(mcpWords(dry, lean).diff_omitted, /applyDryRun|apply_last_dry_run/)
  const unchanged = { ok: true, message: 'nothing to say in other words' }
  assert.equal(mcpWords(unchanged, lean), unchanged)
  // A read's `warning` is said in tool words too; a set without patch_file names its block tool; the journal's
  // size limit is not an option the server has.
  const bytes = { ok: true, warning: 'patchFile edits it byte-exactly; writeFile refuses' }
  assert.equal(mcpWords(bytes, all).warning, 'patch_file edits it byte-exactly; write_file refuses')
  const fsSet = new Set(['read_file', 'write_file', 'edit_file'])
  assert.match(mcpWords({ ok: false, message: 'To change part of it, use patchFile with ASCII blocks' }, fsSet).message, /use edit_file with/)
  const big = { ok: true, why_not_undoable: '`a` is larger than the journal keeps (100 bytes, options.journal.maxFileBytes)' }
  assert.equal(mcpWords(big, all).why_not_undoable, '`a` is larger than the journal keeps (100 bytes)')
  // RESULT_TOO_LARGE names only listed tools.
  const read = { ok: true, content: 'x' }
  const anchors = tooLargeResult(read, 'over', new Set(['read_file', 'edit_lines', 'undo'])).message
  assert.match(anchors, /read_file with offset and limit/)
  assert.doesNotMatch(anchors, /str_replace_based_edit_tool/)
  const editor = tooLargeResult(read, 'over', new Set(['str_replace_based_edit_tool'])).message
  assert.match(editor, /str_replace_based_edit_tool view with a view_range/)
  assert.doesNotMatch(editor, /read_file/)
  assert.doesNotMatch(tooLargeResult({ ok: true }, 'over', new Set(['str_replace_based_edit_tool'])).message, /read_file/)
  // A history that is too long wrote nothing (it said the call's changes were written): fewer entries, it says.
  const history = tooLargeResult({ ok: true, transactions: [] }, 'over', all).message
  assert.match(history, /wrote nothing.*smaller limit/)
  assert.doesNotMatch(history, /changes are written/)
  // Quoted paths and file text are the caller's: never rewritten (`readFile.js` became `read_file.js`); a quoted
  // API name alone still is.
  const quoted = {
    ok: false,
    message: '`readFile.js`: hunk 1 starting with `const data = readFile(q);` was not found; `applyDryRun.js` holds options.hardLinks: "keep"; use `readFile` or readFile',
    warnings: ['`dir/options.hardLinks: "split"/a` kept; options.hardLinks: "split" would not'],
  }
  const q = mcpWords(quoted, all)
  assert.equal(q.message, '`readFile.js`: hunk 1 starting with `const data = readFile(q);` was not found; `applyDryRun.js` holds PATCH_FILE_HARD_LINKS=keep in the server\'s environment; use `read_file` or read_file')
  assert.equal(q.warnings[0], '`dir/options.hardLinks: "split"/a` kept; PATCH_FILE_HARD_LINKS=split in the server\'s environment would not')
  // The agent-SDK adapters' sets (forSet) name their tools, not the API's calls; settings are the developer's.
  const tools = require('../js/tools.js')
  const seen = tools.forSet(tools.DEFAULT_TOOLS).result({ ...dry, run_id: 'dr_x', warnings: ['use writeFile; options.hardLinks: "split"'] })
  assert.match(seen.diff_omitted, /send the call again without dry_run/)
  assert.equal(seen.warnings[0], 'use write_file; options.hardLinks: "split"')
  assert.equal('run_id' in seen, false)
})

test('every key of a call\'s arguments reaches the engine: a `__proto__` key is refused as unknown, not dropped (it carried a dry_run that was lost, and the file was written)', T, async () => {
  const dir = tempDir()
  fs.writeFileSync(path.join(dir, 'a.txt'), 'a\n')
  const s = rawServer({ args: ['--root', dir] })
  await s.initialize()
  // Sent as text: a JSON `__proto__` key is an own key of the parsed arguments, as a client sends it.
  s.send('{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"patch_file","arguments":{"file_path":"a.txt","search_block":"a","replace_block":"b","__proto__":{"dry_run":true}}}}')
  const r = await s.response(7)
  const result = JSON.parse(r.result.content[0].text)
  assert.equal(result.code, 'INVALID_INPUT', JSON.stringify(result))
  assert.match(result.message, /__proto__/)
  assert.equal(fs.readFileSync(path.join(dir, 'a.txt'), 'utf8'), 'a\n')
  s.child.stdin.end()
  assert.equal((await s.exit).code, 0)
})
