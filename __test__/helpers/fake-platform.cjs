'use strict'
// Test-only preload (`node --require __test__/helpers/fake-platform.cjs`):
// makes this process look like another platform to the napi-rs loader in
// binding.js, which picks the binary by process.platform and process.arch,
// so a platform without a prebuilt binary can be tried on this machine.
// Nothing in the package reads these variables; only the tests set them.
//
//   PFT_FAKE_PLATFORM  e.g. freebsd   (process.platform)
//   PFT_FAKE_ARCH      e.g. riscv64   (process.arch)
for (const [key, env] of [
  ['platform', 'PFT_FAKE_PLATFORM'],
  ['arch', 'PFT_FAKE_ARCH'],
]) {
  const value = process.env[env]
  if (value) Object.defineProperty(process, key, { value, configurable: true, enumerable: true, writable: false })
}
