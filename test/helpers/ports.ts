/** Ports for tests that need "nothing answers there" (an unreachable platform or server). */
import { createServer, type AddressInfo } from 'node:net';

/** A port on 127.0.0.1 that nothing listens on: bound for a moment, then released. */
export async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
