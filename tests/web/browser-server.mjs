// One headless Chromium for the whole browser phase of scripts/test.sh (a start and stop costs about
// 4.5 s of CPU on the 2-core machine; each suite used to start its own). Prints the endpoint that
// harness.mjs connects to (ATTNPLAY_BROWSER_WS) on its first line, then serves until its standard
// input closes or it is sent SIGTERM / SIGINT. Each suite opens contexts of its own in it (own
// storage, permissions, downloads); suites that use the clipboard start their own (harness.mjs).
import { chromium } from 'playwright-core';
import { CHROMIUM_ARGS } from './harness.mjs';

const server = await chromium.launchServer({ executablePath: '/usr/bin/chromium', headless: true, args: CHROMIUM_ARGS });
process.stdout.write(server.wsEndpoint() + '\n');
let closing = false;
const stop = async () => {
  if (closing) return;
  closing = true;
  await server.close().catch(() => {});
  process.exit(0);
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
process.stdin.on('end', stop);
process.stdin.on('close', stop);
process.stdin.resume();
