// No answer offers the model a call its tool set cannot make. A dry run's
// run_id is only for apply_last_dry_run, and an undo's own transaction id
// (undo it to redo) only for undo: in a tool set without that tool (the
// default profile has no apply_last_dry_run, text-editor has no undo), the
// answers carry neither, and the listed output schemas do not describe them.
// There a dry run is a preview, written by sending the same call without
// dry_run. Checked for every --tools profile through the real server, for
// every tool whose input schema offers a dry run.
import './helpers/private-state.mjs'
import { test, afterEach } from 'node:test'
import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'
import { createRequire } from 'node:module'
import { tempDir, killAll } from './helpers/mcp-raw.mjs'
import { withClient, resultOf } from './helpers/mcp-client.mjs'

afterEach(killAll)

const require = createRequire(import.meta.url)
const tools = require('../js/tools.js')
const api = require('../index.js')

const T = { timeout: 120_000 }
const APPLY = 'apply_last_dry_run'
const UNDO = 'undo'
const RUN_FIELDS = ['run_id', 'expires_in']

/** The input field through which a tool's schema offers a dry run, or undefined. */
function dryRunField(schema) {
  return ['dry_run', 'dryRun'].find((f) => schema.properties && f in schema.properties)
}

/**
 * A dry run of each tool that offers one, on a workspace holding a.txt
 * ("alpha\nbeta\n"): the arguments (without the dry-run flag), after any
 * set-up the call needs.
 */
const DRY_RUNS = {
  patch_file: () => ({ file_path: 'a.txt', search_block: 'alpha', replace_block: 'ALPHA' }),
  batch_patch_files: () => ({ files: [{ file_path: 'a.txt', search_block: 'alpha', replace_block: 'ALPHA' }] }),
  write_file: () => ({ file_path: 'w.txt', content: 'w\n' }),
  edit_block: () => ({ blockContent: 'a.txt\n<<<<<<< SEARCH\nalpha\n=======\nALPHA\n>>>>>>> REPLACE\n' }),
  apply_patch: () => ({ patch: '*** Begin Patch\n*** Update File: a.txt\n@@\n-alpha\n+ALPHA\n beta\n*** End Patch\n' }),
  str_replace_based_edit_tool: () => ({ command: 'str_replace', path: 'a.txt', old_str: 'alpha', new_str: 'ALPHA' }),
  edit_file: () => ({ path: 'a.txt', edits: [{ oldText: 'alpha', newText: 'ALPHA' }] }),
  // The anchor of a read with anchors (made through the API: the server checks it against that read's snapshot).
  edit_lines: async (dir) => {
    const r = await api.readFile({ file_path: 'a.txt', anchors: true }, { workspaceRoot: dir })
    return { file_path: 'a.txt', edits: [{ op: 'replace', pos: r.content.split('|')[0], lines: 'ALPHA' }] }
  },
  // A journaled write to undo (made through the API, in the server's workspace and state directory).
  undo: async (dir) => {
    assert.equal((await api.writeFile({ file_path: 'u.txt', content: 'u\n' }, { workspaceRoot: dir })).ok, true)
    return {}
  },
}

/** Every key of `value` and of the objects and arrays inside it. */
function keysIn(value, out = new Set()) {
  if (Array.isArray(value)) for (const v of value) keysIn(v, out)
  else if (value !== null && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      out.add(k)
      keysIn(v, out)
    }
  }
  return out
}

/** Every property name a schema describes, at any depth ($defs included). */
function propertiesIn(schema, out = new Set()) {
  if (Array.isArray(schema)) for (const s of schema) propertiesIn(s, out)
  else if (schema !== null && typeof schema === 'object') {
    for (const [k, v] of Object.entries(schema)) {
      if (k === 'properties') for (const p of Object.keys(v)) out.add(p)
      propertiesIn(v, out)
    }
  }
  return out
}

/** The object schemas a result itself can be: the root's branches, through $ref and anyOf. */
function resultBranches(schema) {
  const out = []
  const visit = (s) => {
    if (s.$ref) return visit(schema.$defs[s.$ref.split('/').pop()])
    if (Array.isArray(s.anyOf)) return s.anyOf.forEach(visit)
    out.push(s)
  }
  for (const b of schema.anyOf) visit(b)
  return out
}

test('the dry-run table covers every tool whose input schema offers a dry run', () => {
  const offering = tools
    .list()
    .filter((t) => dryRunField(t.schema.parameters))
    .map((t) => t.name)
  assert.deepEqual(Object.keys(DRY_RUNS).sort(), offering.sort())
  // And the handles name the tools that take them, as input fields of theirs.
  assert.ok('run_id' in tools.get(APPLY).schema.parameters.properties)
  assert.ok('id' in tools.get(UNDO).schema.parameters.properties)
})

