// Hostile-input stress run of the built CLI: zip bombs, corrupt archives, failing stdout, signals,
// endless devices and pipes, huge outputs, odd names, protected targets, bad flags, edge-case
// headers. Every case runs the real `apps/cli/dist/tensorops.cjs` in a private temp dir (devices are
// made there with mknod, never taken from /dev) and prints one verdict line:
//
//   PASS|FAIL  case  time  peak-RSS  exit  files-left  first stderr line
//
// Usage: node scripts/stress.mjs [--reduced] [--only SUBSTRING] [--json] [--bin PATH/tensorops.cjs]
// --reduced shrinks every size so that each case takes seconds and a few hundred MB, and drops the
// time limits from the verdicts (the test suite runs it that way). Exits 1 when any case fails. Linux only (/proc, mknod); as root
// it also runs the cases that need devices or another user.

import { spawn, spawnSync } from 'node:child_process';
import {
  chmodSync,
  closeSync,
  existsSync,
  ftruncateSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { crc32, deflateRawSync, constants as zc } from 'node:zlib';

const argv = process.argv.slice(2);
const REDUCED = argv.includes('--reduced');
const JSON_OUT = argv.includes('--json');
const ONLY = argv.includes('--only') ? argv[argv.indexOf('--only') + 1] : undefined;
const BIN = argv.includes('--bin')
  ? argv[argv.indexOf('--bin') + 1]
  : new URL('../apps/cli/dist/tensorops.cjs', import.meta.url).pathname;
const IS_ROOT = process.getuid?.() === 0;
const MB = 1 << 20;
/** Full size, or the reduced one. */
const size = (full, reduced) => (REDUCED ? reduced : full);
/**
 * A time limit, applied in full runs only: the reduced run is a test, and tests never assert on
 * timings (a loaded machine would fail them); there a hang still ends in the case's timeout.
 */
const within = (ms, limit) => REDUCED || ms < limit;

// ---------------------------------------------------------------------------------------------
// Files, built byte by byte (no numpy needed)

const MAGIC = Buffer.from([0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59]);

/** A .npy header (version 1.0 unless `major` says otherwise) with the dict text as given. */
function npyHeader(dict, major = 1) {
  const body = Buffer.from(dict, 'latin1');
  const field = major === 1 ? 10 : 12;
  const pad = 64 - ((field + body.length + 1) % 64);
  const len = body.length + pad + 1;
  const out = Buffer.alloc(field + len, 0x20);
  MAGIC.copy(out);
  out[6] = major;
  out[7] = 0;
  if (major === 1) out.writeUInt16LE(len, 8);
  else out.writeUInt32LE(len, 8);
  body.copy(out, field);
  out[out.length - 1] = 0x0a;
  return out;
}

function npyDict(descr, shape) {
  const dims = shape.length === 1 ? `(${shape[0]},)` : `(${shape.join(', ')})`;
  return `{'descr': '${descr}', 'fortran_order': False, 'shape': ${dims}, }`;
}

function npy(descr, shape, data) {
  return Buffer.concat([npyHeader(npyDict(descr, shape)), data]);
}

const int64s = (values) => {
  const b = Buffer.alloc(values.length * 8);
  values.forEach((v, i) => {
    b.writeBigInt64LE(BigInt(v), i * 8);
  });
  return b;
};
const float32s = (n) => {
  const b = Buffer.alloc(n * 4);
  for (let i = 0; i < n; i++) b.writeFloatLE(i, i * 4);
  return b;
};

/** A .npy of zeros whose data is a hole: big files cost nothing to make. */
function sparseNpy(path, descr, shape, itemSize) {
  const header = npyHeader(npyDict(descr, shape));
  const fd = openSync(path, 'w');
  writeSync(fd, header);
  ftruncateSync(fd, header.length + shape.reduce((a, b) => a * b, 1) * itemSize);
  closeSync(fd);
}

/** A torch.save archive: `pickle` as its data.pkl, each of `storages` as its data/KEY member. */
function torchZip(pickle, storages = {}) {
  return zip([
    { name: 'archive/data.pkl', data: pickle },
    { name: 'archive/byteorder', data: Buffer.from('little') },
    ...Object.entries(storages).map(([key, data]) => ({ name: `archive/data/${key}`, data })),
  ]);
}

/**
 * A zip. Members: { name (string or raw Buffer), data, deflate?, utf8?, crc?, size? } or
 * { name, raw: { compressed, size, crc } } for prebuilt deflate streams.
 */
function zip(members) {
  const locals = [];
  const central = [];
  let offset = 0;
  for (const m of members) {
    const name = Buffer.isBuffer(m.name) ? m.name : Buffer.from(m.name, 'utf8');
    const method = m.raw || m.deflate ? 8 : 0;
    const body = m.raw ? m.raw.compressed : m.deflate ? deflateRawSync(m.data) : m.data;
    const crc = m.raw ? m.raw.crc : (m.crc ?? crc32(m.data));
    const usize = m.raw ? m.raw.size : m.data.length;
    const flags = m.utf8 ? 0x800 : 0;
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(flags, 6);
    local.writeUInt16LE(method, 8);
    local.writeUInt32LE(0x00210000, 10);
    local.writeUInt32LE(crc >>> 0, 14);
    local.writeUInt32LE(body.length, 18);
    local.writeUInt32LE(usize, 22);
    local.writeUInt16LE(name.length, 26);
    const cd = Buffer.alloc(46);
    cd.writeUInt32LE(0x02014b50, 0);
    cd.writeUInt16LE(20, 4);
    cd.writeUInt16LE(20, 6);
    cd.writeUInt16LE(flags, 8);
    cd.writeUInt16LE(method, 10);
    cd.writeUInt32LE(0x00210000, 12);
    cd.writeUInt32LE(crc >>> 0, 16);
    cd.writeUInt32LE(body.length, 20);
    cd.writeUInt32LE(usize, 24);
    cd.writeUInt16LE(name.length, 28);
    cd.writeUInt32LE(offset, 42);
    locals.push(local, name, body);
    central.push(cd, name);
    offset += 30 + name.length + body.length;
  }
  const cdBytes = Buffer.concat(central);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(members.length, 8);
  end.writeUInt16LE(members.length, 10);
  end.writeUInt32LE(cdBytes.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, cdBytes, end]);
}

/**
 * A deflate stream of `head` followed by `zeros` zero bytes, built without inflating anything
 * big: after a full flush the compressor starts afresh, so the compressed form of each further
 * 1 MiB of zeros is the same bytes, repeated.
 */
function zeroBomb(head, zeros) {
  const unit = MB;
  const flush = (data) => deflateRawSync(data, { level: 9, finishFlush: zc.Z_FULL_FLUSH });
  const first = flush(head);
  const block = flush(Buffer.alloc(unit));
  const last = deflateRawSync(Buffer.alloc(zeros % unit), { level: 9 });
  const blocks = Math.floor(zeros / unit);
  let crc = crc32(head);
  const zero = Buffer.alloc(unit);
  for (let i = 0; i < blocks; i++) crc = crc32(zero, crc);
  crc = crc32(Buffer.alloc(zeros % unit), crc);
  const parts = [first];
  for (let i = 0; i < blocks; i++) parts.push(block);
  parts.push(last);
  return { compressed: Buffer.concat(parts), size: head.length + zeros, crc };
}

function safetensors(header, data = Buffer.alloc(0)) {
  const json = Buffer.from(JSON.stringify(header), 'utf8');
  const len = Buffer.alloc(8);
  len.writeBigUInt64LE(BigInt(json.length));
  return Buffer.concat([len, json, data]);
}

// ---------------------------------------------------------------------------------------------
// Running the CLI: time, peak RSS (VmHWM polled from /proc), exit, stderr, files left

function vmHWM(pid) {
  try {
    const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) * 1024 : 0;
  } catch {
    return 0;
  }
}

/**
 * Runs the CLI. options: cwd, stdin ('ignore' | path | { zeros: n } | { bytes }), stdout
 * ('pipe' | path | 'closed' | 'epipe'), timeoutMs, signal: { name, when(): boolean } (sent
 * when `when` first holds, polled every 5 ms), uid/gid, env (variables added to PATH and TMPDIR).
 */
function run(args, options = {}) {
  return new Promise((resolve) => {
    const stdio = ['pipe', 'pipe', 'pipe'];
    const fds = [];
    if (typeof options.stdin === 'string' && options.stdin !== 'ignore') {
      stdio[0] = openSync(options.stdin, 'r');
      fds.push(stdio[0]);
    } else if (options.stdin === 'ignore' || options.stdin === undefined) stdio[0] = 'ignore';
    else if (options.stdin.stream !== undefined) stdio[0] = options.stdin.stream;
    if (
      typeof options.stdout === 'string' &&
      !['pipe', 'closed', 'epipe'].includes(options.stdout)
    ) {
      stdio[1] = openSync(options.stdout, 'w');
      fds.push(stdio[1]);
    }
    let command = process.execPath;
    let commandArgs = [BIN, ...args];
    if (options.stdout === 'closed') {
      command = '/bin/sh';
      commandArgs = ['-c', 'exec "$0" "$@" >&-', process.execPath, BIN, ...args];
      stdio[1] = 'ignore';
    }
    if (options.openFiles !== undefined) {
      command = '/bin/sh';
      const limit = `ulimit -n ${options.openFiles} && exec "$0" "$@"`;
      commandArgs = ['-c', limit, process.execPath, BIN, ...args];
    }
    const started = performance.now();
    const child = spawn(command, commandArgs, {
      cwd: options.cwd,
      stdio,
      env: { PATH: process.env.PATH ?? '', TMPDIR: SCRATCH, ...options.env },
      uid: options.uid,
      gid: options.gid,
    });
    for (const fd of fds) closeSync(fd);
    let peak = 0;
    let stderr = '';
    let stdoutBytes = 0;
    let signalledAt;
    let timedOut = false;
    child.stderr.on('data', (d) => {
      if (stderr.length < 65536) stderr += d.toString('utf8');
    });
    if (child.stdout) {
      if (options.stdout === 'epipe') child.stdout.destroy();
      else
        child.stdout.on('data', (d) => {
          stdoutBytes += d.length;
        });
    }
    if (child.stdin) {
      child.stdin.on('error', () => {});
      if (options.stdin?.zeros !== undefined) {
        const chunk = Buffer.alloc(MB);
        let left = options.stdin.zeros;
        const pump = () => {
          while (left > 0) {
            const n = Math.min(left, chunk.length);
            left -= n;
            if (!child.stdin.write(n === chunk.length ? chunk : chunk.subarray(0, n))) {
              child.stdin.once('drain', pump);
              return;
            }
          }
          child.stdin.end();
        };
        pump();
      } else if (options.stdin?.bytes !== undefined) child.stdin.end(options.stdin.bytes);
    }
    const poll = setInterval(() => {
      peak = Math.max(peak, vmHWM(child.pid));
      if (
        options.signal &&
        signalledAt === undefined &&
        options.signal.when(performance.now() - started)
      ) {
        signalledAt = performance.now();
        child.kill(options.signal.name);
      }
    }, 5);
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, options.timeoutMs ?? 60_000);
    child.on('exit', (code, signal) => {
      const ended = performance.now();
      clearInterval(poll);
      clearTimeout(timer);
      const finish = () =>
        resolve({
          code: timedOut ? 'timeout' : (code ?? `killed by ${signal}`),
          ms: ended - started,
          exitAfterSignalMs: signalledAt === undefined ? undefined : ended - signalledAt,
          rss: peak,
          stderr,
          stdoutBytes,
        });
      if (child.stderr.readableEnded) finish();
      else child.stderr.once('close', finish);
    });
  });
}

