// Text indices: parsing W1's ids written as text (one per line, as `seq` or a CSV column gives
// them) must cost less than the gather they feed. Both are timed here, in the same run.
import { gather } from '../../packages/core/dist/index.js';
import { parseIndexText } from '../../packages/io/dist/index.js';
import { randomBits, randomInt64 } from './data.mjs';
import { timeRuns } from './timing.mjs';
import { WORKLOADS } from './workloads.mjs';

/** Times parseIndexText on W1's ids as text and W1's gather on the parsed ids; prints one line. */
export function benchIndexText(opts) {
  const w1 = WORKLOADS.find((w) => w.id === 'W1');
  const { n, c } = w1.sizes[opts.quick ? 'quick' : 'full'];
  const ids = randomInt64([n], n, 2);
  const view = new BigInt64Array(ids.data.buffer, ids.data.byteOffset, n);
  const text = new TextEncoder().encode(`${Array.from(view, String).join('\n')}\n`);
  const t = { runs: opts.runs, warmup: opts.warmup };
  const parse = timeRuns(() => parseIndexText(text, 'bench'), t);
  const parsed = parseIndexText(text, 'bench');
  if (Buffer.compare(parsed.data, ids.data) !== 0) {
    throw new Error('index text: parsed ids differ from the ids written');
  }
  const data = randomBits('float32', [n, c], 1);
  const feed = timeRuns(() => gather(data, parsed, { axis: 0 }), t);
  const mb = (text.byteLength / 1e6).toFixed(1);
  console.log(
    `\ntext indices: parse ${n} ids (${mb} MB of text, one per line) ${parse.ms.toFixed(1)} ms; the W1 gather they feed (f32 [${n},${c}]) ${feed.ms.toFixed(1)} ms; parse / gather ${(parse.ms / feed.ms).toFixed(2)} (< 1: parsing costs less)`,
  );
  return { parseMs: parse.ms, gatherMs: feed.ms, ids: n, textBytes: text.byteLength };
}
