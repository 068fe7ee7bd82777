import { createServer } from "node:net";

/**
 * A TCP port on 127.0.0.1 that was free a moment ago (the OS picks it for a
 * listener that is closed at once), for tests that start a server on a fixed port.
 * Another process can take it before the caller binds it; tests accept that race.
 */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}
