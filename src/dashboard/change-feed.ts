import { statSync } from "node:fs";
import type { RunFolder } from "./run-folders.js";

/** Options of {@link ChangeFeed}. */
export interface ChangeFeedOptions {
  /** The folders to watch, read again on every poll (new runs appear). */
  readonly folders: () => readonly RunFolder[];
  /** Poll interval, milliseconds. @default 1000 */
  readonly intervalMs?: number;
  /** Called with the ids of the folders whose files changed since the last poll (a new or removed folder counts). */
  readonly onChange: (runIds: readonly string[]) => void;
}

/**
 * The state of a folder's files as size and modification time of the store, its write-ahead log
 * and `metrics.jsonl`: any write by a run changes at least one of them. Only `stat` is used, so
 * watching never opens, locks or creates anything in the folder.
 */
export function folderFingerprint(folder: RunFolder): string {
  return [folder.storePath, `${folder.storePath}-wal`, folder.metricsPath, folder.reportPath]
    .map((path) => {
      const stat = statSync(path, { throwIfNoEntry: false });
      return stat === undefined ? "-" : `${stat.size}:${stat.mtimeMs}`;
    })
    .join("|");
}

/**
 * Polls the folders' fingerprints and reports which changed: the source of the dashboard's
 * server-sent `change` events. Polling (not `fs.watch`) because SQLite's writes to a WAL file are
 * not reported reliably on every filesystem, and the interval bounds the cost.
 */
export class ChangeFeed {
  private readonly last = new Map<string, string>();
  private timer: NodeJS.Timeout | null = null;

  constructor(private readonly options: ChangeFeedOptions) {}

  /** Starts polling (idempotent); the first poll records the current state without reporting it. */
  start(): void {
    if (this.timer !== null) return;
    this.poll(false);
    this.timer = setInterval(() => this.poll(true), this.options.intervalMs ?? 1000);
    this.timer.unref();
  }

  /** Stops polling (idempotent). */
  stop(): void {
    if (this.timer !== null) clearInterval(this.timer);
    this.timer = null;
    this.last.clear();
  }

  /** Compares every folder with its last fingerprint; reports the changed ids when `report`. */
  poll(report = true): void {
    const changed: string[] = [];
    const present = new Set<string>();
    for (const folder of this.options.folders()) {
      present.add(folder.id);
      const fingerprint = folderFingerprint(folder);
      if (this.last.get(folder.id) !== fingerprint) changed.push(folder.id);
      this.last.set(folder.id, fingerprint);
    }
    for (const id of [...this.last.keys()]) {
      if (present.has(id)) continue;
      this.last.delete(id);
      changed.push(id);
    }
    if (report && changed.length > 0) this.options.onChange(changed);
  }
}
