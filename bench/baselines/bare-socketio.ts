/**
 * Baseline for event delivery: node:http + Socket.IO and nothing else. `POST /emit` with a JSON
 * body emits it to every socket as `bench_event` and answers 200. With BENCH_REDIS_URL the
 * server joins its siblings through @socket.io/redis-adapter (as Parley's web nodes do).
 * Listens on PORT; prints "ready".
 */
import { createServer } from 'node:http';
import { Redis } from 'ioredis';
import { Server } from 'socket.io';
import { createAdapter } from '@socket.io/redis-adapter';

const server = createServer();
const io = new Server(server, { transports: ['websocket'] });
const redisUrl = process.env.BENCH_REDIS_URL;
if (redisUrl) {
  const pub = new Redis(redisUrl);
  io.adapter(createAdapter(pub, pub.duplicate(), { key: 'bench:bare' }));
}
server.on('request', (req, res) => {
  if (req.url?.startsWith('/socket.io')) return;
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    io.emit('bench_event', JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}'));
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end('{}');
  });
});
server.listen(Number(process.env.PORT), '127.0.0.1', () => console.log('ready'));
process.on('SIGTERM', () => {
  io.close();
  process.exit(0);
});
