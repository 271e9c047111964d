// The three written forms of each tool's input agree with the engine that
// reads it: the MCP schema (schemas/<tool>.schema.json), the d.ts input type
// (the first parameter of the tool's function in index.d.ts, read by the
// TypeScript checker) and the request parser in the core.
//
// Every field either form names, at every depth (`edits[].search_block`,
// `files[].edits[].old_str`, `operation.move_to`), is sent to the engine;
// the engine must not answer that it is unknown. A field the schema names is
// typed by the d.ts too. And where the engine accepts both the snake_case
// and the camelCase spelling of a field, the d.ts types both: the typings
// promise both styles. Each object is probed beside the fields it requires,
// and a made-up field probed the same way must be refused as unknown, so a
// probe cannot pass because the engine failed for another reason first.
// The options are probed the same way. And every spelling list of the
// parser's source is declared in types/inputs.json, the one declaration the
// schemas and the d.ts are generated from (scripts/gen-inputs.mjs), which
// the last test holds them to.
import './helpers/private-state.mjs'
import { test } from 'node:test'
import assert from 'node:assert/strict'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { REPO, ts, indexDeclarations } from './helpers/typescript.mjs'

const TOOLS = JSON.parse(fs.readFileSync(path.join(REPO, 'js', 'tools.json'), 'utf8')).tools
const api = await import('../index.mjs')

/**
 * A value the schema node takes: every text is a path outside the workspace
 * (so no probe can write a file), every list empty or of one object.
 */
const OUTSIDE = '../f'
function sample(node) {
  if (node.enum) return node.enum[0]
  if (node.type === 'integer') return 1
  if (node.type === 'boolean') return false
  if (node.type === 'array') return node.items?.properties ? [base(node.items)] : []
  return OUTSIDE
}

/** The fields an object of `node` requires, with sample values. */
function base(node) {
  return Object.fromEntries((node.required ?? []).map((k) => [k, sample(node.properties[k])]))
}

/**
 * What a schema's `required` does not say: the pair a single edit needs
 * (patchFile, a file of a batch), the fields applyPatch's structured
 * `operation` requires (the d.ts types it; the schema does not show it), and
 * each text editor command with the fields it requires (a field is probed
 * with each command in turn: it belongs to some command).
 */
const PAIR = { search_block: OUTSIDE, replace_block: OUTSIDE }
const EXTRA = {
  patchFile: { '': PAIR },
  batchPatchFiles: { 'files[]': PAIR },
  applyPatch: { operation: { type: 'update_file', path: OUTSIDE } },
}
/** An edit pair is added only beside the probed field (an `edits` list and a pair exclude each other). */
const extraAt = (tool, at, holdsProbe) => {
  const e = EXTRA[tool.engine]?.[at]
  return e === PAIR && !holdsProbe ? {} : e
}
const COMMANDS = {
  view: {},
  create: { file_text: OUTSIDE },
  str_replace: { old_str: OUTSIDE },
  insert: { insert_line: 0, insert_text: OUTSIDE },
  undo_edit: {},
}

/** Field paths of a schema: `a`, `a[].b` for the items of a list of objects. */
function schemaPaths(node, prefix = '', out = new Map()) {
  for (const [k, v] of Object.entries(node.properties ?? {})) {
    out.set(prefix + k, v)
    if (v.items?.properties) schemaPaths(v.items, `${prefix}${k}[].`, out)
  }
  return out
}

/** Field paths of each tool's d.ts input type, by the TypeScript checker. */
function dtsPaths() {
  const { file, checker, exports } = indexDeclarations()
  const fns = new Map()
  for (const s of exports) {
    if (s.flags & ts.SymbolFlags.Function) fns.set(s.name, s)
  }
  // Only fields declared in index.d.ts (not String's `length` of a string input).
  const ours = (p) => (p.declarations ?? []).some((d) => d.getSourceFile().fileName === file)
  const walk = (type, prefix, out) => {
    // A type parameter (a call's options type, `O extends PatchFileOptions`): what it extends.
    if (type.flags & ts.TypeFlags.TypeParameter) return walk(checker.getBaseConstraintOfType(type) ?? type, prefix, out)
    if (type.isUnion() || type.isIntersection()) {
      for (const t of type.types) walk(t, prefix, out)
      return out
    }
    if (!(type.flags & ts.TypeFlags.Object) || checker.isTupleType(type)) return out
    for (const p of checker.getPropertiesOfType(type)) {
      if (!ours(p)) continue
      out.add(prefix + p.name)
      const t = checker.getNonNullableType(checker.getTypeOfSymbol(p))
      for (const u of t.isUnion() ? t.types : [t]) {
        if (checker.isArrayType(u)) walk(checker.getTypeArguments(u)[0], `${prefix}${p.name}[].`, out)
        else if (u.flags & ts.TypeFlags.Object && !checker.isTupleType(u)) walk(u, `${prefix}${p.name}.`, out)
      }
    }
    return out
  }
  const param = (engine, i) => {
    const [sig] = checker.getSignaturesOfType(checker.getTypeOfSymbol(fns.get(engine)), ts.SignatureKind.Call)
    return walk(checker.getNonNullableType(checker.getTypeOfSymbol(sig.parameters[i])), '', new Set())
  }
  return { of: (engine) => param(engine, 0), optionsOf: (engine) => param(engine, 1) }
}