const stderrLines = (r) => r.stderr.split('\n').filter((l) => l !== '').length;

function filesIn(dir) {
  return existsSync(dir) ? readdirSync(dir).sort() : [];
}

/** How many files in `dir` are not among `expected`. */
const extraFiles = (dir, expected) => filesIn(dir).filter((f) => !expected.includes(f)).length;

// ---------------------------------------------------------------------------------------------
// The cases. Each returns { result, ok, note? }; `dir` is the case's own empty folder, where
// outputs go ("files left" counts what is there afterwards besides what the case expects).

const cases = [];
const add = (id, point, fn) => cases.push({ id, point, fn });

/** Failing cleanly: exit 1 (or `exit`), one stderr line, nothing left in `dir`. */
function cleanFailure(r, dir, keep = [], exit = 1) {
  const left = filesIn(dir).filter((f) => !keep.includes(f));
  return {
    ok: r.code === exit && stderrLines(r) === 1 && left.length === 0,
    left: left.length,
  };
}

let IN; // shared inputs folder
/** TMPDIR of every CLI run: inside the run's folder. */
let SCRATCH;
const idx = () => join(IN, 'i.npy');

function setupInputs() {
  writeFileSync(join(IN, 'd.npy'), npy('<f4', [3, 4], float32s(12)));
  writeFileSync(join(IN, 'i.npy'), npy('<i8', [2], int64s([0, 2])));
  // 1: a deflated [3,4] float32 member followed by a flood of zeros
  const head = npy('<f4', [3, 4], float32s(12));
  const bomb = zeroBomb(head, size(1536, 96) * MB);
  writeFileSync(join(IN, 'bomb.npz'), zip([{ name: 'x.npy', raw: bomb }]));
  // 2: one flipped data byte in a stored member
  const good = npy('<f4', [3, 4], float32s(12));
  const bad = Buffer.from(good);
  bad[bad.length - 1] ^= 0x01;
  writeFileSync(join(IN, 'crc.npz'), zip([{ name: 'x.npy', data: bad, crc: crc32(good) }]));
}

for (const [id, args, outName] of [
  ['bomb-gather', (d) => ['gather', join(IN, 'bomb.npz:x'), idx(), '-o', join(d, 'o.npy')]],
  ['bomb-convert', (d) => ['convert', join(IN, 'bomb.npz'), join(d, 'o.npy')]],
]) {
  add(id, 1, async (dir) => {
    const r = await run(args(dir), { timeoutMs: 120_000 });
    const f = cleanFailure(r, dir, outName ? [outName] : []);
    return { result: r, ok: f.ok && r.rss < 200 * MB, left: f.left };
  });
}

for (const [id, extra] of [
  ['crc-convert-npz', []],
  ['crc-convert-npz-compress', ['--compress']],
  ['crc-convert-npz-name', null],
]) {
  add(id, 2, async (dir) => {
    const args =
      extra === null
        ? ['convert', join(IN, 'crc.npz:x'), `${join(dir, 'out.npz')}:y`]
        : ['convert', join(IN, 'crc.npz'), join(dir, 'out.npz'), ...extra];
    const r = await run(args);
    const f = cleanFailure(r, dir);
    return { result: r, ok: f.ok, left: f.left };
  });
}

// 3: stdout failures
const stdoutCommands = {
  gather: () => ['gather', join(IN, 'd.npy'), idx()],
  'gather-json': () => ['gather', join(IN, 'd.npy'), idx(), '--json'],
  inspect: () => ['inspect', join(IN, 'd.npy')],
  'convert-stdout': () => ['convert', join(IN, 'd.npy'), '-'],
};
for (const [name, args] of Object.entries(stdoutCommands)) {
  add(`stdout-full-${name}`, 3, async (dir) => {
    if (!IS_ROOT) return { skip: 'needs root (mknod)' };
    const full = join(dir, 'full');
    spawnSync('mknod', [full, 'c', '1', '7']);
    const r = await run(args(), { stdout: full });
    const f = cleanFailure(r, dir, ['full']);
    return { result: r, ok: f.ok, left: f.left };
  });
}
add('stdout-closed-gather', 3, async (dir) => {
  const r = await run(stdoutCommands.gather(), { stdout: 'closed' });
  const f = cleanFailure(r, dir);
  return { result: r, ok: f.ok, left: f.left };
});
add('stdout-epipe-gather-json', 3, async (dir) => {
  sparseNpy(join(dir, 'big.npy'), '<f4', [size(4096, 512), 1024], 4);
  writeFileSync(
    join(dir, 'rows.npy'),
    npy('<i8', [64], int64s(Array.from({ length: 64 }, (_, i) => i))),
  );
  const r = await run(['gather', join(dir, 'big.npy'), join(dir, 'rows.npy'), '--json'], {
    stdout: 'epipe',
  });
  return {
    result: r,
    ok: r.code === 0 && stderrLines(r) === 0,
    left: extraFiles(dir, ['big.npy', 'rows.npy']),
  };
});

// 4: signals across the write window; the target exists beforehand and must stay as it was
const SIGNALS = { SIGINT: 2, SIGTERM: 15, SIGHUP: 1, SIGQUIT: 3 };
// startup: before any file is opened; open: the temp file exists; mid: more than 1 MiB written
const PHASES = ['startup', 'open', 'mid'];
const signalCases = REDUCED
  ? [
      ['SIGTERM', 'open'],
      ['SIGINT', 'mid'],
      ['SIGHUP', 'mid'],
    ]
  : Object.keys(SIGNALS).flatMap((s) => PHASES.map((p) => [s, p]));
for (const [name, when] of signalCases) {
  add(`signal-${name}-${when}`, 4, async (dir) => {
    const big = join(dir, 'big.npy');
    sparseNpy(big, '<f4', [size(100, 16) * MB], 4);
    const out = join(dir, 'out');
    mkdirSync(out);
    const target = join(out, 't.npy');
    writeFileSync(target, 'original');
    const temps = () => filesIn(out).filter((f) => f !== 't.npy');
    const tempOver = (bytes) => () =>
      temps().some((f) => (statSync(join(out, f), { throwIfNoEntry: false })?.size ?? -1) >= bytes);
    const trigger = { startup: (ms) => ms > 40, open: tempOver(0), mid: tempOver(MB) }[when];
    const r = await run(['convert', big, target], { signal: { name, when: trigger } });
    const left = temps().length;
    const untouched = readFileSync(target, 'utf8') === 'original';
    // Killed by the signal itself (before Node installs handlers) reads as 128+N in a shell too.
    const byCode = r.code === 128 + SIGNALS[name] || r.code === `killed by ${name}`;
    return {
      result: r,
      ok: byCode && left === 0 && untouched && within(r.exitAfterSignalMs ?? 1e9, 200),
      left,
      note: `exit ${Math.round(r.exitAfterSignalMs ?? -1)} ms after ${name}${untouched ? '' : ', target changed'}`,
    };
  });
}
add('signal-fifo-open-SIGINT', 4, async (dir) => {
  const fifo = join(dir, 'f.npy');
  spawnSync('mkfifo', [fifo]);
  const r = await run(['inspect', fifo], {
    signal: { name: 'SIGINT', when: (ms) => ms > 500 },
    timeoutMs: 10_000,
  });
  return {
    result: r,
    ok:
      (r.code === 130 || r.code === 'killed by SIGINT') && within(r.exitAfterSignalMs ?? 1e9, 200),
    left: 0,
    note: `exit ${Math.round(r.exitAfterSignalMs ?? -1)} ms after SIGINT`,
  };
});

// 5: endless devices and pipes, private copies made with mknod
for (const [dev, minor, command] of [
  ['zero', 5, 'inspect'],
  ['zero', 5, 'gather'],
  ['urandom', 9, 'inspect'],
  ['urandom', 9, 'gather'],
]) {
  add(`device-${dev}-${command}`, 5, async (dir) => {
    if (!IS_ROOT) return { skip: 'needs root (mknod)' };
    const path = join(dir, dev);
    spawnSync('mknod', [path, 'c', '1', String(minor)]);
    const args =
      command === 'inspect' ? ['inspect', path] : ['gather', path, idx(), '-o', join(dir, 'o.npy')];
    const r = await run(args, { timeoutMs: size(60_000, 10_000) });
    const f = cleanFailure(r, dir, [dev]);
    return { result: r, ok: f.ok && within(r.ms, 5000) && r.rss < 200 * MB, left: f.left };
  });
}
add('stdin-pipe-zeros', 5, async (dir) => {
  const r = await run(['gather', '-', idx(), '-o', join(dir, 'o.npy')], {
    stdin: { zeros: size(3000, 256) * MB },
    timeoutMs: 120_000,
  });
  const f = cleanFailure(r, dir);
  return { result: r, ok: f.ok && r.rss < 200 * MB, left: f.left };
});

// 6: stdin holding a big .npy: a regular file, then a pipe from another process (`cat big |`)
for (const via of ['file', 'pipe']) {
  add(`stdin-${via}-big`, 6, async (dir) => {
    const big = join(dir, 'big.npy');
    sparseNpy(big, '<f4', [size(3 * 1024, 64), 256 * 1024], 4); // rows of 1 MiB
    const cat =
      via === 'pipe' ? spawn('cat', [big], { stdio: ['ignore', 'pipe', 'ignore'] }) : undefined;
    const r = await run(['gather', '-', idx(), '-o', join(dir, 'o.npy')], {
      stdin: cat ? { stream: cat.stdout } : big,
      timeoutMs: 180_000,
    });
    cat?.kill();
    return {
      result: r,
      ok: r.code === 0 && r.rss < 300 * MB,
      left: extraFiles(dir, ['big.npy', 'o.npy']),
    };
  });
}

// 7: huge --json output
for (const mib of REDUCED ? [8] : [64, 256]) {
  add(`json-${mib}MiB`, 7, async (dir) => {
    const rows = (mib * MB) / 4096;
    sparseNpy(join(dir, 'big.npy'), '<f4', [rows, 1024], 4);
    writeFileSync(
      join(dir, 'rows.npy'),
      npy('<i8', [rows], int64s(Array.from({ length: rows }, (_, i) => i))),
    );
    const r = await run(['gather', join(dir, 'big.npy'), join(dir, 'rows.npy'), '--json'], {
      timeoutMs: 180_000,
    });
    return {
      result: r,
      ok: r.code === 0 && r.rss < 400 * MB,
      left: extraFiles(dir, ['big.npy', 'rows.npy']),
      note: `${(r.stdoutBytes / MB).toFixed(0)} MiB of JSON`,
    };
  });
}

