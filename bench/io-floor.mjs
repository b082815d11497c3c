// The I/O of a file-to-file gather alone, with no gather: `node bench/io-floor.mjs SOURCE READS OUT`
// reads SOURCE READS times in 4 MiB windows into one reused buffer (what the passes' reader does;
// a scan reads once) and, at the same time, writes as many bytes as SOURCE holds to OUT in 32 MiB
// chunks from one reused buffer, each on a thread of libuv's pool as the gather does. W8 and the
// sizes tables run it as the floor of the gather's strategy: node's start and its reads of the
// page cache overlapped with one write, without moving a row.
import { open } from 'node:fs/promises';

const [source, reads, out] = process.argv.slice(2);
const WINDOW = 4 << 20;
const CHUNK = 32 << 20;

const input = await open(source, 'r');
const { size } = await input.stat();

async function readAll() {
  const window = Buffer.allocUnsafeSlow(WINDOW);
  for (let pass = 0; pass < Number(reads); pass++) {
    for (let at = 0; at < size; at += WINDOW) await input.read(window, 0, WINDOW, at);
  }
}

async function writeAll() {
  const output = await open(out, 'w');
  const chunk = Buffer.alloc(Math.min(CHUNK, size));
  for (let at = 0; at < size; at += chunk.length) {
    await output.write(chunk, 0, Math.min(chunk.length, size - at));
  }
  await output.close();
}

await Promise.all([readAll(), writeAll()]);
await input.close();