/**
 * The input that sends `value` under the field path `p` of `tool`, each
 * object on the way holding the fields it requires.
 */
function input(tool, p, value, command) {
  const params = api.schemas[tool.name].parameters
  const steps = p.split('.')
  // An object the schema does not show is sent alone (applyPatch's
  // `operation` instead of a patch text).
  const shown = steps.length === 1 || steps[0].replace(/\[\]$/, '') in params.properties
  const top = command ? { command, path: OUTSIDE, ...COMMANDS[command] } : shown ? { ...base(params), ...extraAt(tool, '', steps.length === 1) } : {}
  let obj = top
  let node = params
  for (const [i, step] of steps.slice(0, -1).entries()) {
    const list = step.endsWith('[]')
    const key = list ? step.slice(0, -2) : step
    node = node?.properties?.[key]
    const inner = list ? node?.items : node
    const next = { ...(inner ? base(inner) : {}), ...extraAt(tool, step, i === steps.length - 2) }
    obj[key] = list ? [next] : next
    obj = next
    node = inner
  }
  obj[steps.at(-1)] = value
  return top
}

/**
 * Whether the engine's `message` refuses `key` as an unknown field: by name,
 * or (edit_file, which takes another tool's exact schema) as an item that is
 * not exactly its two fields.
 */
function unknownIn(message, key) {
  const k = key.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
  const re = new RegExp(`unknown fields?[^;]*\`${k}\`|\`${k}\` is not a parameter|\\(exactly these two fields\\)`)
  return re.test(message ?? '')
}

// The workspace stays empty: every path sent lies outside it (checked at the end).
const parent = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'pft-spellings-')))
const dir = path.join(parent, 'ws')
fs.mkdirSync(dir)
const options = { workspaceRoot: dir, journal: false }

/** Whether the engine reads field path `p` of `tool` (with some text editor command). */
async function accepted(tool, p) {
  const key = p.split('.').at(-1)
  for (const command of tool.engine === 'textEditor' ? Object.keys(COMMANDS) : [undefined]) {
    const r = await api[tool.engine](input(tool, p, OUTSIDE, command), options)
    if (!unknownIn(r.message, key)) return true
  }
  return false
}

const camel = (s) => s.replace(/_([a-z0-9])/g, (_, c) => c.toUpperCase())
const snake = (s) => s.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`)

const types = dtsPaths()

/** Every field name any tool's schema or d.ts input uses: the names probed where a tool does not type them. */
const NAMES = new Set(
  TOOLS.flatMap((t) => [...schemaPaths(api.schemas[t.name].parameters).keys(), ...types.of(t.engine)]).map((p) => p.split('.').at(-1)),
)

for (const tool of TOOLS) {
  test(`${tool.name}: every field its schema and its d.ts name is read by the engine, in both spellings where it takes both`, async () => {
    const schema = schemaPaths(api.schemas[tool.name].parameters)
    const dts = types.of(tool.engine)
    assert.ok(dts.size > 0 && schema.size > 0, `${tool.engine}: no fields found`)

    // The probe tells an unknown field at every depth it is used at.
    const prefixes = new Set([...schema.keys(), ...dts].map((p) => p.slice(0, p.lastIndexOf('.') + 1)))
    for (const prefix of prefixes) {
      assert.equal(await accepted(tool, `${prefix}zz_not_a_field`), false, `${tool.engine}: a made-up field at ${prefix || 'the top'} is not refused as unknown`)
    }

    for (const p of schema.keys()) {
      assert.ok(await accepted(tool, p), `${tool.name}.schema.json names \`${p}\`, which the engine refuses as unknown`)
      assert.ok(dts.has(p), `${tool.name}.schema.json names \`${p}\`, which ${tool.engine}'s d.ts input does not type`)
    }
    for (const p of dts) {
      assert.ok(await accepted(tool, p), `${tool.engine}'s d.ts input types \`${p}\`, which the engine refuses as unknown`)
      const at = p.slice(0, p.lastIndexOf('.') + 1)
      const key = p.slice(at.length)
      for (const other of new Set([camel(key), snake(key)])) {
        if (other === key || dts.has(at + other)) continue
        assert.equal(await accepted(tool, at + other), false, `${tool.engine} reads \`${at + other}\` beside \`${p}\`, and its d.ts input types only the second`)
      }
    }
    // A name another tool uses (an alias such as `path` or `oldText`) that
    // this tool reads at some depth is typed there too.
    for (const at of prefixes) {
      for (const name of NAMES) {
        if (dts.has(at + name)) continue
        assert.equal(await accepted(tool, at + name), false, `${tool.engine} reads \`${at + name}\`, which its d.ts input does not type`)
      }
    }
  })
}