for (const [profile, names] of Object.entries(tools.PROFILES)) {
  test(`--tools ${profile}: a dry run answers a run_id only when the set has ${APPLY}, which then writes it; the output schemas agree`, T, async () => {
    const canApply = names.includes(APPLY)
    const canUndo = names.includes(UNDO)
    const dir = tempDir()
    fs.writeFileSync(path.join(dir, 'a.txt'), 'alpha\nbeta\n')
    await withClient({ args: ['--root', dir], tools: profile, outputSchemas: true }, async (client, c) => {
      assert.deepEqual(c.listed.map((t) => t.name), [...names])
      // What the listing describes: a run_id only with the tool that applies it, an undo's own id only with undo.
      for (const t of c.listed) {
        const described = propertiesIn(t.outputSchema)
        if (!canApply) for (const f of RUN_FIELDS) assert.equal(described.has(f), false, `${profile}: ${t.name}'s output schema describes ${f}`)
        if (!canUndo) {
          for (const b of resultBranches(t.outputSchema)) assert.equal('id' in (b.properties || {}), false, `${profile}: ${t.name}'s result may carry id`)
        }
      }
      if (canApply) {
        assert.ok(
          c.listed.some((t) => propertiesIn(t.outputSchema).has('run_id')),
          'where apply_last_dry_run is listed, the dry runs keep their run_id in the schemas',
        )
      }
      let dryRuns = 0
      for (const t of c.listed) {
        const flag = dryRunField(t.inputSchema)
        if (!flag) continue
        dryRuns++
        const args = await DRY_RUNS[t.name](dir)
        const before = fs.readdirSync(dir).map((f) => [f, fs.readFileSync(path.join(dir, f), 'utf8')])
        const r = resultOf(await client.callTool({ name: t.name, arguments: { ...args, [flag]: true } }))
        assert.equal(r.ok, true, `${profile}: ${t.name} ${JSON.stringify(r)}`)
        assert.equal(r.dry_run, true)
        assert.equal(typeof r.diff, 'string', `${t.name}: the dry run previews its change`)
        assert.deepEqual(
          fs.readdirSync(dir).map((f) => [f, fs.readFileSync(path.join(dir, f), 'utf8')]),
          before,
          `${t.name}: a dry run writes nothing`,
        )
        const keys = keysIn(r)
        if (!canApply) {
          for (const f of RUN_FIELDS) assert.equal(keys.has(f), false, `${profile}: ${t.name}'s dry run answers ${f}, which no tool of the set takes`)
          continue
        }
        assert.match(r.run_id, /^dr_/, `${profile}: ${t.name}`)
        const applied = resultOf(await client.callTool({ name: APPLY, arguments: { run_id: r.run_id } }))
        assert.equal(applied.ok, true, `${profile}: ${APPLY} writes ${t.name}'s dry run: ${JSON.stringify(applied)}`)
        // Back to the starting files for the next tool.
        for (const f of fs.readdirSync(dir)) fs.rmSync(path.join(dir, f), { recursive: true, force: true })
        fs.writeFileSync(path.join(dir, 'a.txt'), 'alpha\nbeta\n')
      }
      assert.ok(dryRuns > 0, `${profile} has a tool with a dry run`)
    })
  })
}

for (const [profile, names] of Object.entries(tools.PROFILES)) {
  if (!names.includes('str_replace_based_edit_tool') && !names.includes(UNDO)) continue
  test(`--tools ${profile}: an undo answers its own transaction id only when the set has ${UNDO}, which then redoes it`, T, async () => {
    const canUndo = names.includes(UNDO)
    const dir = tempDir()
    fs.writeFileSync(path.join(dir, 'a.txt'), 'alpha\n')
    await withClient({ args: ['--root', dir], tools: profile, outputSchemas: true }, async (client) => {
      const undos = []
      if (names.includes('str_replace_based_edit_tool')) {
        const edit = { command: 'str_replace', path: 'a.txt', old_str: 'alpha', new_str: 'ALPHA' }
        assert.equal(resultOf(await client.callTool({ name: 'str_replace_based_edit_tool', arguments: edit })).ok, true)
        undos.push(resultOf(await client.callTool({ name: 'str_replace_based_edit_tool', arguments: { command: 'undo_edit', path: 'a.txt' } })))
        assert.equal(fs.readFileSync(path.join(dir, 'a.txt'), 'utf8'), 'alpha\n')
      }
      if (canUndo) {
        assert.equal((await api.writeFile({ file_path: 'a.txt', content: 'rewritten\n' }, { workspaceRoot: dir })).ok, true)
        undos.push(resultOf(await client.callTool({ name: UNDO, arguments: {} })))
      }
      for (const u of undos) {
        assert.equal(u.ok, true, JSON.stringify(u))
        if (!canUndo) {
          assert.equal('id' in u, false, `${profile}: an undo answers its transaction id, which no tool of the set takes: ${JSON.stringify(u)}`)
          continue
        }
        assert.equal(typeof u.id, 'string', JSON.stringify(u))
        const before = fs.readFileSync(path.join(dir, 'a.txt'), 'utf8')
        const redo = resultOf(await client.callTool({ name: UNDO, arguments: { id: u.id } }))
        assert.equal(redo.ok, true, JSON.stringify(redo))
        assert.equal(redo.redo, true)
        assert.notEqual(fs.readFileSync(path.join(dir, 'a.txt'), 'utf8'), before, 'undoing the undo redid it')
        // Back to where the next undo expects it.
        assert.equal(resultOf(await client.callTool({ name: UNDO, arguments: { id: redo.id } })).ok, true)
      }
    })
  })
}

test('no tool of a profile points the model at a tool the profile lacks (undo\'s id names no history in the default set)', () => {
  const { list, get, PROFILES } = require('../js/tools.js')
  const names = list().map((t) => t.name)
  const found = []
  for (const [profile, set] of Object.entries(PROFILES)) {
    for (const name of set) {
      const text = JSON.stringify(get(name).schema)
      for (const other of names) if (!set.includes(other) && new RegExp(`\\b${other}\\b`).test(text)) found.push(`${profile}: ${name} mentions ${other}`)
    }
  }
  assert.deepEqual(found, [])
})
