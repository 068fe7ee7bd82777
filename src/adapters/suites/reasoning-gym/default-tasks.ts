/**
 * The default tasks of `envforge eval --suite rg`: the 20 fastest Reasoning Gym tasks for a
 * small model on a CPU, five per SPADE bucket. "Fastest" = shortest questions at default
 * parameters (prompt tokens dominate the embedded model's time), among tasks whose two items
 * generate in under 50 ms; measured on reasoning-gym 0.1.25 (mean question characters:
 * basic_arithmetic 18, simple_equations 29, complex_arithmetic 56, lcm 61, chain_sum 69;
 * spell_backward 54, count_primes 74, sentence_reordering 86, letter_counting 92,
 * number_filtering 126; number_sequence 17, maze 286, color_cube_rotation 380, mini_sudoku 383,
 * tsumego 422; syllogism 162, aiw 324, knights_knaves 415, propositional_logic 479,
 * circuit_logic 506). `--tasks all` runs every task in the bucket table instead.
 */
export const DEFAULT_REASONING_GYM_TASKS: readonly string[] = [
  "basic_arithmetic", "simple_equations", "complex_arithmetic", "lcm", "chain_sum",
  "spell_backward", "count_primes", "sentence_reordering", "letter_counting", "number_filtering",
  "number_sequence", "maze", "color_cube_rotation", "mini_sudoku", "tsumego",
  "syllogism", "aiw", "knights_knaves", "propositional_logic", "circuit_logic",
];
