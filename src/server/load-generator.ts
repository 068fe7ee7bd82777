import { WebSocket } from "ws";

/** One OpenEnv WebSocket session driven by the load generator: one frame in flight at a time. */
export class LoadSession {
  private waiting: ((frame: { type: string; data: Record<string, unknown> }) => void) | null = null;

  private constructor(private readonly socket: WebSocket) {
    socket.on("message", (data) => {
      const waiter = this.waiting;
      this.waiting = null;
      waiter?.(JSON.parse(data.toString()) as { type: string; data: Record<string, unknown> });
    });
  }

  /** Opens `ws://…/ws` of `baseUrl`; rejects when the handshake fails. */
  static open(baseUrl: string, timeoutMs = 30_000): Promise<LoadSession> {
    const socket = new WebSocket(`${baseUrl.replace(/^http/, "ws")}/ws`, { handshakeTimeout: timeoutMs, perMessageDeflate: false });
    return new Promise((resolve, reject) => {
      socket.once("open", () => resolve(new LoadSession(socket)));
      socket.once("error", reject);
      socket.once("unexpected-response", (_request, response) => reject(new Error(`handshake refused with HTTP ${response.statusCode}`)));
    });
  }

  /** Sends one frame and waits for its answer (milliseconds limit). */
  exchange(frame: unknown, timeoutMs = 30_000): Promise<{ type: string; data: Record<string, unknown> }> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiting = null;
        reject(new Error(`no answer within ${timeoutMs} ms`));
      }, timeoutMs);
      this.waiting = (answer) => {
        clearTimeout(timer);
        resolve(answer);
      };
      this.socket.send(JSON.stringify(frame));
    });
  }

  /** Closes the connection without waiting. */
  close(): void {
    this.socket.terminate();
  }
}

/** What a {@link driveSessions} run measured. */
export interface LoadResult {
  /** Steps answered with an observation. */
  readonly steps: number;
  /** Resets answered with an observation (episodes started). */
  readonly resets: number;
  /** Error frames and failed exchanges. */
  readonly errors: number;
  /** Step round trips, milliseconds. */
  readonly stepLatenciesMs: readonly number[];
  /** Wall time of the run, seconds. */
  readonly seconds: number;
}

/**
 * Opens `count` sessions, `parallel` handshakes at a time; stops at the first refusal and returns
 * the sessions opened so far (the number a server holds).
 */
export async function openSessions(baseUrl: string, count: number, parallel = 32): Promise<LoadSession[]> {
  const sessions: LoadSession[] = [];
  for (let start = 0; start < count; start += parallel) {
    const batch = await Promise.allSettled(Array.from({ length: Math.min(parallel, count - start) }, () => LoadSession.open(baseUrl)));
    for (const outcome of batch) if (outcome.status === "fulfilled") sessions.push(outcome.value);
    if (batch.some((outcome) => outcome.status === "rejected")) break;
  }
  return sessions;
}

/**
 * Drives every session for `seconds`, starting with the episode each has under way (the caller
 * reset them): steps with `action(index, turn)` until the episode is done, then the next reset
 * (`resetData(index, episode)`); all sessions at once, each
 * with one frame in flight, pausing `thinkMs` before each step (a trainer's generation time; 0 =
 * closed loop, the server's full throughput). Returns counts and the step round trips.
 */
export async function driveSessions(
  sessions: readonly LoadSession[],
  seconds: number,
  resetData: (index: number, episode: number) => Record<string, unknown>,
  action: (index: number, turn: number) => string,
  thinkMs = 0,
): Promise<LoadResult> {
  const latencies: number[] = [];
  let steps = 0;
  let resets = 0;
  let errors = 0;
  const started = performance.now();
  const deadline = started + seconds * 1000;
  await Promise.all(
    sessions.map(async (session, index) => {
      let episode = 0;
      while (performance.now() < deadline) {
        try {
          if (episode > 0) {
            const reset = await session.exchange({ type: "reset", data: resetData(index, episode) });
            if (reset.type !== "observation") {
              errors += 1;
              episode += 1;
              continue;
            }
            resets += 1;
          }
          episode += 1;
          let done = false;
          for (let turn = 0; !done && performance.now() < deadline; turn += 1) {
            if (thinkMs > 0) await new Promise((resolve) => setTimeout(resolve, thinkMs * (0.5 + Math.random())));
            const sent = performance.now();
            const answer = await session.exchange({ type: "step", data: { message: action(index, turn) } });
            if (answer.type !== "observation") {
              errors += 1;
              break;
            }
            latencies.push(performance.now() - sent);
            steps += 1;
            done = Boolean(answer.data.done);
          }
        } catch {
          errors += 1;
          return;
        }
      }
    }),
  );
  return { steps, resets, errors, stepLatenciesMs: latencies, seconds: (performance.now() - started) / 1000 };
}
