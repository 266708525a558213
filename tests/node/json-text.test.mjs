// The parser's errors name the path where it stopped (issue 18), the same in the WASM module and
// the native CLI: numbers beyond float64, NaN / Infinity literals, deep nesting, broken UTF-8.
import test from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { wasm, nativeCli } from './helpers.mjs';

// {message, field} of the module's Error on `text`
function wasmFailure(text) {
  try {
    wasm.run(text);
  } catch (e) {
    return { message: e.message, field: e.field };
  }
  assert.fail(`no error on ${text.slice(0, 80)}`);
}

// the CLI's one line on stderr for these bytes on stdin (exit status 1)
function cliFailure(bytes) {
  try {
    execFileSync(nativeCli, ['run', '-'], { input: bytes, stdio: ['pipe', 'pipe', 'pipe'] });
  } catch (e) {
    assert.equal(e.status, 1);
    return e.stderr.toString().trim();
  }
  assert.fail('no error');
}

const QKV = '"k": [[[[1]]]], "v": [[[[1]]]]';

test('1e999, NaN and Infinity name their entry in WASM and the CLI alike', () => {
  const cases = [
    [`{"algorithm": "full", "q": [[[[1e999]]]], ${QKV}}`, 'q[0][0][0][0]', '1e999 is outside float64'],
    [`{"algorithm": "full", "q": [[[[0.5, -1e400]]]], ${QKV}}`, 'q[0][0][0][1]', '-1e400 is outside float64'],
    [`{"algorithm": "full", "q": [[[[NaN]]]], ${QKV}}`, 'q[0][0][0][0]', 'NaN is not a JSON number'],
    [`{"algorithm": "full", "q": [[[[1]]]], "k": [[[[1]]]], "v": [[[[2], [Infinity]]]]}`, 'v[0][0][1][0]', 'Infinity is not a JSON number'],
  ];
  for (const [text, field, what] of cases) {
    const w = wasmFailure(text);
    assert.equal(w.field, field);
    assert.ok(w.message.startsWith(`${field}: ${what}`), w.message);
    assert.equal(cliFailure(Buffer.from(text)), w.message);
  }
});

test('nesting past 64 levels names the level that passes it', () => {
  const text = `{"algorithm": "full", "q": ${'['.repeat(5000)}${']'.repeat(5000)}}`;
  const w = wasmFailure(text);
  assert.equal(w.field, 'q' + '[0]'.repeat(63));
  assert.match(w.message, /nested deeper than 64/);
  assert.equal(cliFailure(Buffer.from(text)), w.message);
});

test('broken UTF-8 names the string it is in; the message is valid UTF-8 itself', () => {
  // the CLI: raw bytes (0xFF never occurs in UTF-8)
  const bytes = Buffer.concat([Buffer.from('{"algorithm": "fu'), Buffer.from([0xff]), Buffer.from('ll"}')]);
  const line = cliFailure(bytes);
  assert.match(line, /^algorithm: invalid JSON at byte 17: .*ill-formed UTF-8/);
  assert.ok(line.includes('\\xFF'), line);
  assert.ok(!line.includes('\ufffd'), line);
  // WASM: a JS string cannot carry broken UTF-8 (Embind writes a lone surrogate as U+FFFD, valid
  // UTF-8), so the text parses and the reader refuses the odd word, naming it; the message is valid
  const w = wasmFailure(`{"algorithm": "full", "q": [[[[1]]]], ${QKV}, "mask": {"kind": "caus\ud800al"}}`);
  assert.equal(w.field, 'mask.kind');
  assert.ok(w.message.startsWith('mask.kind: '), w.message);
  assert.equal(Buffer.from(w.message, 'utf8').toString('utf8'), w.message);
  // the module still runs
  assert.equal(wasm.run({ algorithm: 'full', q: [[[[1]]]], k: [[[[1]]]], v: [[[[3]]]] }).context[0][0][0][0], 3);
});
