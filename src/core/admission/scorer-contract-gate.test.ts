import { describe, expect, it } from "vitest";
import { perturbAnswer, WHOLE_RANGE_LIMIT } from "./scorer-contract-gate.js";

describe("perturbAnswer", () => {
  it("changes one token, swaps the type, re-encodes the format and hides the answer among decoys", () => {
    expect(perturbAnswer("Answer: 255")).toEqual({
      token_changed: "Answer: 256",
      wrong_type: "null",
      wrong_format: "Answer: MjU1",
      extra_text: "My first thought: Answer: 256\nFinal answer: Answer: 255\nOn second thought: Answer: 257",
      neighbour_values: "Answer: 254 255 256",
      candidate_tokens: "Answer: 258 255 262",
      whole_range: `Answer: ${Array.from({ length: 1000 }, (_, value) => value).join(" ")}`,
    });
  });

  it("keeps the digit count and shifts letters of word answers", () => {
    expect(perturbAnswer("Guess: 9999").token_changed).toBe("Guess: 0000");
    expect(perturbAnswer("Guess: 0999").token_changed).toBe("Guess: 1000");
    expect(perturbAnswer("inc").token_changed).toBe("ind");
    expect(perturbAnswer("inc").wrong_type).toBe("0");
  });

  it("builds candidate lists in the answer's own format: label, separator, width", () => {
    expect(perturbAnswer("Code: 0417").neighbour_values).toBe("Code: 0416 0417 0418");
    expect(perturbAnswer("Code: 0417").whole_range?.split(" ").slice(0, 3)).toEqual(["Code:", "0000", "0001"]);
    expect(perturbAnswer("Code: 0417").whole_range?.split(" ")).toHaveLength(1 + WHOLE_RANGE_LIMIT);
    expect(perturbAnswer("Answer: 3, 7, 9").neighbour_values).toBe("Answer: 3, 7, 8, 9, 10");
    expect(perturbAnswer("Answer: 0").neighbour_values).toBe("Answer: 0 1");
    expect(perturbAnswer("42").neighbour_values).toBe("41 42 43");
    expect(perturbAnswer("paris").candidate_tokens).toBe("pariv paris pariz");
    expect(perturbAnswer("Answer: 3, 7").candidate_tokens).toBe("Answer: 3, 0, 3, 7, 3, 4");
  });

  it("leaves out the number lists where the answer has no number, and the whole range past four digits", () => {
    expect(perturbAnswer("open vault").neighbour_values).toBeUndefined();
    expect(perturbAnswer("open vault").whole_range).toBeUndefined();
    expect(perturbAnswer("Answer: 12345").whole_range).toBeUndefined();
    expect(perturbAnswer("Answer: 3 7").whole_range).toBeUndefined();
  });
});
