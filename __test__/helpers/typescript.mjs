// TypeScript checks against the repository's index.d.ts, the way
// __test__/packaging.test.mjs checks the installed package: a consumer
// project whose tsconfig is strict (nodenext modules, no ambient @types, lib
// files checked), type-checked with `tsc --strict --noEmit`. Here the
// consumer reaches the package through node_modules/patch-file-tool, a link
// to this checkout, so no pack or install is needed.
import { spawnSync } from 'node:child_process'
import { createRequire } from 'node:module'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

export const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..')
const pkg = JSON.parse(fs.readFileSync(path.join(REPO, 'package.json'), 'utf8'))
const TSC = path.join(REPO, 'node_modules', 'typescript', 'bin', 'tsc')

/** The TypeScript compiler API (the devDependency). */
export const ts = createRequire(path.join(REPO, 'package.json'))('typescript')

/** The compiler options of the consumer projects (as in packaging.test.mjs). */
export const CONSUMER_OPTIONS = {
  strict: true,
  noEmit: true,
  module: 'nodenext',
  moduleResolution: 'nodenext',
  target: 'es2022',
  types: [],
  skipLibCheck: false,
  noUnusedLocals: false,
}

/**
 * A fresh consumer project: `files` (name → text) written into it and
 * node_modules/<package> linked to this checkout. `links` names packages of
 * this checkout's node_modules to link there too (the agent SDKs a consumer
 * of the adapters installs beside the package); `compilerOptions` are merged
 * over CONSUMER_OPTIONS. Returns its directory.
 */
export function consumerProject(files, { links = [], compilerOptions = {} } = {}) {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'pft-ts-')))
  fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: 'consumer', version: '1.0.0', private: true }))
  fs.mkdirSync(path.join(dir, 'node_modules'))
  const type = process.platform === 'win32' ? 'junction' : 'dir'
  fs.symlinkSync(REPO, path.join(dir, 'node_modules', pkg.name), type)
  for (const name of links) {
    fs.mkdirSync(path.dirname(path.join(dir, 'node_modules', name)), { recursive: true })
    fs.symlinkSync(path.join(REPO, 'node_modules', name), path.join(dir, 'node_modules', name), type)
  }
  for (const [name, text] of Object.entries(files)) fs.writeFileSync(path.join(dir, name), text)
  const options = { ...CONSUMER_OPTIONS, ...compilerOptions }
  fs.writeFileSync(path.join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions: options, files: Object.keys(files) }))
  return dir
}

/**
 * Runs `tsc -p <dir> --strict --noEmit`. Returns the exit status, the output
 * and the errors reported, as { file, line, code, message } (line 1-based).
 */
export function tsc(dir) {
  const r = spawnSync(process.execPath, [TSC, '-p', dir, '--strict', '--noEmit', '--pretty', 'false'], { cwd: dir, encoding: 'utf8' })
  if (r.error) throw r.error
  const errors = []
  for (const m of r.stdout.matchAll(/^(.+?)\((\d+),\d+\): error (TS\d+): (.*)$/gm)) {
    errors.push({ file: m[1], line: Number(m[2]), code: m[3], message: m[4] })
  }
  return { status: r.status, output: r.stdout + r.stderr, errors }
}

/** The TypeScript checker over this checkout's index.d.ts (`file`), and the symbols it exports. */
export function indexDeclarations() {
  const file = path.join(REPO, 'index.d.ts')
  const program = ts.createProgram([file], { strict: true, noEmit: true, types: [], target: ts.ScriptTarget.ES2022 })
  const checker = program.getTypeChecker()
  const exports = checker.getExportsOfModule(checker.getSymbolAtLocation(program.getSourceFile(file)))
  return { file, checker, exports }
}