// 8: names and counts
const x = npy('<f4', [3, 4], float32s(12));
for (const [id, members, ref] of [
  [
    'npz-name-colon',
    [
      { name: 'x:0.npy', data: x },
      { name: 'w.npy', data: x },
    ],
    'x:0',
  ],
  [
    'npz-name-backslash',
    [
      { name: 'a\\b.npy', data: x },
      { name: 'w.npy', data: x },
    ],
    'a\\b',
  ],
  [
    'npz-readme-member',
    [
      { name: 'readme.txt', data: Buffer.from('hi') },
      { name: 'w.npy', data: x },
    ],
    'w',
  ],
  [
    'npz-dir-member',
    [
      { name: 'sub/', data: Buffer.alloc(0) },
      { name: 'sub/w.npy', data: x },
    ],
    'sub/w',
  ],
]) {
  add(`${id}-inspect`, 8, async (dir) => {
    writeFileSync(join(dir, 'a.npz'), zip(members));
    const r = await run(['inspect', join(dir, 'a.npz')]);
    return { result: r, ok: r.code === 0, left: extraFiles(dir, ['a.npz']) };
  });
  add(`${id}-ref`, 8, async (dir) => {
    writeFileSync(join(dir, 'a.npz'), zip(members));
    const r = await run([
      'gather',
      `${join(dir, 'a.npz')}:${ref}`,
      idx(),
      '-o',
      join(dir, 'o.npy'),
    ]);
    return { result: r, ok: r.code === 0, left: extraFiles(dir, ['a.npz', 'o.npy']) };
  });
}
add('npz-readme-asked', 8, async (dir) => {
  writeFileSync(
    join(dir, 'a.npz'),
    zip([
      { name: 'readme.txt', data: Buffer.from('hi') },
      { name: 'w.npy', data: x },
    ]),
  );
  const r = await run([
    'gather',
    `${join(dir, 'a.npz')}:readme.txt`,
    idx(),
    '-o',
    join(dir, 'o.npy'),
  ]);
  const f = cleanFailure(r, dir, ['a.npz']);
  return { result: r, ok: f.ok, left: f.left };
});
add('safetensors-200k-inspect', 8, async (dir) => {
  const n = 200_000;
  const header = {};
  for (let i = 0; i < n; i++)
    header[`t${i}`] = { dtype: 'U8', shape: [1], data_offsets: [i, i + 1] };
  writeFileSync(join(dir, 'm.safetensors'), safetensors(header, Buffer.alloc(n)));
  const r = await run(['inspect', join(dir, 'm.safetensors')], { timeoutMs: 120_000 });
  return {
    result: r,
    ok: r.code === 0 && stderrLines(r) === 0,
    left: extraFiles(dir, ['m.safetensors', 'ro.npy', 'multi.npz', 'h.npy']),
  };
});
add('safetensors-big-metadata', 8, async (dir) => {
  const value = 'a'.repeat(size(99_000_000, 10_000_000));
  writeFileSync(
    join(dir, 'm.safetensors'),
    safetensors(
      { __metadata__: { k: value }, w: { dtype: 'U8', shape: [1], data_offsets: [0, 1] } },
      Buffer.alloc(1),
    ),
  );
  const r = await run(['inspect', join(dir, 'm.safetensors')], { timeoutMs: 180_000 });
  return {
    result: r,
    ok: r.code === 0 && r.rss < size(800, 250) * MB && within(r.ms, 5000),
    left: extraFiles(dir, ['m.safetensors', 'ro.npy', 'multi.npz', 'h.npy']),
  };
});

// 9: output targets
add('target-readonly-mode-kept', 9, async (dir) => {
  const t = join(dir, 'ro.npy');
  writeFileSync(t, 'original');
  chmodSync(t, 0o444);
  const r = await run(['gather', join(IN, 'd.npy'), idx(), '-o', t]);
  const mode = statSync(t).mode & 0o777;
  const untouched = readFileSync(t).toString('latin1') === 'original';
  // root may write a 0444 file (as cp does); it must then keep its mode
  const ok = IS_ROOT
    ? (r.code === 0 && mode === 0o444) || (r.code === 1 && untouched)
    : r.code === 1 && untouched;
  return {
    result: r,
    ok,
    left: extraFiles(dir, ['m.safetensors', 'ro.npy', 'multi.npz', 'h.npy']),
    note: `mode ${mode.toString(8)}`,
  };
});
add('target-readonly-as-nobody', 9, async (dir) => {
  if (!IS_ROOT) return { skip: 'needs root (runs as nobody)' };
  chmodSync(dir, 0o777);
  const t = join(dir, 'ro.npy');
  writeFileSync(t, 'original');
  chmodSync(t, 0o444);
  const d = join(dir, 'd.npy');
  writeFileSync(d, readFileSync(join(IN, 'd.npy')));
  const i = join(dir, 'i.npy');
  writeFileSync(i, readFileSync(idx()));
  const r = await run(['gather', d, i, '-o', t], { uid: 65534, gid: 65534, cwd: dir });
  const untouched = readFileSync(t).toString('latin1') === 'original';
  const f = cleanFailure(r, dir, ['ro.npy', 'd.npy', 'i.npy']);
  return { result: r, ok: f.ok && untouched, left: f.left };
});
add('target-npz-member', 9, async (dir) => {
  const t = join(dir, 'multi.npz');
  writeFileSync(
    t,
    zip([
      { name: 'a.npy', data: x },
      { name: 'b.npy', data: x },
    ]),
  );
  const before = readFileSync(t);
  const r = await run(['gather', join(IN, 'd.npy'), idx(), '-o', `${t}:rows`]);
  const after = spawnSync(process.execPath, [BIN, 'inspect', t, '--json'], { encoding: 'utf8' });
  let names = [];
  try {
    names = JSON.parse(after.stdout).tensors.map((s) => s.name);
  } catch {}
  const kept = ['a', 'b', 'rows'].every((n) => names.includes(n));
  const refused = r.code !== 0 && readFileSync(t).equals(before);
  return {
    result: r,
    ok: kept || refused,
    left: extraFiles(dir, ['m.safetensors', 'ro.npy', 'multi.npz', 'h.npy']),
    note: `members now: ${names.join(',')}`,
  };
});
add('target-rank-65', 9, async (dir) => {
  writeFileSync(join(dir, 'd.npy'), npy('<f4', Array(64).fill(1), float32s(1)));
  writeFileSync(join(dir, 'i.npy'), npy('<i8', [1, 1], int64s([0])));
  const r = await run(['gather', join(dir, 'd.npy'), join(dir, 'i.npy'), '-o', join(dir, 'o.npy')]);
  const f = cleanFailure(r, dir, ['d.npy', 'i.npy']);
  return { result: r, ok: f.ok, left: f.left };
});

// 10: flags
for (const [id, args, check] of [
  [
    'flag-two-outputs',
    (d) => ['gather', join(IN, 'd.npy'), idx(), '-o', join(d, 'a.npy'), '-o', join(d, 'b.npy')],
    (r) => r.code === 2,
  ],
  [
    'flag-oob-bogus',
    () => ['gather', join(IN, 'd.npy'), idx(), '--oob', 'bogus'],
    (r) => r.code === 2 && /oob/.test(r.stderr) && /zero/.test(r.stderr),
  ],
  ['flag-double-dash', () => ['gather', '-o', 'o.npy', '--', '-x.npy', idx()], (r) => r.code === 0],
  ['flag-axis-no-value', () => ['gather', join(IN, 'd.npy'), idx(), '--axis'], (r) => r.code === 2],
]) {
  add(id, 10, async (dir) => {
    writeFileSync(join(dir, '-x.npy'), readFileSync(join(IN, 'd.npy')));
    const r = await run(args(dir), { cwd: dir });
    return {
      result: r,
      ok: check(r) && stderrLines(r) <= 1,
      left: filesIn(dir).filter((f) => f !== '-x.npy' && f !== 'o.npy').length,
    };
  });
}

// 11: headers numpy reads (must pass) and ones it refuses (must fail)
const headerCases = [
  ['descr-i4', npyDict('i4', [3]), 12, 0],
  ['descr-=i4', npyDict('=i4', [3]), 12, 0],
  ['descr-U0', npyDict('<U0', [3]), 0, 0],
  ['descr-S0', npyDict('|S0', [3]), 0, 0],
  ['py2-long-dims', "{'descr': '<i1', 'fortran_order': False, 'shape': (2L, 3L), }", 6, 0],
  ['zero-padded-dim', npyDict('<i1', ['03']), 3, 1],
  ['header-20k', `${npyDict('<i1', [3])}${' '.repeat(20_000)}`, 3, 1],
];
for (const [id, dict, dataBytes, exit] of headerCases) {
  add(`npy-${id}`, 11, async (dir) => {
    writeFileSync(
      join(dir, 'h.npy'),
      Buffer.concat([npyHeader(dict, dict.length > 60000 ? 2 : 1), Buffer.alloc(dataBytes)]),
    );
    const r = await run(['inspect', join(dir, 'h.npy')]);
    return {
      result: r,
      ok: r.code === exit && stderrLines(r) === exit,
      left: extraFiles(dir, ['m.safetensors', 'ro.npy', 'multi.npz', 'h.npy']),
    };
  });
}

// 12: http(s) inputs: secrets (URL password and query, header values) are never printed nor sent
// to another origin; a dripping server ends at --timeout; what no retry can change fails at once
const { startStressServer } = await import('./stress-http-server.mjs');
const HTTP_SECRET = 'str3ss-s3cr3t';
/** Runs `fn(a, b)` with two servers (two origins) over one small .npy, then closes them. */
async function withHttpServers(fn) {
  const files = { 'emb.npy': npy('<f4', [3, 4], float32s(12)) };
  const a = await startStressServer(files);
  const b = await startStressServer(files);
  try {
    return await fn(a, b);
  } finally {
    await a.close();
    await b.close();
  }
}
const sentSecret = (server) =>
  server.requests.some((q) => JSON.stringify(q.headers).includes(HTTP_SECRET));
