// The HTTP server of the stress run's http- cases: real sockets on 127.0.0.1, every request
// recorded (path and headers) so a case can count requests and check which headers reached it.
//
//   /NAME            the file NAME by Range (206, strong ETag); 200 whole without a Range
//   /drip/NAME       a 206 for the range asked, then one byte a second
//   /flaky/NAME      503 to the first request for that path, then as /NAME
//   /loop/NAME       302 to itself, forever
//   /to-file/NAME    302 to file:///nonexistent
//   /to/PORT/NAME    302 to http://localhost:PORT/NAME (another origin)

import { createServer } from 'node:http';

/** Starts a server over `files` (name -> Buffer); resolves to { url, port, requests, close }. */
export async function startStressServer(files) {
  const requests = [];
  const flaked = new Set();
  const drips = new Set();
  const server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    requests.push({ path, headers: req.headers });
    const redirect = (location) => {
      res.writeHead(302, { Location: location });
      res.end();
    };
    if (path.startsWith('/loop/')) return redirect(path);
    if (path.startsWith('/to-file/')) return redirect('file:///nonexistent');
    const to = /^\/to\/(\d+)(\/.*)$/.exec(path);
    if (to) return redirect(`http://localhost:${to[1]}${to[2]}`);
    const [, mode, name] = /^\/(?:(drip|flaky)\/)?([^/]+)$/.exec(path) ?? [];
    const body = files[name];
    if (body === undefined) {
      res.writeHead(404);
      return res.end();
    }
    if (mode === 'flaky' && !flaked.has(path)) {
      flaked.add(path);
      res.writeHead(503, { 'Retry-After': '0' });
      return res.end();
    }
    const m = /^bytes=(\d+)-(\d+)$/.exec(req.headers.range ?? '');
    if (m === null) {
      res.writeHead(200, { 'Content-Length': body.length, ETag: '"v1"' });
      return res.end(body);
    }
    const start = Number(m[1]);
    const end = Math.min(Number(m[2]), body.length - 1);
    const part = body.subarray(start, end + 1);
    res.writeHead(206, {
      'Content-Range': `bytes ${start}-${end}/${body.length}`,
      'Content-Length': part.length,
      ETag: '"v1"',
    });
    if (mode !== 'drip') return res.end(part);
    let sent = 0;
    const timer = setInterval(() => {
      if (sent < part.length) res.write(part.subarray(sent, ++sent));
      if (sent === part.length) res.end();
      if (sent === part.length || res.destroyed) {
        clearInterval(timer);
        drips.delete(timer);
      }
    }, 1000);
    drips.add(timer);
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    requests,
    close: () =>
      new Promise((resolve) => {
        for (const timer of drips) clearInterval(timer);
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
