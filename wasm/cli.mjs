// `node wasm/attnplay.mjs run FILE|- | run --preset NAME | presets [--json] | algorithms [--json]`:
// the CLI that mirrors build/native/attnplay (SPEC §1), run by wasm/attnplay.mjs when it is the
// program; a file of its own, so that the page's bundle leaves it out.
/** Runs the CLI on `args` with wasm/attnplay.mjs's `load` (passed in: importing that module from here
 * would wait on its own top-level await, which is what runs this). */
export async function main(args, load) {
  const fs = await import('node:fs');
  const { run, presets, algorithms } = await load();
  const fail = (message, code = 1) => {
    process.stderr.write(message + '\n');
    process.exitCode = code;
  };
  try {
    if (args[0] === 'presets') {
      const list = presets();
      if (args[1] === '--json') process.stdout.write(JSON.stringify(list) + '\n');
      else for (const p of list) process.stdout.write(`${p.name}\t${p.title}\n`);
    } else if (args[0] === 'algorithms') {
      const list = algorithms();
      if (args[1] === '--json') process.stdout.write(JSON.stringify(list) + '\n');
      else for (const a of list) process.stdout.write(`${a.name}\t${a.title}\n`);
    } else if (args[0] === 'run' && args.length === 3 && args[1] === '--preset') {
      const preset = presets().find((p) => p.name === args[2]);
      if (!preset) return fail(`--preset: no preset named "${args[2]}" (see attnplay presets)`);
      process.stdout.write(JSON.stringify(run(preset.scenario)) + '\n');
    } else if (args[0] === 'run' && args.length === 2) {
      let text;
      try {
        text = fs.readFileSync(args[1] === '-' ? 0 : args[1], 'utf8');
      } catch {
        return fail(`${args[1]}: cannot open file`);
      }
      process.stdout.write(JSON.stringify(run(text)) + '\n');  // parsed by the core, as natively
    } else {
      fail('usage: node wasm/attnplay.mjs run FILE|- | run --preset NAME | presets [--json] | algorithms [--json]', 2);
    }
  } catch (e) {
    fail(e.message);
  }
}