test('the probes wrote nothing', () => {
  assert.deepEqual(fs.readdirSync(parent), ['ws'])
  assert.deepEqual(fs.readdirSync(dir), [])
  fs.rmSync(parent, { recursive: true, force: true })
})

// The options: every field the d.ts options type of a call names (journal's
// fields included) is read, in both spellings where the engine takes both.
for (const [engine, sample] of [
  ['patchFile', { file_path: OUTSIDE, search_block: 'a', replace_block: 'b' }],
  ['applyPatch', `*** Begin Patch\n*** Delete File: ${OUTSIDE}\n*** End Patch`],
]) {
  test(`${engine}: every option its d.ts names is read, in both spellings where it takes both`, async () => {
    const names = types.optionsOf(engine)
    assert.ok(names.size > 10, `${engine}: options found: ${[...names]}`)
    const probe = async (p) => {
      const [head, key] = p.includes('.') ? p.split('.') : [null, p]
      const value = key === 'signal' ? new AbortController().signal : OUTSIDE
      const r = await api[engine](sample, { workspaceRoot: dir, journal: false, ...(head ? { [head]: { [key]: value } } : { [key]: value }) })
      return !unknownIn(r.message, key)
    }
    assert.equal(await probe('zz_not_an_option'), false)
    assert.equal(await probe('journal.zz_not_an_option'), false)
    for (const p of names) {
      assert.ok(await probe(p), `${engine}'s d.ts options type \`${p}\`, which the engine refuses as unknown`)
      const at = p.slice(0, p.lastIndexOf('.') + 1)
      const key = p.slice(at.length)
      for (const other of new Set([camel(key), snake(key)])) {
        if (other === key || names.has(at + other)) continue
        assert.equal(await probe(at + other), false, `${engine} reads the option \`${at + other}\` beside \`${p}\`, and its d.ts types only the second`)
      }
    }
  })
}

test('the input schemas and the d.ts input types are what scripts/gen-inputs.mjs writes from types/inputs.json and js/tools.json (npm run contract)', async () => {
  const { expected } = await import('../scripts/gen-inputs.mjs')
  const want = expected()
  for (const [file, text] of want) {
    assert.equal(fs.readFileSync(file, 'utf8').replace(/\r\n/g, '\n'), text, `${path.relative(REPO, file)}: run npm run contract`)
  }
  // A schema file for each tool of the table, and the header.
  assert.equal(want.size, TOOLS.length + 1)
  // The generated header is the one index.d.ts carries.
  const header = want.get(path.join(REPO, 'types', 'header.d.ts'))
  const begin = header.indexOf('// ---- inputs, generated')
  const end = header.indexOf('// ---- end of generated input types ----')
  assert.ok(begin > 0 && end > begin)
  assert.ok(fs.readFileSync(path.join(REPO, 'index.d.ts'), 'utf8').includes(header.slice(begin, end)), 'index.d.ts: run npm run build')
})

/**
 * Spellings the request parser reads that no declaration types: the JS
 * API's own channel to the engine (index.js sets `cancelToken` for an
 * AbortSignal; a caller never sends it).
 */
const INTERNAL = new Set(['cancelToken', 'cancel_token'])

