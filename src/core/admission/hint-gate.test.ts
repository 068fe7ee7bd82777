import { describe, expect, it } from "vitest";
import { answerValue, hintContainsAnswer, secretCandidates } from "./hint-gate.js";

describe("hint leak checks", () => {
  it("finds the answer literally, as a whole word, or normalised", () => {
    expect(hintContainsAnswer("The code is 4172.", "Code: 4172")).toBe("literal");
    expect(hintContainsAnswer("Remember 4-1-7-2 from the sign.", "Code: 4172")).toBe("spaced_digits");
    expect(hintContainsAnswer("Remember 4~1~7~2 from the sign.", "Code: 4172")).toBe("normalised");
    expect(hintContainsAnswer("Try 41720 first.", "Code: 4172")).toBe("normalised");
    expect(hintContainsAnswer("Up to 1000 numbers.", "Guess: 100")).toBeNull();
    expect(hintContainsAnswer("Think of seven.", "7")).toBeNull();
  });

  it("finds answers in number words, spaced digits and reversed", () => {
    expect(hintContainsAnswer("The sign reads four thousand one hundred seventy-two.", "Code: 4172")).toBe("number_words");
    expect(hintContainsAnswer("For the first room it is forty-two.", "Answer: 42")).toBe("number_words");
    expect(hintContainsAnswer("Remember: four, one, seven, two.", "Code: 4172")).toBe("spaced_digits");
    expect(hintContainsAnswer("In the first room the total comes to 2 5 5.", "Answer: 255")).toBe("spaced_digits");
    expect(hintContainsAnswer("The sign is written backwards: 2714.", "Code: 4172")).toBe("reversed");
    expect(hintContainsAnswer("Say it backwards: tluav nepo.", "open vault")).toBe("reversed");
    // a reversed word inside another word is no leak
    expect(hintContainsAnswer("The courier will deliver the package.", "evil")).toBeNull();
    expect(hintContainsAnswer("Try the sizes 2, 4 and 8 first.", "24")).toBeNull();
  });

  it("finds a number answer with a unit after it, and spoken digit groups (issue 34)", () => {
    expect(hintContainsAnswer("The parcel weighs 823g.", "Answer: 823")).toBe("literal");
    expect(hintContainsAnswer("Use 0.5kg of flour.", "0.5")).toBe("literal");
    expect(hintContainsAnswer("It is eight twenty-three.", "Answer: 823")).toBe("number_words");
    expect(hintContainsAnswer("The year was nineteen eighty-four.", "1984")).toBe("number_words");
    // digits inside a longer number, or after letters (an identifier), are no leak
    expect(hintContainsAnswer("Use int32 arithmetic.", "32")).toBeNull();
    expect(hintContainsAnswer("Up to 1.823 per item.", "823")).toBeNull();
    expect(hintContainsAnswer("Pick two or three of them.", "23")).toBeNull();
  });

  it("does not flag hints that only share short digits or ordinary words with the answer", () => {
    expect(hintContainsAnswer("Add the five numbers in pairs and carry the tens.", "Answer: 255")).toBeNull();
    expect(hintContainsAnswer("Split 4 ways, then 2 more.", "Answer: 42")).toBeNull();
    expect(hintContainsAnswer("Binary search: always guess the middle of the interval.", "Guess: 500")).toBeNull();
  });

  it("takes the value after a short label", () => {
    expect(answerValue("Answer: 255")).toBe("255");
    expect(answerValue("open vault")).toBe("open vault");
  });

  it("ignores actions made only of words the agent is shown", () => {
    const wins = [
      { seed: 0, actions: ["look", "enter 4711", "open vault"] },
      { seed: 1, actions: ["up", "Guess: 1122"] },
    ];
    const shown = "Commands: look, open <thing>, enter <code>. The vault is locked. Moves: up, down. Example: 'Guess: 1122'.";
    expect(secretCandidates(wins, shown)).toEqual([{ seed: 0, value: "enter 4711" }]);
  });
});
