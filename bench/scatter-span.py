# The user time of moving 256-byte blocks (W8's rows) from a 4 MiB window to random places in a
# span of memory, as a pass of the passes strategy does: `python bench/scatter-span.py MIB PAGES
# PASSES` prints the user nanoseconds a block and the share of the span that got 2 MiB pages. Each
# window gives a pass its share of its blocks: a PASSES-th, at random places. PAGES is `unasked`
# (the pages any process gets without asking, as the passes' WebAssembly memory does: V8 cannot
# ask for more) or `huge` (madvise(MADV_HUGEPAGE), as numpy asks for its large arrays). The memory
# is touched before it is timed, so page faults are not in it; what grows with the span is the
# cost of reaching memory (TLB and cache misses). The sizes tables run it for the pass spans of
# two sizes: the floor of the growth of their user time. numpy does the moves, in C, a call a
# window.
import mmap
import resource
import sys

import numpy as np

BLOCK = 256
WINDOW = 4 << 20
BLOCKS = 4_000_000

mib, pages, passes = int(sys.argv[1]), sys.argv[2], int(sys.argv[3])
if pages not in ('unasked', 'huge'):
    sys.exit(f'scatter-span.py: PAGES is unasked or huge, not {pages!r}')
span = mib << 20
memory = mmap.mmap(-1, span + WINDOW, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
if pages == 'huge':
    memory.madvise(mmap.MADV_HUGEPAGE)
blocks = np.frombuffer(memory, dtype=np.uint8).reshape(-1, BLOCK)
blocks[:, 0] = 1  # every page touched first
slots = span // BLOCK
window = blocks[slots:]
per_window = len(window) // passes
rng = np.random.default_rng(1)
user = 0.0
for done in range(0, BLOCKS, per_window):
    # A pass moves a window's blocks in output order (bucket-by-window.ts keeps it).
    places = np.sort(rng.integers(0, slots, per_window))
    before = resource.getrusage(resource.RUSAGE_SELF).ru_utime
    blocks[places] = window[:per_window]
    user += resource.getrusage(resource.RUSAGE_SELF).ru_utime - before
with open('/proc/self/smaps_rollup') as f:
    huge_kb = next((int(line.split()[1]) for line in f if line.startswith('AnonHugePages:')), 0)
print(f'{user * 1e9 / BLOCKS:.1f} {min(1.0, huge_kb * 1024 / (span + WINDOW)):.2f}')
