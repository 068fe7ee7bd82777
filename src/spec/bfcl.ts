/**
 * A BFCL v4 multi-turn entry (the Berkeley Function Calling Leaderboard's `multi_turn_*` data, played
 * through envforge's BFCL bridge, docs/bfcl.md): its id (e.g. `multi_turn_base_0`), its category
 * (`multi_turn_base`, `multi_turn_miss_func`, `multi_turn_miss_param`, `multi_turn_long_context`) and
 * the number of its user turns.
 */
export interface BfclEntry {
  readonly id: string;
  readonly category: string;
  readonly turns: number;
}
