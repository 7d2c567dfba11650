// Every glTF file sylcol writes passes the Khronos glTF validator with no
// error and no warning: each sample map with all its layers (GLB and
// .gltf), the whole library as one GLB, one part, a scaled map, and the
// whole archive as one scene.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync, mkdtempSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import validator from 'gltf-validator';
import { sylcol, SAMPLES } from './lib.mjs';

async function validate(path) {
  const bytes = new Uint8Array(readFileSync(path));
  const report = await validator.validateBytes(bytes, {
    uri: path,
    maxIssues: 0,
    externalResourceFunction: () => Promise.reject(new Error('no external resources')),
  });
  const issues = report.issues;
  const shown = issues.messages
    .filter((m) => m.severity <= 1)
    .slice(0, 5)
    .map((m) => `${m.code} ${m.pointer ?? ''}: ${m.message}`);
  assert.equal(issues.numErrors, 0, `${path}: errors\n${shown.join('\n')}`);
  assert.equal(issues.numWarnings, 0, `${path}: warnings\n${shown.join('\n')}`);
  return report;
}

test('the whole sample archive as GLB, every layer: 0 errors, 0 warnings', async () => {
  const out = mkdtempSync(join(tmpdir(), 'sylcol-gltf-'));
  sylcol(['export', SAMPLES, '-o', out, '--format', 'glb', '--layers', 'all']);
  const files = readdirSync(out).filter((f) => f.endsWith('.glb'));
  assert.equal(files.length, 23, `11 maps, 11 REGN point clouds and the library: ${files}`);
  for (const f of files) {
    const report = await validate(join(out, f));
    assert.ok(report.info.totalVertexCount > 0, f);
  }
});

test('the whole sample archive as one scene (GLB and .gltf): 0 errors, 0 warnings', async () => {
  const out = mkdtempSync(join(tmpdir(), 'sylcol-gltf-'));
  for (const name of ['archive.glb', 'archive.gltf']) {
    sylcol(['export', SAMPLES, '-o', join(out, name), '--layers', 'all', '--scale', '0.01']);
    const report = await validate(join(out, name));
    assert.ok(report.info.totalVertexCount > 0, name);
    assert.ok(report.info.drawCallCount > 23, `${name}: every object drawn`);
  }
});

test('.gltf with an embedded buffer, a scaled map, one part', async () => {
  const out = mkdtempSync(join(tmpdir(), 'sylcol-gltf-'));
  const map = `${SAMPLES}+$DD89A110`;
  sylcol(['export', map, '-o', join(out, 'map.gltf'), '--layers', 'all']);
  sylcol(['export', map, '-o', join(out, 'small.glb'), '--scale', '0.001']);
  const lib = `${SAMPLES}+CollisionSet_S01.bin`;
  sylcol(['export', lib, '--mesh', 'rou_e101_bdy_cmesh', '-o', join(out, 'part.glb')]);
  for (const f of ['map.gltf', 'small.glb', 'part.glb']) {
    await validate(join(out, f));
  }
});
