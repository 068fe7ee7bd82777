import { describe, expect, it } from "vitest";
import { perturbAnswer } from "./scorer-contract-gate.js";

describe("perturbAnswer", () => {
  it("changes one token, swaps the type, re-encodes the format and hides the answer among decoys", () => {
    expect(perturbAnswer("Answer: 255")).toEqual({
      token_changed: "Answer: 256",
      wrong_type: "null",
      wrong_format: "Answer: MjU1",
      extra_text: "My first thought: Answer: 256\nFinal answer: Answer: 255\nOn second thought: Answer: 257",
    });
  });

  it("keeps the digit count and shifts letters of word answers", () => {
    expect(perturbAnswer("Guess: 9999").token_changed).toBe("Guess: 0000");
    expect(perturbAnswer("Guess: 0999").token_changed).toBe("Guess: 1000");
    expect(perturbAnswer("inc").token_changed).toBe("ind");
    expect(perturbAnswer("inc").wrong_type).toBe("0");
  });
});
