import { createServer } from "node:net";

/**
 * A TCP port on 127.0.0.1 that was free a moment ago: `preferred` when nothing listens on it,
 * else one the OS picks (for a listener that is closed at once). Another process can take it
 * before the caller binds it; callers that must not talk to a stranger check who answers.
 * @param preferred the port wanted; 0 = any. @default 0
 */
export async function freePort(preferred = 0): Promise<number> {
  const listen = (wanted: number) =>
    new Promise<number | null>((resolve) => {
      const server = createServer();
      server.once("error", () => resolve(null));
      server.listen(wanted, "127.0.0.1", () => {
        const { port } = server.address() as { port: number };
        server.close(() => resolve(port));
      });
    });
  const port = (preferred === 0 ? null : await listen(preferred)) ?? (await listen(0));
  if (port === null) throw new Error("no free TCP port on 127.0.0.1");
  return port;
}
