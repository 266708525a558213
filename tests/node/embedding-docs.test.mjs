// docs/embedding.md for tutorial authors: its preset list is the registry's (scripts/embedding-presets.mjs),
// every preset its snippets name exists, and README links it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { DOC, presetTable, withTable } from '../../scripts/embedding-presets.mjs';
import { root, wasm } from './helpers.mjs';

const doc = fs.readFileSync(DOC, 'utf8');

test('the preset list is current (else: node scripts/embedding-presets.mjs)', async () => {
  const table = await presetTable();
  assert.equal(withTable(doc, table), doc);
  const names = wasm.presets().map((p) => p.name);
  for (const name of names) assert.ok(table.includes(`| \`${name}\` |`), name);
  assert.equal(table.split('\n').length, names.length + 2);
});

test('every preset the snippets name exists; README links the doc', () => {
  const names = new Set(wasm.presets().map((p) => p.name));
  const used = [...doc.matchAll(/preset(?:=|="|: ?['"]|', ?['"])([a-z0-9-]+)/g)].map((m) => m[1]);
  assert.ok(used.length >= 5, `${used.length} presets named in snippets`);
  for (const name of used) assert.ok(names.has(name), `docs/embedding.md names preset "${name}", which does not exist`);
  assert.match(fs.readFileSync(path.join(root, 'README.md'), 'utf8'), /\]\(docs\/embedding\.md\)/);
});