const httpTimeout = size('2', '1');
/** What no retry can change fails at once: a run still going after 20 s is stopped and fails. */
const failFast = { timeoutMs: 20_000 };
for (const [id, check] of [
  [
    'http-userinfo-basic',
    async (a, _b, dir) => {
      const url = `http://u:${HTTP_SECRET}@127.0.0.1:${a.port}/emb.npy`;
      const r = await run(['gather', url, '--indices', '1', '-o', join(dir, 'o.npy')]);
      const basic = `Basic ${Buffer.from(`u:${HTTP_SECRET}`).toString('base64')}`;
      const ok = r.code === 0 && a.requests.every((q) => q.headers.authorization === basic);
      return { r, ok, keep: ['o.npy'] };
    },
  ],
  [
    'http-header-cr',
    async (a) => {
      const header = `Authorization: Bearer ${HTTP_SECRET}\rX`;
      const r = await run([
        'gather',
        `${a.url}/emb.npy`,
        '--indices',
        '1',
        '--http-header',
        header,
      ]);
      return { r, ok: r.code === 2 && a.requests.length === 0 && !r.stderr.includes('\r') };
    },
  ],
  [
    'http-redirect-other-origin',
    async (a, b, dir) => {
      const header = `X-Api-Key: ${HTTP_SECRET}`;
      const url = `${a.url}/to/${b.port}/emb.npy`;
      const r = await run([
        'gather',
        url,
        '--indices',
        '1',
        '-o',
        join(dir, 'o.npy'),
        '--http-header',
        header,
      ]);
      const ok = r.code === 0 && sentSecret(a) && b.requests.length > 0 && !sentSecret(b);
      return { r, ok, keep: ['o.npy'] };
    },
  ],
  [
    'http-query-inspect-json',
    async (a, _b, dir) => {
      const out = join(dir, 'report.json');
      const r = await run(['inspect', `${a.url}/emb.npy?token=${HTTP_SECRET}`, '--json'], {
        stdout: out,
      });
      const ok = r.code === 0 && !readFileSync(out, 'utf8').includes(HTTP_SECRET);
      return { r, ok, keep: ['report.json'] };
    },
  ],
  [
    'http-drip-timeout',
    async (a) => {
      const r = await run(
        ['gather', `${a.url}/drip/emb.npy`, '--indices', '1', '--timeout', httpTimeout],
        { timeoutMs: 30_000 },
      );
      return {
        r,
        ok:
          r.code === 1 &&
          a.requests.length === 1 &&
          within(r.ms, Number(httpTimeout) * 1000 + 3000),
      };
    },
  ],
  [
    'http-redirect-loop',
    async (a) => {
      const r = await run(['gather', `${a.url}/loop/emb.npy`, '--indices', '1'], failFast);
      return { r, ok: r.code === 1 && a.requests.length <= 2 && within(r.ms, 5000) };
    },
  ],
  [
    'http-redirect-file',
    async (a) => {
      const r = await run(['gather', `${a.url}/to-file/emb.npy`, '--indices', '1'], failFast);
      return { r, ok: r.code === 1 && a.requests.length === 1 && within(r.ms, 5000) };
    },
  ],
  [
    'http-refused',
    async (a) => {
      const url = `${a.url}/emb.npy`;
      await a.close();
      const r = await run(['gather', url, '--indices', '1'], failFast);
      return { r, ok: r.code === 1 && within(r.ms, 5000) };
    },
  ],
  [
    'http-503-note',
    async (a, _b, dir) => {
      const r = await run([
        'gather',
        `${a.url}/flaky/emb.npy`,
        '--indices',
        '1',
        '-o',
        join(dir, 'o.npy'),
      ]);
      const ok =
        r.code === 0 && a.requests.length === 2 && /^tensorops: note: .*HTTP 503/.test(r.stderr);
      return { r, ok, keep: ['o.npy'] };
    },
  ],
]) {
  add(id, 12, async (dir) => {
    const v = await withHttpServers((a, b) => check(a, b, dir));
    const left = filesIn(dir).filter((f) => !(v.keep ?? []).includes(f));
    // A failure is one line, a success none (the 503 case: its one note).
    const lines = v.r.code === 0 && v.keep !== undefined && !id.includes('503') ? 0 : 1;
    const clean = !v.r.stderr.includes(HTTP_SECRET) && stderrLines(v.r) === lines;
    return { result: v.r, ok: v.ok && clean && left.length === 0, left: left.length };
  });
}

// 14: work that grows faster than the input: index text with a long line, a long number or deep
// nesting, line ends, shard indexes of many shards or many tensors, remote shards a few at a time
const TEXT_BYTES = size(100 * MB, 8 * MB);
for (const [id, text, message] of [
  [
    'linear-text-long-bad-line',
    () => `${'7,'.repeat(TEXT_BYTES / 2)}x\n`,
    `column ${TEXT_BYTES + 1}: 'x' is not an integer`,
  ],
  ['linear-text-long-number', () => '9'.repeat(TEXT_BYTES), "line 1, column 1: '999"],
  [
    'linear-text-deep-json',
    () => '['.repeat(TEXT_BYTES),
    'column 65: arrays nested deeper than 64 levels',
  ],
]) {
  add(id, 14, async (dir) => {
    writeFileSync(join(dir, 'ids.txt'), text());
    const r = await run(
      ['gather', join(IN, 'd.npy'), join(dir, 'ids.txt'), '-o', join(dir, 'o.npy')],
      {
        timeoutMs: 120_000,
      },
    );
    const f = cleanFailure(r, dir, ['ids.txt']);
    // The values read before the error (8 bytes each) and the input: no copy of the line.
    const rssLimit = size(1200, 200) * MB;
    return {
      result: r,
      ok: f.ok && r.stderr.includes(message) && within(r.ms, 10_000) && r.rss < rssLimit,
      left: f.left,
    };
  });
}
add('linear-text-cr-lines', 14, async (dir) => {
  const out = join(dir, 'o.npy');
  const r = await run(['gather', join(IN, 'd.npy'), '-', '-o', out], {
    stdin: { bytes: Buffer.from('2\r0\r\n1\r') },
  });
  const header = existsSync(out) ? readFileSync(out).subarray(0, 128).toString('latin1') : '';
  return {
    result: r,
    ok: r.code === 0 && header.includes("'shape': (3, 4)"),
    left: extraFiles(dir, ['o.npy']),
    note: /'shape': \([^)]*\)/.exec(header)?.[0] ?? '',
  };
});

/** A sharded checkpoint's index mapping `layers.K.weight` to `model-K.safetensors`, K < n. */
function manyShardIndex(dir, n) {
  const map = {};
  for (let k = 0; k < n; k++) map[`layers.${k}.weight`] = `model-${k}.safetensors`;
  writeFileSync(join(dir, 'model.safetensors.index.json'), JSON.stringify({ weight_map: map }));
}
const shardOf = (k) =>
  safetensors(
    { [`layers.${k}.weight`]: { dtype: 'F32', shape: [1, 4], data_offsets: [0, 16] } },
    float32s(4),
  );
add('linear-index-many-shards', 14, async (dir) => {
  const n = size(80_000, 8_000);
  manyShardIndex(dir, n);
  // A one-row gather opens the last shard only: the others need not exist.
  writeFileSync(join(dir, `model-${n - 1}.safetensors`), shardOf(n - 1));
  const index = join(dir, 'model.safetensors.index.json');
  const r = await run(
    ['gather', `${index}:layers.${n - 1}.weight`, '--indices', '0', '-o', join(dir, 'o.npy')],
    { timeoutMs: 120_000 },
  );
  return {
    result: r,
    ok: r.code === 0 && within(r.ms, 5000),
    left: extraFiles(dir, ['model.safetensors.index.json', `model-${n - 1}.safetensors`, 'o.npy']),
  };
});
add('linear-index-many-tensors', 14, async (dir) => {
  const n = size(100_000, 10_000);
  const header = {};
  const map = {};
  for (let k = 0; k < n; k++) {
    header[`t${k}`] = { dtype: 'U8', shape: [1], data_offsets: [k, k + 1] };
    map[`t${k}`] = 'model.safetensors';
  }
  writeFileSync(join(dir, 'model.safetensors'), safetensors(header, Buffer.alloc(n)));
  writeFileSync(join(dir, 'model.safetensors.index.json'), JSON.stringify({ weight_map: map }));
  const r = await run(['inspect', join(dir, 'model.safetensors.index.json')], {
    timeoutMs: 120_000,
  });
  return {
    result: r,
    ok: r.code === 0 && stderrLines(r) === 0 && within(r.ms, 5000),
    left: extraFiles(dir, ['model.safetensors', 'model.safetensors.index.json']),
  };
});

const { createServer } = await import('node:http');

/**
 * Serves `root` on 127.0.0.1 by byte ranges (206 with Content-Range and a strong ETag), each
 * answer `delayMs` late, counting requests and the most in flight at once.
 */
