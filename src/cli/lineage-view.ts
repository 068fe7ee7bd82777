import { ConfigError, type DifficultyBreakdown, type LineageRecord, type Store } from "../spec/index.js";
import type { FunnelDecision, LineageOutcome } from "../core/evolution/index.js";

const difficultyText = (difficulty: DifficultyBreakdown) =>
  `D=${difficulty.total.toFixed(2)} (L ${difficulty.length} + σ ${difficulty.scenarioSurprise.toFixed(2)} + κ ${difficulty.skillSurprise.toFixed(2)})`;

/**
 * Finds a lineage by id, by unique id prefix, or by seed name.
 * @throws ConfigError naming the known lineages when none or several match
 */
export function findLineage(store: Store, query: string): LineageRecord {
  const lineages = store.listLineages();
  const exact = lineages.find((lineage) => lineage.id === query || lineage.seedName === query);
  if (exact !== undefined) return exact;
  const matches = lineages.filter((lineage) => lineage.id.startsWith(query));
  if (matches.length === 1) return matches[0] as LineageRecord;
  const known = lineages.map((lineage) => lineage.id).join(", ") || "(none)";
  throw new ConfigError(`${matches.length === 0 ? "no" : "more than one"} lineage matches "${query}"; lineages in ${store.location}: ${known}`);
}

/**
 * The tree of one lineage for `envforge lineage show`: the seed, then each
 * generation indented under its parent with direction, effort, difficulty and
 * validations, then the attempts by outcome.
 */
export function formatLineage(store: Store, lineage: LineageRecord): string {
  const lines = [`${lineage.id}`, `seed ${lineage.seedName} ${lineage.seedId}  ${difficultyText(lineage.difficulty)}  sequence from ${lineage.sequence.source}`];
  const names = new Map(store.listEnvironments().map((record) => [record.id, record.package.manifest.name]));
  store.listGenerations(lineage.id).forEach((generation, index) => {
    const checks = generation.validations.map((verdict) => `${verdict.gate} ${verdict.status === "pass" ? "✓" : "✗"}`).join(" ");
    lines.push(
      `${"   ".repeat(index)}└─ g${generation.generation} ${names.get(generation.environmentId) ?? "?"} ${generation.environmentId}  ${generation.direction}/${generation.effort}  ${difficultyText(generation.difficulty)}  ${checks}`,
    );
    lines.push(`${"   ".repeat(index + 1)}plan: ${generation.plan.summary.replace(/\s+/g, " ").slice(0, 160)}`);
  });
  const attempts = store.listEvolutionAttempts(lineage.id);
  const counts = new Map<string, number>();
  for (const attempt of attempts) counts.set(attempt.outcome, (counts.get(attempt.outcome) ?? 0) + 1);
  lines.push(`attempts: ${attempts.length}${attempts.length === 0 ? "" : ` (${[...counts].map(([outcome, count]) => `${outcome} ${count}`).join(", ")})`}`);
  for (const attempt of attempts.filter((item) => item.outcome !== "validated").slice(-3)) {
    const last = [...attempt.modification.flatMap((round) => round.verdicts), ...attempt.planning.map((round) => round.review), ...attempt.admission].filter((verdict) => verdict.status === "reject").at(-1);
    const why = last?.status === "reject" ? `${last.gate}/${last.reason}: ${last.message.replace(/\s+/g, " ").slice(0, 120)}` : "";
    lines.push(`  g${attempt.generation} attempt ${attempt.attempt + 1} ${attempt.direction}/${attempt.effort}: ${attempt.outcome} ${why}`);
  }
  return lines.join("\n");
}

/** The summary printed at the end of `envforge evolve`. */
export function formatEvolutionSummary(
  store: Store,
  outcomes: readonly LineageOutcome[],
  details: { model: string; out: string; seconds: number; funnel: readonly FunnelDecision[] | null },
): string {
  const lines = [`envforge evolve summary (model ${details.model}, ${Math.round(details.seconds)}s)`];
  if (details.funnel !== null) lines.push(`seed funnel: ${details.funnel.filter((decision) => decision.kept).length} of ${details.funnel.length} candidates kept`);
  const lineages = new Map(store.listLineages().map((lineage) => [lineage.id, lineage]));
  for (const outcome of outcomes) {
    const lineage = lineages.get(outcome.lineageId);
    const generations = store.listGenerations(outcome.lineageId);
    const attempts = store.listEvolutionAttempts(outcome.lineageId);
    const last = generations.at(-1);
    const difficulty = lineage === undefined ? "" : ` D ${lineage.difficulty.total.toFixed(2)}${last === undefined ? "" : ` → ${last.difficulty.total.toFixed(2)}`}`;
    lines.push(`${outcome.lineageId}: ${outcome.generations} generation(s) validated, ${outcome.status}; ${attempts.length} attempt(s);${difficulty}`);
  }
  const total = outcomes.reduce((sum, outcome) => sum + outcome.generations, 0);
  lines.push(`${total} generation(s) validated across ${outcomes.length} lineage(s).`);
  if (total === 0 && outcomes.length > 0) lines.push("No generation was validated: small models rarely write a working child and oracle; see `envforge lineage show ID` and try a larger --model.");
  lines.push(`store: ${store.location.endsWith(".db") ? `${details.out}/envforge.db` : store.location}  lineages: ${details.out}/lineages.json`);
  return lines.join("\n");
}
