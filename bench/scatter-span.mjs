// The user time of moving 256-byte blocks (W8's rows) from a 4 MiB window to random places in a
// span of memory, as a pass of the passes strategy does: `node bench/scatter-span.mjs MIB` prints
// the user nanoseconds a block. The memory is touched before it is timed, so page faults are not
// in it; what grows with the span is the cost of reaching memory (TLB and cache misses). The sizes
// tables run it for the pass spans of two sizes: the floor of the growth of their user time.
const BLOCK = 256;
const WINDOW = 4 << 20;
const BLOCKS = 4_000_000;

/** Moves a window's blocks (at word `from`) to `places`, ascending block slots of the span. */
function moveWindow(words, from, places) {
  for (let i = 0; i < places.length; i++) {
    const source = from + i * (BLOCK >>> 2);
    const target = places[i] * (BLOCK >>> 2);
    for (let w = 0; w < BLOCK >>> 2; w++) words[target + w] = words[source + w];
  }
}

const span = Number(process.argv[2]) * 2 ** 20;
const words = new Int32Array((span + WINDOW) / 4);
for (let i = 0; i < words.length; i += 1024) words[i] = 1;
const places = new Int32Array(WINDOW / BLOCK);
const slots = Math.floor(span / BLOCK);
let user = 0;
for (let done = 0; done < BLOCKS; done += places.length) {
  // A pass moves a window's blocks in output order (bucket-by-window.ts keeps it).
  for (let i = 0; i < places.length; i++) places[i] = Math.floor(Math.random() * slots);
  places.sort();
  const before = process.cpuUsage().user;
  moveWindow(words, span / 4, places);
  user += process.cpuUsage().user - before;
}
process.stdout.write(`${((user * 1000) / BLOCKS).toFixed(1)}\n`);
