import type { EvaluationReport } from "../core/admission/index.js";
import type { Verdict } from "../spec/index.js";
import { escapeControlCharacters, terminalJson } from "./terminal-text.js";

/** The `--json` output of `envforge admit PATH`. */
export interface AdmitJson {
  readonly admitted: boolean;
  readonly gate: string | null;
  readonly reason: string | null;
  readonly message: string;
  readonly timingsMs: Readonly<Record<string, number>>;
}

/**
 * Writes one admission's outcome (environment program or terminal task): `--json` as
 * {@link AdmitJson}, else a line naming the gate and reason (control characters escaped: the
 * message quotes the candidate) and the gates' timings. Returns the exit code: 0 admitted, 1 rejected.
 */
export function writeAdmission(result: { readonly admitted: boolean; readonly verdicts: readonly Verdict[]; readonly timingsMs: Readonly<Record<string, number>> }, json: boolean | undefined, write: (text: string) => void): number {
  const last = result.verdicts.at(-1);
  const rejected = last?.status === "reject" ? last : null;
  const output: AdmitJson = {
    admitted: result.admitted,
    gate: rejected?.gate ?? null,
    reason: rejected?.reason ?? null,
    message: rejected?.message ?? `admitted by ${result.verdicts.map((verdict) => verdict.gate).join(", ")}`,
    timingsMs: result.timingsMs,
  };
  if (json) {
    write(`${terminalJson(output)}\n`);
  } else {
    const timings = Object.entries(result.timingsMs).map(([gate, ms]) => `${gate} ${Math.round(ms)} ms`).join(", ");
    write(`${result.admitted ? "admitted" : `rejected by ${output.gate} (${output.reason})`}: ${escapeControlCharacters(output.message)}\n  ${timings}\n`);
  }
  return result.admitted ? 0 : 1;
}

/**
 * Writes an `admit --eval` report (`--json` as the report; else detection per gate, misses and
 * false rejections, control characters escaped). `noun` names what the fixtures are. Returns the
 * exit code: 0 on full detection without false rejections, else 1.
 */
export function writeEvaluationReport(report: EvaluationReport, json: boolean | undefined, write: (text: string) => void, noun = "broken fixtures"): number {
  if (json) {
    write(`${terminalJson(report)}\n`);
  } else {
    write(`${report.detected} of ${report.fixtures} ${noun} detected by their labelled gate; ${report.falseRejections.length} false rejections; ${report.skipped.length} skipped\n`);
    for (const [gate, counts] of Object.entries(report.perGate)) write(`  ${gate}: ${counts.detected}/${counts.expected}\n`);
    for (const miss of report.missed) write(escapeControlCharacters(`  missed ${miss.fixture}: expected ${miss.expected}, got ${miss.got}`) + "\n");
    for (const wrong of report.falseRejections) write(escapeControlCharacters(`  false rejection ${wrong.fixture}: ${wrong.gate}/${wrong.reason}: ${wrong.message}`) + "\n");
  }
  return report.detected === report.fixtures && report.falseRejections.length === 0 ? 0 : 1;
}