async function serveRanges(root, delayMs) {
  const seen = { requests: 0, inFlight: 0, maxInFlight: 0 };
  const server = createServer((req, res) => {
    seen.requests++;
    seen.inFlight++;
    seen.maxInFlight = Math.max(seen.maxInFlight, seen.inFlight);
    res.on('close', () => {
      seen.inFlight--;
    });
    setTimeout(() => {
      const path = join(root, decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname));
      const range = /^bytes=(\d+)-(\d+)$/.exec(req.headers.range ?? '');
      if (!existsSync(path) || range === null) {
        res.writeHead(existsSync(path) ? 400 : 404).end();
        return;
      }
      const body = readFileSync(path);
      const start = Number(range[1]);
      const end = Math.min(Number(range[2]), body.length - 1);
      res.writeHead(206, { 'Content-Range': `bytes ${start}-${end}/${body.length}`, ETag: '"v1"' });
      res.end(body.subarray(start, end + 1));
    }, delayMs);
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { seen, url: `http://127.0.0.1:${server.address().port}`, server };
}
add('linear-remote-many-shards', 14, async (dir) => {
  const n = size(10_000, 1_000);
  manyShardIndex(dir, n);
  for (let k = 0; k < n; k++) writeFileSync(join(dir, `model-${k}.safetensors`), shardOf(k));
  const { seen, url, server } = await serveRanges(dir, 2);
  try {
    const r = await run(['inspect', `${url}/model.safetensors.index.json`], { timeoutMs: 120_000 });
    // The index (one or two requests), then one request per shard header, at most 8 at once.
    const requests = seen.requests - n;
    return {
      result: r,
      ok:
        r.code === 0 &&
        (requests === 1 || requests === 2) &&
        seen.maxInFlight > 1 &&
        seen.maxInFlight <= 8 &&
        within(r.ms, 20_000),
      left: filesIn(dir).filter((f) => !/^model[-.]/.test(f)).length,
      note: `${seen.requests} requests, at most ${seen.maxInFlight} in flight`,
    };
  } finally {
    server.closeAllConnections();
    server.close();
  }
});

add('linear-safetensors-many-dims', 14, async (dir) => {
  // A header of millions of dims of 2: their product is refused once past 2^53-1 bytes.
  const shape = new Array(size(10_000_000, 1_000_000)).fill(2);
  const header = { w: { dtype: 'U8', shape, data_offsets: [0, 1] } };
  writeFileSync(join(dir, 'm.safetensors'), safetensors(header, Buffer.alloc(1)));
  const r = await run(['inspect', join(dir, 'm.safetensors')], { timeoutMs: 120_000 });
  const f = cleanFailure(r, dir, ['m.safetensors']);
  return {
    result: r,
    ok: f.ok && r.stderr.includes('beyond 2^53-1') && within(r.ms, 5000),
    left: f.left,
  };
});
// 15: strings in the text forms: every code unit kept (JSON), or one line naming the element
// a text form cannot hold exactly, and no output file
const codeUnits = (s) => Array.from(s, (c) => c.codePointAt(0));
/** A U`width` .npy of `shape` whose elements are the given arrays of code units. */
function unicodeNpy(width, shape, items) {
  const data = Buffer.alloc(items.length * width * 4);
  items.forEach((units, i) => {
    units.forEach((u, j) => {
      data.writeUInt32LE(u, (i * width + j) * 4);
    });
  });
  return npy(`<U${width}`, shape, data);
}

for (const [id, width, items, format, at] of [
  ['text-nul-csv', 3, [codeUnits('a\0b'), codeUnits('c')], 'csv', '[0]'],
  ['text-nul-tsv', 3, [codeUnits('c'), codeUnits('\0b')], 'tsv', '[1]'],
  ['text-hash-csv', 8, [codeUnits('#comment'), codeUnits('a#b')], 'csv', '[0]'],
  ['text-empty-csv', 1, [codeUnits('a'), []], 'csv', '[1]'],
  ['text-surrogate-tsv', 1, [codeUnits('a'), [0xd800]], 'tsv', '[1]'],
  ['text-beyond-unicode-csv', 1, [[0x110000], codeUnits('a')], 'csv', '[0]'],
  ['text-beyond-unicode-json', 1, [codeUnits('a'), [0xffffffff]], 'json', '[1]'],
  ['text-surrogate-units-json', 2, [[0xd83d, 0xde00]], 'json', '[0]'],
]) {
  add(id, 15, async (dir) => {
    writeFileSync(join(dir, 's.npy'), unicodeNpy(width, [items.length], items));
    const r = await run(['convert', join(dir, 's.npy'), join(dir, `out.${format}`)]);
    const f = cleanFailure(r, dir, ['s.npy']);
    return { result: r, ok: f.ok && r.stderr.includes(`the string at ${at} `), left: f.left };
  });
}

add('text-nul-json', 15, async (dir) => {
  writeFileSync(join(dir, 's.npy'), unicodeNpy(3, [2], [codeUnits('a\0b'), codeUnits('c')]));
  const r = await run(['convert', join(dir, 's.npy'), '-', '--json'], {
    stdout: join(dir, 'out.json'),
  });
  const text = readFileSync(join(dir, 'out.json'), 'utf8');
  return {
    result: r,
    ok: r.code === 0 && text === '{"dtype":"U3","shape":[2],"data":["a\\u0000b","c"]}\n',
    left: extraFiles(dir, ['s.npy', 'out.json']),
  };
});

// One string of many code units, mostly inner NULs: JSON keeps them all, CSV refuses it.
const wide = size(1 << 22, 1 << 18);
const wideItem = [0x61, ...Array(wide - 2).fill(0), 0x62];
add('text-wide-nul-json', 15, async (dir) => {
  writeFileSync(join(dir, 's.npy'), unicodeNpy(wide, [1], [wideItem]));
  const r = await run(['convert', join(dir, 's.npy'), '-', '--json'], { timeoutMs: 120_000 });
  const expected = `{"dtype":"U${wide}","shape":[1],"data":["a${'\\u0000'.repeat(wide - 2)}b"]}\n`;
  return {
    result: r,
    ok: r.code === 0 && r.stdoutBytes === expected.length && r.rss < 600 * MB,
    left: extraFiles(dir, ['s.npy']),
    note: `${(r.stdoutBytes / MB).toFixed(0)} MiB of JSON`,
  };
});
add('text-wide-nul-csv', 15, async (dir) => {
  writeFileSync(join(dir, 's.npy'), unicodeNpy(wide, [1], [wideItem]));
  const r = await run(['convert', join(dir, 's.npy'), join(dir, 'out.csv')], {
    timeoutMs: 120_000,
  });
  const f = cleanFailure(r, dir, ['s.npy']);
  return {
    result: r,
    ok: f.ok && r.stderr.includes('the string at [0] holds a NUL'),
    left: f.left,
  };
});

// A '#' in the last of many elements: refused by position after the rest was formatted.
add('text-late-hash-csv', 15, async (dir) => {
  const count = size(1 << 24, 1 << 20);
  const data = Buffer.alloc(count * 4);
  for (let i = 0; i < count; i++) data.writeUInt32LE(0x78, i * 4);
  data.writeUInt32LE(0x23, (count - 1) * 4);
  writeFileSync(join(dir, 's.npy'), npy('<U1', [count], data));
  const r = await run(['convert', join(dir, 's.npy'), join(dir, 'out.csv')], {
    timeoutMs: 120_000,
  });
  const f = cleanFailure(r, dir, ['s.npy']);
  return {
    result: r,
    ok: f.ok && r.stderr.includes(`the string at [${count - 1}] holds '#'`) && r.rss < 300 * MB,
    left: f.left,
  };
});
// 16: edges. A long path keeps the reason of its error; what was typed is what is quoted; a
// name ending in / is no file; a code-cache entry that is a FIFO; a temp folder that cannot
// hold the copy of a pipe; a file that is no tensor file is named, never echoed.
{
  const edgeLine = (r) => r.stderr.split('\n')[0] ?? '';
  // A secret of the user's, reached through links named as tensor files.
  const SECRET = 'root:x:0:0:root:/root:/bin/bash\n';
  const echoes = (line) => /root|72 ?6f ?6f ?74/i.test(line);

  add('edge-long-path-reason', 16, async (dir) => {
    const snapshot = join(
      dir,
      'home-of-a-user/.cache/huggingface/hub/models--meta-llama--Llama-3.2-1B-Instruct/snapshots',
      '0e9e39f249a16976918f6564b8830bc894c89659',
    );
    mkdirSync(snapshot, { recursive: true });
    const file = join(snapshot, 'model.safetensors');
    const names = Array.from({ length: 17 }, (_, i) => `model.layers.${i}.self_attn.q_proj.weight`);
    const header = Object.fromEntries(
      names.map((name, i) => [
        name,
        { dtype: 'F32', shape: [1], data_offsets: [4 * i, 4 * i + 4] },
      ]),
    );
    writeFileSync(file, safetensors(header, Buffer.alloc(4 * names.length)));
    const r = await run(['show', `${file}:model.embed_token.weight`]);
    const line = edgeLine(r).replace('tensorops: error: ', '');
    return {
      result: r,
      ok:
        r.code === 1 &&
        stderrLines(r) === 1 &&
        [...line].length <= 240 &&
        line.includes(": no tensor 'model.embed_token.weight' (it holds ") &&
        line.includes('/model.safetensors'),
      left: 0,
      note: `path ${file.length} chars`,
    };
  });

  for (const [id, args, exit, quoted] of [
    ['edge-typed-indices-dash', ['gather', 'd.npy', '--indices', '-'], 1, "'-' is not an integer"],
    ['edge-typed-axis-dash', ['gather', 'd.npy', 'i.npy', '--axis', '-'], 2, "got '-'"],
    ['edge-typed-oob-dash', ['gather', 'd.npy', 'i.npy', '--oob', '-'], 2, "got '-'"],
    [
      'edge-typed-after-dashdash',
      ['gather', '--', '-x.npy', '--indices', '1'],
      2,
      "unexpected argument '1' ('--indices' is after --",
    ],
  ]) {
    add(id, 16, async (dir) => {
      writeFileSync(join(dir, 'd.npy'), readFileSync(join(IN, 'd.npy')));
      writeFileSync(join(dir, 'i.npy'), readFileSync(idx()));
      const r = await run(args, { cwd: dir });
      return {
        result: r,
        ok:
          r.code === exit &&
          stderrLines(r) === 1 &&
          edgeLine(r).includes(quoted) &&
          !r.stderr.includes('\u0000') &&
          !/\\u0000|stdio|operand:/.test(r.stderr),
        left: extraFiles(dir, ['d.npy', 'i.npy']),
      };
    });
  }

  for (const target of ['new/', 'new/.', 'f.npy/', './']) {
    add(
      `edge-output-${target.replaceAll('/', 'slash').replaceAll('.', 'dot')}`,
      16,
      async (dir) => {
        writeFileSync(join(dir, 'f.npy'), 'kept');
        const r = await run(['gather', join(IN, 'd.npy'), idx(), '-o', target], { cwd: dir });
        const f = cleanFailure(r, dir, ['f.npy']);
        const kept = readFileSync(join(dir, 'f.npy'), 'utf8') === 'kept';
        return { result: r, ok: f.ok && kept, left: f.left };
      },
    );
  }

  add('edge-code-cache-fifo', 16, async (dir) => {
    const cache = join(dir, 'cache');
    const env = { TENSOROPS_CACHE_DIR: cache };
    const first = await run(['--version'], { env });
    const entry = filesIn(cache).find((f) => f.endsWith('.v8cache'));
    // The CLI keeps its own code cache on every Node line: no entry is a failure, not a skip.
    if (entry === undefined) return { result: first, ok: false, note: 'no .v8cache entry written' };
    rmSync(join(cache, entry));
    spawnSync('mkfifo', [join(cache, entry)]);
    const r = await run(['gather', join(IN, 'd.npy'), idx(), '-o', join(dir, 'o.npy')], {
      env,
      timeoutMs: 20_000,
    });
    return {
      result: r,
      ok: r.code === 0 && stderrLines(r) === 0,
      left: extraFiles(dir, ['cache', 'o.npy']),
    };
  });

  // 66 MiB piped, 4000 rows picked: copied to a temp file where TMPDIR allows, else swept.
  const rows = 17000;
  const picks = Array.from({ length: 4000 }, (_, k) => (k * 7919) % rows);
  for (const [id, tmp] of [
    ['edge-tmpdir-a-file', (dir) => join(dir, 'a-file')],
    [
      'edge-tmpdir-name-too-long',
      (dir) => {
        // 4080 characters: the folder exists, a temp file's path in it is longer than 4095.
        let path = join(dir, 'long');
        while (4080 - path.length > 256) path = join(path, 'd'.repeat(200));
        path = join(path, 'd'.repeat(4080 - path.length - 1));
        mkdirSync(path, { recursive: true });
        return path;
      },
    ],
  ]) {
    add(id, 16, async (dir) => {
      writeFileSync(join(dir, 'a-file'), 'kept');
      const big = join(dir, 'big.npy');
      const header = npyHeader(npyDict('<i4', [rows, 1024]));
      writeFileSync(big, header);
      const fd = openSync(big, 'r+');
      // Row r starts with r, so the picks can be checked in the output.
      for (let r = 0; r < rows; r++)
        writeSync(fd, int64s([r]).subarray(0, 4), 0, 4, header.length + r * 4096);
      ftruncateSync(fd, header.length + rows * 4096);
      closeSync(fd);
      writeFileSync(join(dir, 'picks.npy'), npy('<i8', [picks.length], int64s(picks)));
      const cat = spawn('cat', [big], { stdio: ['ignore', 'pipe', 'ignore'] });
      const out = join(dir, 'o.npy');
      const r = await run(['gather', '-', join(dir, 'picks.npy'), '-o', out], {
        stdin: { stream: cat.stdout },
        env: { TMPDIR: tmp(dir) },
        timeoutMs: 120_000,
      });
      cat.kill();
      let right = false;
      if (r.code === 0) {
        const got = readFileSync(out);
        const at = got.length - picks.length * 4096;
        right = picks.every((p, k) => got.readInt32LE(at + k * 4096) === p);
      }
      return {
        result: r,
        ok: r.code === 0 && stderrLines(r) === 0 && right,
        left: extraFiles(dir, ['a-file', 'big.npy', 'picks.npy', 'o.npy', 'long']),
      };
    });
  }

  add('edge-shard-link-no-bytes', 16, async (dir) => {
    mkdirSync(join(dir, 'outside'));
    mkdirSync(join(dir, 'model'));
    writeFileSync(join(dir, 'outside', 'secret.txt'), SECRET);
    const shard = 'model-00001-of-00001.safetensors';
    spawnSync('ln', ['-s', '../outside/secret.txt', join(dir, 'model', shard)]);
    writeFileSync(
      join(dir, 'model', 'model.safetensors.index.json'),
      JSON.stringify({ metadata: {}, weight_map: { w: shard } }),
    );
    const r = await run(['show', 'model/model.safetensors.index.json:w'], { cwd: dir });
    const line = edgeLine(r);
    return {
      result: r,
      ok: r.code === 1 && stderrLines(r) === 1 && line.includes(shard) && !echoes(line),
      left: extraFiles(dir, ['outside', 'model']),
    };
  });

  for (const name of ['x.npy', 'x.bin', 'x.safetensors']) {
    add(`edge-input-no-bytes-${name}`, 16, async (dir) => {
      writeFileSync(join(dir, 'secret.txt'), SECRET);
      spawnSync('ln', ['-s', 'secret.txt', join(dir, name)]);
      const r = await run(['show', name.endsWith('.safetensors') ? `${name}:w` : name], {
        cwd: dir,
      });
      const line = edgeLine(r);
      return {
        result: r,
        ok: r.code === 1 && stderrLines(r) === 1 && line.includes(name) && !echoes(line),
        left: extraFiles(dir, ['secret.txt', name]),
      };
    });
  }
}

// 2: large .safetensors headers, read in one pass: a shape of millions of dims, and a header of
// many tensors whose last key repeats the first (the one-pass scan gives up at its end, and the
// strict reader words the error), each in time and memory linear in the header
/** A .safetensors file whose header is `json` (written as is, padded to 8 bytes), with `data` bytes. */
function rawSafetensors(json, dataBytes) {
  const body = Buffer.from(json.padEnd(Math.ceil(json.length / 8) * 8, ' '), 'utf8');
  const len = Buffer.alloc(8);
  len.writeBigUInt64LE(BigInt(body.length));
  return Buffer.concat([len, body, Buffer.alloc(dataBytes)]);
}
const HEADER_DIMS = size(10_000_000, 1_000_000);
const HEADER_TENSORS = size(1_000_000, 100_000);
for (const [id, file, message] of [
  [
    'headers-million-dims',
    () =>
      rawSafetensors(
        `{"a":{"dtype":"U8","shape":[${'2,'.repeat(HEADER_DIMS - 1)}2],"data_offsets":[0,1]}}`,
        1,
      ),
    'needs a number of bytes beyond 2^53-1',
  ],
  [
    'headers-last-key-repeated',
    () => {
      const parts = [];
      for (let k = 0; k < HEADER_TENSORS; k++) {
        parts.push(`"t${k}":{"dtype":"U8","shape":[1],"data_offsets":[${k},${k + 1}]}`);
      }
      parts.push(`"t0":{"dtype":"U8","shape":[1],"data_offsets":[0,1]}`);
      return rawSafetensors(`{${parts.join(',')}}`, HEADER_TENSORS);
    },
    "duplicate key 't0'",
  ],
]) {
  add(id, 2, async (dir) => {
    writeFileSync(join(dir, 'h.safetensors'), file());
    const r = await run(['inspect', join(dir, 'h.safetensors')], { timeoutMs: 120_000 });
    const { ok, left } = cleanFailure(r, dir, ['h.safetensors']);
    const bounded = within(r.ms, 30_000) && r.rss < size(900, 300) * MB;
    return { result: r, ok: ok && bounded && r.stderr.includes(message), left };
  });
}

// 5: gather-elements along the last axis reads indices in a .npy by blocks of rows. A truncated
// indices file, one whose header claims far more than the file holds, and a bad index in the
// last block are each one line naming the problem, exit 1, no output left, and memory bounded by
// what the files hold.
{
  const rowsData = (dir, rows, width) =>
    writeFileSync(join(dir, 'd.npy'), npy('<f4', [rows, width], float32s(rows * width)));
  const gatherRows = (dir) =>
    run(
      [
        'gather-elements',
        join(dir, 'd.npy'),
        join(dir, 'i.npy'),
        '--axis',
        '1',
        '-o',
        join(dir, 'o.npy'),
      ],
      {
        timeoutMs: 60_000,
      },
    );

  add('ge-rows-truncated-indices', 5, async (dir) => {
    rowsData(dir, 4, 8);
    const full = npy('<i8', [4, 8], int64s(Array.from({ length: 32 }, (_, i) => i % 8)));
    writeFileSync(join(dir, 'i.npy'), full.subarray(0, full.length - 20));
    const r = await gatherRows(dir);
    const f = cleanFailure(r, dir, ['d.npy', 'i.npy']);
    return { result: r, ok: f.ok && r.stderr.includes('truncated'), left: f.left };
  });

  add('ge-rows-header-claims-more', 5, async (dir) => {
    rowsData(dir, 4, 8);
    writeFileSync(join(dir, 'i.npy'), npy('<i8', [4, 1 << 30], int64s([0, 1, 2, 3])));
    const r = await gatherRows(dir);
    const f = cleanFailure(r, dir, ['d.npy', 'i.npy']);
    return {
      result: r,
      ok: f.ok && r.stderr.includes('truncated') && r.rss < 300 * MB,
      left: f.left,
    };
  });

  add('ge-rows-bad-index-last-block', 5, async (dir) => {
    // Rows of 512 int64 indices (4 KiB): 1100 rows are two blocks of 4 MiB of rows.
    const rows = 1100;
    rowsData(dir, rows, 16);
    const ids = Array.from({ length: rows * 512 }, (_, i) => i % 16);
    ids[(rows - 1) * 512 + 5] = 16;
    writeFileSync(join(dir, 'i.npy'), npy('<i8', [rows, 512], int64s(ids)));
    const r = await gatherRows(dir);
    const f = cleanFailure(r, dir, ['d.npy', 'i.npy']);
    const where = `index 16 out of range [-16, 15] at indices[${rows - 1},5]`;
    return { result: r, ok: f.ok && r.stderr.includes(where), left: f.left };
  });
}

// 17: hostile .gguf headers. Each is refused by inspect and by show in one line, exit 1, in
// bounded memory: nothing is allocated or read by what a count, length or nesting claims.
{
  const u32 = (n) => {
    const b = Buffer.alloc(4);
    b.writeUInt32LE(n);
    return b;
  };
  const u64 = (n) => {
    const b = Buffer.alloc(8);
    b.writeBigUInt64LE(BigInt(n));
    return b;
  };
  const str = (s) => Buffer.concat([u64(Buffer.byteLength(s)), Buffer.from(s)]);
  const info = (name, ne, type, offset) =>
    Buffer.concat([str(name), u32(ne.length), ...ne.map(u64), u32(type), u64(offset)]);
  /** magic, version 3, the counts, the rest of the header, padding to 32, then `data`. */
  const gguf = ({
    tensors = [],
    entries = [],
    tensorCount,
    entryCount,
    data = Buffer.alloc(0),
  }) => {
    const head = Buffer.concat([
      Buffer.from('GGUF'),
      u32(3),
      u64(tensorCount ?? tensors.length),
      u64(entryCount ?? entries.length),
      ...entries,
      ...tensors,
    ]);
    return Buffer.concat([head, Buffer.alloc((32 - (head.length % 32)) % 32), data]);
  };
  const f32 = (name, n, offset) => info(name, [n], 0, offset);
  const depth = size(1_000_000, 100_000);
  const nested = () => {
    const level = Buffer.concat([u32(9), u64(1)]);
    return Buffer.concat([str('deep'), u32(9), Buffer.alloc(level.length * depth).fill(level)]);
  };
  const hostile = [
    [
      'tensor-count-2e63',
      () => gguf({ tensorCount: 2n ** 63n }),
      'more tensor infos than the file can hold',
    ],
    [
      'metadata-count-2e63',
      () => gguf({ entryCount: 2n ** 63n }),
      'more metadata entries than the file can hold',
    ],
    [
      'string-past-end',
      () => gguf({ entries: [Buffer.concat([u64(2n ** 40n), u32(0)])] }),
      'longer than the rest of the file',
    ],
    ['nesting-deep', () => gguf({ entries: [nested()] }), 'nests arrays more than 64 deep'],
    [
      'unknown-type',
      () => gguf({ tensors: [info('w', [4], 99, 0)], data: Buffer.alloc(64) }),
      'ggml type 99',
    ],
    [
      'dims-overflow',
      () => gguf({ tensors: [info('w', [2 ** 40, 2 ** 40, 2 ** 40, 2 ** 40], 0, 0)] }),
      "tensor 'w' dimension 0",
    ],
    [
      'dims-product',
      () => gguf({ tensors: [info('w', [64, 64, 64, 64], 0, 0)], data: Buffer.alloc(64) }),
      'is larger than the file',
    ],
    [
      'data-past-end',
      () => gguf({ tensors: [f32('w', 4, 32)], data: Buffer.alloc(16) }),
      'runs past the end of the file',
    ],
    [
      'overlap',
      () => gguf({ tensors: [f32('a', 16, 0), f32('b', 8, 32)], data: Buffer.alloc(128) }),
      "tensors 'a' and 'b' overlap",
    ],
    [
      'misaligned',
      () => gguf({ tensors: [f32('a', 4, 4)], data: Buffer.alloc(64) }),
      'not a multiple of the alignment 32',
    ],
    [
      'truncated',
      () => gguf({ tensors: [f32('a', 4, 0)], data: Buffer.alloc(16) }).subarray(0, 40),
      'the file ends after',
    ],
    [
      'name-twice',
      () => gguf({ tensors: [f32('w', 4, 0), f32('w', 4, 32)], data: Buffer.alloc(64) }),
      "tensor name 'w' is given twice",
    ],
  ];
  for (const [id, build, fragment] of hostile) {
    add(`gguf-${id}`, 17, async (dir) => {
      writeFileSync(join(IN, `${id}.gguf`), build());
      const file = join(IN, `${id}.gguf`);
      const inspected = await run(['inspect', file], { cwd: dir, timeoutMs: 30_000 });
      const shown = await run(['show', `${file}:w`], { cwd: dir, timeoutMs: 30_000 });
      const checks = [inspected, shown].map((r) => ({
        ...cleanFailure(r, dir),
        line: r.stderr.startsWith('tensorops: error: ') && r.stderr.includes(fragment),
        small: r.rss < 256 * MB,
      }));
      return {
        result: inspected,
        ok: checks.every((c) => c.ok && c.line && c.small),
        left: checks[0].left + checks[1].left,
      };
    });
  }

  // A header that would need more than the 128 MiB tensorops reads: refused before reading it.
  add('gguf-header-over-limit', 17, async (dir) => {
    const file = join(dir, 'big.gguf');
    writeFileSync(file, gguf({ entries: [Buffer.concat([str('k'), u32(8), u64(200 * MB)])] }));
    const fd = openSync(file, 'r+');
    ftruncateSync(fd, 256 * MB);
    closeSync(fd);
    const r = await run(['inspect', file], { cwd: dir, timeoutMs: 30_000 });
    const f = cleanFailure(r, dir, ['big.gguf']);
    return {
      result: r,
      ok: f.ok && r.stderr.includes('the most tensorops reads') && r.rss < 256 * MB,
      left: f.left,
    };
  });
}

// 18: hostile torch checkpoints (fixtures/torch/hostile, from scripts/fixtures/torch.py): each is
// one line and exit 1, nothing run (the commands they pickle would create a file in the case's
// folder), nothing written, memory bounded; plus a pickle nested a million deep, built here.
{
  const TORCH = new URL('../fixtures/torch/', import.meta.url).pathname;
  const { hostile } = JSON.parse(readFileSync(join(TORCH, 'expected.json'), 'utf8'));
  for (const [name, { error, creates }] of Object.entries(hostile)) {
    add(`torch-${name}`, 18, async (dir) => {
      const r = await run(['convert', join(TORCH, 'hostile', `${name}.pt`), 'out.safetensors'], {
        cwd: dir,
      });
      const clean = cleanFailure(r, dir);
      const ran = creates !== undefined && existsSync(join(dir, creates));
      return {
        result: r,
        ok: clean.ok && !ran && r.stderr.toLowerCase().includes(error) && r.rss < 512 * MB,
        left: clean.left,
        note: ran ? `${creates} was created` : '',
      };
    });
  }
  add('torch-deep-nesting', 18, async (dir) => {
    // {'a': {'a': ... {}}}: per level EMPTY_DICT, MARK, BINUNICODE 'a'; a SETITEMS per level.
    const depth = size(1_000_000, 100_000);
    const level = Buffer.from([0x7d, 0x28, 0x58, 1, 0, 0, 0, 0x61]);
    const pickle = Buffer.concat([
      Buffer.from([0x80, 0x02]),
      Buffer.alloc(depth * level.length).fill(level),
      Buffer.from([0x7d]),
      Buffer.alloc(depth, 0x75),
      Buffer.from([0x2e]),
    ]);
    const path = join(dir, 'deep.pt');
    writeFileSync(path, torchZip(pickle));
    const r = await run(['inspect', path], { cwd: dir });
    return { result: r, ...cleanFailure(r, dir, ['deep.pt']) };
  });
}

// 19: slices. A slice that is not numpy's grammar is one line naming the column, exit 2 (in the
// reference or in --slice); one that does not fit the tensor (an index out of range, too many
// indices, any index of a 0-d tensor) exit 1; absurd bounds and steps clip as numpy clips them; a
// huge tensor sliced to a few rows reads those rows only (its peak RSS stays small).
{
  const huge = (dir) => {
    // 8 GiB of float32 rows (256 MiB reduced), sparse on disk.
    sparseNpy(join(dir, 'huge.npy'), '<f4', [size(2 * 1024 * 1024, 64 * 1024), 1024], 4);
    return 'huge.npy';
  };
  const small = (dir) => {
    writeFileSync(join(dir, 's.npy'), npy('<i4', [3, 4], Buffer.alloc(48, 1)));
    writeFileSync(join(dir, 'scalar.npy'), npy('<f8', [], Buffer.alloc(8)));
    return 's.npy';
  };
  const commas = ','.repeat(100_000);
  // Each argument stays below Linux's 128 KiB limit on one argument.
  const manyIndices = Array.from({ length: 60_000 }, () => '0').join(',');
  const longNumber = '9'.repeat(100_000);
  for (const [id, make, args, exit, says] of [
    ['slice-absurd-start', small, (f) => [`${f}[99999999999999999999:]`], 0, ''],
    [
      'slice-absurd-index',
      small,
      (f) => [`${f}[-99999999999999999999]`],
      1,
      'out of bounds for axis 0 with size 3',
    ],
    ['slice-long-number', small, (f) => [`${f}[${longNumber}]`], 1, 'out of bounds for axis 0'],
    ['slice-commas-ref', small, (f) => [`${f}[${commas}]`], 2, 'column 2'],
    ['slice-commas-flag', small, (f) => [f, '--slice', commas], 2, 'column 1'],
    ['slice-many-indices', small, (f) => [f, '--slice', manyIndices], 1, 'too many indices'],
    ['slice-nested-ref', small, (f) => [`${f}[[1, 2]]`], 2, 'brackets inside a slice'],
    ['slice-nested-flag', small, (f) => [f, '--slice', '1:[2]'], 2, 'brackets inside a slice'],
    ['slice-unclosed-flag', small, (f) => [f, '--slice', '[1:2'], 2, "expected ']'"],
    ['slice-0d-index', small, () => ['scalar.npy[0]'], 1, 'the tensor has 0 dimensions'],
    ['slice-0d-ellipsis', small, () => ['scalar.npy[...]'], 0, ''],
    ['slice-step-0-ref', small, (f) => [`${f}[::0]`], 2, 'the step is 0'],
    ['slice-step-0-flag', small, (f) => [f, '--slice', '1, ::0'], 2, 'the step is 0'],
    ['slice-huge-negative-step', huge, (f) => [`${f}[::-99999999999999999999, ::-1]`], 0, ''],
    ['slice-huge-few-rows', huge, (f) => [`${f}[-10:, ::-256]`], 0, ''],
  ]) {
    add(id, 19, async (dir) => {
      const file = make(dir);
      const r = await run(['show', ...args(file), '--json'], { cwd: dir, timeoutMs: 60_000 });
      const line = r.stderr.split('\n')[0] ?? '';
      const ok =
        r.code === exit &&
        stderrLines(r) === (exit === 0 ? 0 : 1) &&
        line.includes(says) &&
        line.length < 300 &&
        r.rss < 400 * MB;
      return { result: r, ok, left: extraFiles(dir, ['huge.npy', 's.npy', 'scalar.npy']) };
    });
  }
}

// 20: text read as data (convert x.csv, x.txt, x.json): a line of a million values, a line of
// 100 MB streamed with bounded memory, NUL bytes, invalid UTF-8, a million `[`, a number of a
// million digits rounded correctly, ragged rows; each error one line with FILE:LINE:COLUMN
const DATA_TEXT_BYTES = size(100 * MB, 8 * MB);
for (const [id, name, text, message, dtype] of [
  [
    'textin-million-columns',
    'wide.csv',
    () => `${'1,'.repeat(1_000_000)}x\n`,
    "wide.csv:1:2000001: 'x' is not a number",
  ],
  [
    'textin-100mb-line',
    'long.txt',
    () => `${' '.repeat(DATA_TEXT_BYTES)}x`,
    `long.txt:1:${DATA_TEXT_BYTES + 1}: 'x' is not a number`,
  ],
  ['textin-nul', 'nul.csv', () => '1,2\n3,\0\n', "nul.csv:2:3: '\\x00' is not a number"],
  [
    'textin-invalid-utf8',
    'bad.txt',
    () => Buffer.from([0x31, 0x20, 0x32, 0x0a, 0x33, 0x20, 0xff, 0xfe, 0x0a]),
    'bad.txt:2:3: ',
  ],
  [
    'textin-deep-json',
    'deep.json',
    () => '['.repeat(1_000_000),
    'deep.json:1:65: arrays nested deeper than 64 levels',
  ],
  [
    'textin-ragged-rows',
    'ragged.csv',
    () => '1,2,3\n4,5,6\n7,8\n',
    'ragged.csv:3:4: this row has 2 values, the first row (line 1) 3',
  ],
  [
    'textin-long-int',
    'big.txt',
    () => `0 ${'9'.repeat(DATA_TEXT_BYTES)}`,
    "big.txt:1:3: '9999",
    'int64',
  ],
]) {
  add(id, 20, async (dir) => {
    writeFileSync(join(dir, name), text());
    const r = await run(['convert', name, 'o.npy', '--dtype', dtype ?? 'float32'], {
      cwd: dir,
      timeoutMs: 120_000,
    });
    const f = cleanFailure(r, dir, [name]);
    // Bounded: the values read before the error, never the line or the number.
    const rssLimit = size(300, 200) * MB;
    return {
      result: r,
      ok: f.ok && r.stderr.includes(message) && within(r.ms, 10_000) && r.rss < rssLimit,
      left: f.left,
    };
  });
}
// A number of a million digits (and one of 100 MB on a pipe), read whole and rounded once: 1 +
// 2^-11 is a float16 tie, broken upwards by the last digit.
for (const [id, digits] of [
  ['textin-million-digits', 1_000_000],
  ['textin-100mb-number-stdin', DATA_TEXT_BYTES],
]) {
  add(id, 20, async (dir) => {
    const r = await run(['convert', '-', 'o.npy', '--from', 'txt', '--dtype', 'float16'], {
      cwd: dir,
      stdin: { bytes: Buffer.from(`1.00048828125${'0'.repeat(digits)}1\n`) },
      timeoutMs: 120_000,
    });
    const out = join(dir, 'o.npy');
    const bytes = existsSync(out) ? readFileSync(out) : Buffer.alloc(0);
    const value = bytes.length >= 2 ? bytes.readUInt16LE(bytes.length - 2) : -1;
    return {
      result: r,
      ok: r.code === 0 && value === 0x3c01 && r.rss < size(600, 200) * MB,
      left: extraFiles(dir, ['o.npy']),
      note: `float16 bits 0x${value.toString(16)}`,
    };
  });
}

// 22: torch tensors of dtypes tensorops cannot hold (complex32, quantized) are listed, never read:
// a quantized view past its packed storage, an expanded quantized view of 2^40 values, and
// quantization parameters nested a million deep are each one line at open; reading, converting
// or gathering a listed quantized tensor (fixtures/torch/quantized.pt) is one line, nothing left.
{
  const TORCH = new URL('../fixtures/torch/', import.meta.url).pathname;
  const text = (t) => {
    const b = Buffer.from(t, 'utf8');
    const head = Buffer.from([0x58, 0, 0, 0, 0]);
    head.writeUInt32LE(b.length, 1);
    return Buffer.concat([head, b]);
  };
  const glob = (module, name) => Buffer.from(`c${module}\n${name}\n`);
  /** LONG1 of a non-negative integer below 2^47. */
  const long = (n) => {
    const b = Buffer.alloc(6);
    b.writeUIntLE(n, 0, 6);
    return Buffer.concat([Buffer.from([0x8a, 6]), b]);
  };
  const tuple = (items) => Buffer.concat([Buffer.from('('), ...items, Buffer.from('t')]);
  const affine = tuple([glob('torch', 'per_tensor_affine'), Buffer.from('K\x01K\x00', 'latin1')]);
  /** {'q': _rebuild_qtensor(storage, 0, shape, strides, params, False, OrderedDict())}. */
  const qtensor = (storageClass, numel, shape, strides, params) =>
    Buffer.concat([
      Buffer.from([0x80, 0x02, 0x7d]),
      text('q'),
      glob('torch._utils', '_rebuild_qtensor'),
      Buffer.from('('),
      tuple([text('storage'), glob('torch', storageClass), text('0'), text('cpu'), long(numel)]),
      Buffer.from('Q'),
      long(0),
      tuple(shape.map(long)),
      tuple(strides.map(long)),
      params,
      Buffer.from([0x89]),
      glob('collections', 'OrderedDict'),
      Buffer.from(')RtRs.'),
    ]);
  const depth = size(1_000_000, 100_000);
  // (per_tensor_affine, ((((...)))), 1): a tuple nested `depth` deep as the scale.
  const deepParams = Buffer.concat([
    Buffer.from('('),
    glob('torch', 'per_tensor_affine'),
    Buffer.alloc(depth, 0x28),
    Buffer.alloc(depth, 0x74),
    Buffer.from('K\x01t'),
  ]);
  for (const [id, pickle, says] of [
    [
      'torch-unheld-packed-past',
      qtensor('QUInt4x2Storage', 8, [17], [1], affine),
      'reaches element 17',
    ],
    ['torch-unheld-expanded', qtensor('QInt8Storage', 8, [2 ** 40], [0], affine), 'overlapping'],
    ['torch-unheld-deep-params', qtensor('QInt8Storage', 8, [8], [1], deepParams), null],
  ]) {
    add(id, 22, async (dir) => {
      const path = join(dir, 'q.pt');
      writeFileSync(path, torchZip(pickle, { 0: Buffer.alloc(8) }));
      const r = await run(['convert', path, 'out.safetensors'], { cwd: dir });
      const clean = cleanFailure(r, dir, ['q.pt']);
      // Nested parameters are read as any tuple: listed, then refused as a quantized tensor.
      const named =
        says === null ? r.stderr.includes('torch.qint8 (qint8)') : r.stderr.includes(says);
      return { result: r, ok: clean.ok && named && r.rss < 512 * MB, left: clean.left };
    });
  }
  const quantized = join(TORCH, 'quantized.pt');
  for (const [id, args] of [
    ['torch-unheld-show', () => ['show', `${quantized}:q_uint4x2`]],
    ['torch-unheld-convert', () => ['convert', quantized, 'out.safetensors']],
    [
      'torch-unheld-gather',
      (dir) => ['gather', `${quantized}:q_int32_t`, idx(), '-o', join(dir, 'g.npy')],
    ],
  ]) {
    add(id, 22, async (dir) => {
      const r = await run(args(dir), { cwd: dir });
      const clean = cleanFailure(r, dir);
      return {
        result: r,
        ok: clean.ok && r.stderr.includes('which tensorops cannot hold'),
        left: clean.left,
      };
    });
  }
}

// 21: a sharded checkpoint of more shards than the CLI may hold files open (`ulimit -n 256`):
// inspect --verify and convert of the whole index succeed, holding only a few shards open at once,
// and a shard missing deep in the index is one error naming it, with nothing written
const SHARDS_OPEN_FILES = 256;
const SHARDS_COUNT = size(20_000, 3_000);
/** `model-K.safetensors` for every K < n but `missing`, each one float32 [1, 4] tensor. */
function writeShards(dir, n, missing = -1) {
  manyShardIndex(dir, n);
  for (let k = 0; k < n; k++) {
    if (k !== missing) writeFileSync(join(dir, `model-${k}.safetensors`), shardOf(k));
  }
  return join(dir, 'model.safetensors.index.json');
}
add('shards-verify-past-open-limit', 21, async (dir) => {
  const index = writeShards(dir, SHARDS_COUNT);
  const r = await run(['inspect', index, '--verify'], {
    openFiles: SHARDS_OPEN_FILES,
    timeoutMs: 120_000,
  });
  const verified = `verified ${index}: ${SHARDS_COUNT} tensors`;
  return {
    result: r,
    ok: r.code === 0 && r.stderr.includes(verified) && within(r.ms, 30_000),
    left: filesIn(dir).length - SHARDS_COUNT - 1,
  };
});
add('shards-convert-past-open-limit', 21, async (dir) => {
  const index = writeShards(dir, SHARDS_COUNT);
  const out = join(dir, 'merged.safetensors');
  const r = await run(['convert', index, out], {
    openFiles: SHARDS_OPEN_FILES,
    timeoutMs: 120_000,
  });
  const written = existsSync(out) ? statSync(out).size : 0;
  return {
    result: r,
    ok: r.code === 0 && written > SHARDS_COUNT * 16 && within(r.ms, 60_000),
    left: filesIn(dir).length - SHARDS_COUNT - 2,
    note: `${written} bytes`,
  };
});
add('shards-missing-past-open-limit', 21, async (dir) => {
  const missing = SHARDS_COUNT - 2;
  const index = writeShards(dir, SHARDS_COUNT, missing);
  const inputs = filesIn(dir);
  const r = await run(['convert', index, join(dir, 'merged.safetensors')], {
    openFiles: SHARDS_OPEN_FILES,
    timeoutMs: 120_000,
  });
  const { ok, left } = cleanFailure(r, dir, inputs);
  const named = `shard 'model-${missing}.safetensors' of tensor 'layers.${missing}.weight': cannot read: no such file`;
  return { result: r, ok: ok && r.stderr.includes(named) && within(r.ms, 30_000), left };
});

// 24: text data as the DATA of the gathers: a bad value deep in a long line, in a file or on a
// pipe, is one line naming FILE:LINE:COLUMN (stdin:LINE:COLUMN) with memory bounded, no output
// file; --from with DATA a file is refused before stdin (the indices) is read; a .csv of a
// million indices is read as indices, not as data (the text flags, given for DATA, do not reach it)
const GATHER_TEXT_BYTES = size(100 * MB, 8 * MB);
/**
 * A gather whose text DATA (`text()` in the file `name`, or on stdin with `--from KIND` when
 * `name` is `-KIND`) fails with `message`, cleanly and in bounded memory.
 */
function addTextGatherFailure(id, command, name, text, message) {
  add(id, 24, async (dir) => {
    const piped = name.startsWith('-');
    if (!piped) writeFileSync(join(dir, name), text());
    const data = piped ? ['-', '--from', name.slice(1)] : [name];
    const r = await run([command, ...data, '--indices', '[[0]]', '-o', 'o.npy'], {
      cwd: dir,
      timeoutMs: 120_000,
      ...(piped ? { stdin: { bytes: Buffer.from(text()) } } : {}),
    });
    const f = cleanFailure(r, dir, [name]);
    const bounded = within(r.ms, 10_000) && r.rss < size(300, 200) * MB;
    return { result: r, ok: f.ok && bounded && r.stderr.includes(message), left: f.left };
  });
}
addTextGatherFailure(
  'textgather-100mb-line',
  'gather',
  'd.txt',
  () => `${' '.repeat(GATHER_TEXT_BYTES)}x`,
  `d.txt:1:${GATHER_TEXT_BYTES + 1}: 'x' is not a number`,
);
addTextGatherFailure(
  'textgather-100mb-line-stdin',
  'gather-nd',
  '-csv',
  () => `1,2\n${' '.repeat(GATHER_TEXT_BYTES)}3,x\n`,
  `stdin:2:${GATHER_TEXT_BYTES + 3}: 'x' is not a number`,
);
addTextGatherFailure(
  'textgather-ragged',
  'gather-nd',
  'd.tsv',
  () => '1\t2\n3\t4\n5\n',
  'd.tsv:3:2: this row has 1 value',
);
addTextGatherFailure(
  'textgather-deep-json',
  'gather-elements',
  'd.json',
  () => '['.repeat(1_000_000),
  'd.json:1:65: arrays nested deeper than 64 levels',
);
add('textgather-from-with-stdin-indices', 24, async (dir) => {
  writeFileSync(join(dir, 'd.csv'), '1,2\n3,4\n');
  // An endless-looking pipe of indices: refused before it is read.
  const r = await run(['gather', 'd.csv', '-', '--from', 'csv', '-o', 'o.npy'], {
    cwd: dir,
    stdin: { zeros: size(1024, 64) * MB },
  });
  const f = cleanFailure(r, dir, ['d.csv'], 2);
  return {
    result: r,
    ok: f.ok && r.stderr.includes('--from reads DATA on stdin (-) as text'),
    left: f.left,
  };
});
add('textgather-million-csv-indices', 24, async (dir) => {
  const n = size(1_000_000, 200_000);
  writeFileSync(join(dir, 'd.txt'), '1.5;2.5\n');
  // Commas: index text that --delimiter ';' (given for DATA) would refuse.
  writeFileSync(join(dir, 'i.csv'), `${'1,0,'.repeat(n / 2 - 1)}1,0\n`);
  // One line of values is 1-D, as numpy.loadtxt reads it.
  const args = ['gather', 'd.txt', 'i.csv', '--delimiter', ';', '-o', 'o.npy'];
  const r = await run(args, { cwd: dir, timeoutMs: 120_000 });
  const out = join(dir, 'o.npy');
  const bytes = existsSync(out) ? readFileSync(out) : Buffer.alloc(0);
  // [n] float64: 2.5, 1.5, ... and 1.5 last.
  const last = bytes.length >= 8 ? bytes.readDoubleLE(bytes.length - 8) : Number.NaN;
  const first = bytes.length >= 8 * n ? bytes.readDoubleLE(bytes.length - 8 * n) : Number.NaN;
  return {
    result: r,
    ok: r.code === 0 && first === 2.5 && last === 1.5 && r.rss < size(600, 300) * MB,
    left: extraFiles(dir, ['d.txt', 'i.csv', 'o.npy']),
  };
});

// ---------------------------------------------------------------------------------------------

function fmt(result) {
  if (result === undefined) return '';
  const ms = `${(result.ms / 1000).toFixed(2)}s`;
  const rss = `${Math.round(result.rss / MB)}MB`;
  return `${ms.padStart(7)} ${rss.padStart(7)} exit=${String(result.code).padEnd(3)}`;
}

async function main() {
  if (!existsSync(BIN)) {
    console.error(`stress: ${BIN} is missing; run pnpm build first`);
    process.exit(2);
  }
  const root = mkdtempSync(join(tmpdir(), 'tensorops-stress-'));
  chmodSync(root, 0o711); // lets the "nobody" case reach its own folder
  IN = join(root, 'in');
  mkdirSync(IN);
  chmodSync(IN, 0o755);
  // The CLI's own temp files (a large pipe copied for a gather) stay inside the run's folder too.
  SCRATCH = join(root, 'scratch');
  mkdirSync(SCRATCH);
  chmodSync(SCRATCH, 0o1777);
  let failed = 0;
  const rows = [];
  try {
    setupInputs();
    for (const c of cases) {
      if (ONLY !== undefined && !c.id.includes(ONLY)) continue;
      const dir = join(root, c.id);
      mkdirSync(dir);
      let v;
      try {
        v = await c.fn(dir);
      } catch (error) {
        v = { ok: false, note: `stress script error: ${error.message}` };
      }
      const verdict = v.skip ? 'SKIP' : v.ok ? 'PASS' : 'FAIL';
      if (verdict === 'FAIL') failed++;
      const first = v.result?.stderr.split('\n').find((l) => l !== '') ?? '';
      const row = {
        verdict,
        point: c.point,
        id: c.id,
        seconds: v.result ? Number((v.result.ms / 1000).toFixed(3)) : null,
        peakRssMB: v.result ? Math.round(v.result.rss / MB) : null,
        exit: v.result?.code ?? null,
        filesLeft: v.left ?? null,
        stderrLines: v.result ? stderrLines(v.result) : null,
        note: v.skip ?? v.note ?? '',
        stderr: first.slice(0, 140),
      };
      rows.push(row);
      if (!JSON_OUT) {
        console.log(
          `${verdict} ${String(c.point).padStart(2)} ${c.id.padEnd(32)} ${fmt(v.result).padEnd(30)} left=${row.filesLeft ?? '-'} lines=${row.stderrLines ?? '-'} ${row.note} ${row.stderr ? `| ${row.stderr}` : ''}`,
        );
      }
      rmSync(dir, { recursive: true, force: true });
    }
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
  if (JSON_OUT) console.log(JSON.stringify(rows, null, 1));
  else console.log(`${rows.length} cases, ${failed} failed`);
  process.exitCode = failed > 0 ? 1 : 0;
}

await main();