test('every spelling list the request parser declares is a field of types/inputs.json, with the same spellings', () => {
  // The parser's spelling lists: the fields of its `request_shape!` shapes
  // (`name: T = "a" | "b"`) and the key lists it reads by hand (`&["a", "b"]`).
  const lists = []
  const files = (dir) =>
    fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? files(path.join(dir, e.name)) : e.name.endsWith('.rs') ? [path.join(dir, e.name)] : []))
  for (const file of [...files(path.join(REPO, 'core/src/input')), ...files(path.join(REPO, 'core/src/api'))]) {
    // Production code only: a file's tests start at its `mod tests`.
    const text = fs.readFileSync(file, 'utf8').split(/^#\[cfg\(test\)\]\s*\nmod tests/m)[0]
    for (const m of text.matchAll(/=\s*("[A-Za-z_0-9]+"(?:\s*\|\s*"[A-Za-z_0-9]+")*)\s*(?:;|,)/g)) {
      lists.push({ file, names: [...m[1].matchAll(/"([^"]+)"/g)].map((x) => x[1]) })
    }
    for (const m of text.matchAll(/&\[("[A-Za-z_0-9]+"(?:,\s*"[A-Za-z_0-9]+")*)\]/g)) {
      lists.push({ file, names: [...m[1].matchAll(/"([^"]+)"/g)].map((x) => x[1]) })
    }
  }
  assert.ok(lists.length > 40, `${lists.length} spelling lists found`)
  // Each field's spellings, as a set: a parser list must be one of them
  // (one field, all its spellings: `path` read as `file_path` is typed so).
  const declared = new Set()
  const walk = (v) => {
    if (Array.isArray(v)) v.forEach(walk)
    else if (v && typeof v === 'object') {
      if (Array.isArray(v.names)) declared.add([...v.names].sort().join(' | '))
      Object.values(v).forEach(walk)
    }
  }
  walk(JSON.parse(fs.readFileSync(path.join(REPO, 'types', 'inputs.json'), 'utf8')).types)
  for (const { file, names } of lists) {
    if (names.every((n) => INTERNAL.has(n))) continue
    const key = [...names].sort().join(' | ')
    assert.ok(declared.has(key), `${path.relative(REPO, file)} reads one field as ${names.join(' | ')}, which no field of types/inputs.json declares with those spellings`)
  }
})

test("README's options table names exactly the options types/inputs.json declares", () => {
  const readme = fs.readFileSync(path.join(REPO, 'README.md'), 'utf8')
  const table = readme.slice(readme.indexOf('| option | default | meaning |'))
  const rows = table.slice(0, table.indexOf('\n\n')).split('\n').slice(2)
  const documented = rows.flatMap((r) => [...r.split('|')[1].matchAll(/`(\w+)`/g)].map((m) => m[1])).sort()
  const options = JSON.parse(fs.readFileSync(path.join(REPO, 'types', 'inputs.json'), 'utf8')).types.PatchFileOptions
  const declared = options.shape.fields.map((f) => f.names[0]).sort()
  assert.ok(documented.length >= 10, documented.join())
  assert.deepEqual(documented, declared)
})

test('a field several tools take has one schema in all of them (expected_sha256 is 64 hex digits everywhere)', () => {
  const seen = new Map()
  /** Every property of `node` and below, as [name, schema, where]. */
  const walk = (node, where, out = []) => {
    if (Array.isArray(node)) node.forEach((n, i) => walk(n, `${where}[${i}]`, out))
    else if (node && typeof node === 'object') {
      for (const [k, v] of Object.entries(node)) {
        if (k === 'properties') for (const [name, s] of Object.entries(v)) out.push([name, s, where])
        walk(v, `${where}.${k}`, out)
      }
    }
    return out
  }
  const dir = path.join(REPO, 'schemas')
  for (const f of fs.readdirSync(dir).filter((f) => f.endsWith('.schema.json'))) {
    for (const [name, schema, where] of walk(JSON.parse(fs.readFileSync(path.join(dir, f), 'utf8')), f)) {
      if (!['expected_sha256', 'expectedSha256', 'file_path', 'filePath', 'dry_run', 'dryRun'].includes(name)) continue
      const { description, ...shape } = schema
      const key = JSON.stringify(shape)
      if (!seen.has(name)) seen.set(name, new Map())
      seen.get(name).set(key, `${where}.${name}`)
    }
  }
  for (const [name, shapes] of seen) {
    assert.equal(shapes.size, 1, `${name} has ${shapes.size} schemas: ${[...shapes].map(([s, w]) => `${w}: ${s}`).join('; ')}`)
  }
  assert.deepEqual(JSON.parse([...seen.get('expected_sha256').keys()][0]), { type: 'string', pattern: '^[0-9a-fA-F]{64}$' })
})
