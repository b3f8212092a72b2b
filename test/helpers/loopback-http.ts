import { createServer, type RequestListener } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export interface LoopbackHttp {
  readonly url: string;
  /** Connections accepted so far. */
  connections(): number;
  /** Destroys every open connection (a test's sockets do not leak into the next). */
  dropConnections(): void;
  close(): Promise<void>;
}

/** A plain HTTP server on 127.0.0.1 (port 0) whose connections are counted and can be dropped. */
export async function startLoopbackHttp(handler: RequestListener): Promise<LoopbackHttp> {
  const sockets = new Set<Socket>();
  let connections = 0;
  const server = createServer(handler);
  server.on('connection', (socket) => {
    connections += 1;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const dropConnections = () => {
    for (const socket of sockets) socket.destroy();
  };
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    connections: () => connections,
    dropConnections,
    close: async () => {
      dropConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
