// The pipe copier's worker thread: waits for one job, runs it, posts the outcome. It is not
// imported: scripts/build-worker.mjs bundles it (with what it imports) into copy-worker-source.ts,
// the text pipe-copy.ts starts a worker from.

import { parentPort } from 'node:worker_threads';
import { type CopyJob, runCopy } from './copy-loop.js';

const port = parentPort;
port?.once('message', (job: CopyJob) => port.postMessage(runCopy(job)));
