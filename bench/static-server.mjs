// A small, fast static file server (keep-alive, files cached in memory) so the benchmark measures
// the tools, not a slow server. Usage: node static-server.mjs PORT ROOT
import http from 'node:http';
import fs from 'node:fs';
import path from 'node:path';

const port = process.argv[2];
const root = path.resolve(process.argv[3]);
const types = { '.html': 'text/html; charset=utf-8', '.js': 'application/javascript', '.css': 'text/css',
  '.json': 'application/json', '.png': 'image/png', '.svg': 'image/svg+xml', '.ico': 'image/x-icon' };
const cache = new Map();
http.createServer((req, res) => {
  let rel = decodeURIComponent(new URL(req.url, 'http://x').pathname);
  let file = path.join(root, rel);
  if (!file.startsWith(root)) { res.writeHead(403).end(); return; }
  try {
    if (fs.statSync(file).isDirectory()) file = path.join(file, 'index.html');
    let body = cache.get(file);
    if (!body) { body = fs.readFileSync(file); cache.set(file, body); }
    res.writeHead(200, { 'content-type': types[path.extname(file)] || 'application/octet-stream',
      'content-length': body.length, 'cache-control': 'no-store' });
    res.end(body);
  } catch {
    res.writeHead(404, { 'content-length': 9 }).end('not found');
  }
}).listen(Number(port), '127.0.0.1');
