// Shared helpers of the web tests: the sylcol binary, the samples, free
// ports, a server started and stopped per test, and Chromium.
import { execFileSync, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer } from 'node:net';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
export const SAMPLES = join(ROOT, 'samples/MiscBin.pak');

/** The sylcol binary: $SYLCOL_BIN, else target/debug (then release). */
export const SYLCOL = (() => {
  if (process.env.SYLCOL_BIN) return process.env.SYLCOL_BIN;
  for (const p of ['target/debug/sylcol', 'target/release/sylcol']) {
    if (existsSync(join(ROOT, p))) return join(ROOT, p);
  }
  throw new Error('build sylcol first (cargo build -p sylcol-cli) or set SYLCOL_BIN');
})();

/** Runs sylcol, returns stdout (throws on a non-zero exit). */
export function sylcol(args) {
  return execFileSync(SYLCOL, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}
