import { describe, expect, it } from "vitest";
import { hintReadings, numberWordsAsDigits, spacedDigitsJoined } from "./hint-readings.js";

describe("hint readings", () => {
  it("writes number words as digits", () => {
    expect(numberWordsAsDigits("The answer is forty-two.")).toBe("The answer is 42.");
    expect(numberWordsAsDigits("four thousand one hundred seventy-two")).toBe("4172");
    expect(numberWordsAsDigits("One hundred and five sheep")).toBe("105 sheep");
    expect(numberWordsAsDigits("twelve thousand and twelve")).toBe("12012");
    expect(numberWordsAsDigits("Ninety nine")).toBe("99");
  });

  it("starts a new number where a word cannot continue the one before", () => {
    expect(numberWordsAsDigits("four one seven two")).toBe("4 1 7 2");
    expect(numberWordsAsDigits("four, one, seven, two")).toBe("4, 1, 7, 2");
    expect(numberWordsAsDigits("twenty thirty")).toBe("20 30");
  });

  it("keeps text that holds no number words, and words that only look like parts of numbers", () => {
    expect(numberWordsAsDigits("Add the numbers carefully and check.")).toBe("Add the numbers carefully and check.");
    expect(numberWordsAsDigits("a hundred ways")).toBe("a hundred ways");
    expect(numberWordsAsDigits("someone")).toBe("someone");
  });

  it("joins runs of single digits separated by spaces or punctuation", () => {
    expect(spacedDigitsJoined("the total is 2 5 5, for example")).toBe("the total is 255, for example");
    expect(spacedDigitsJoined("code 4-1-7-2 or 4.1.7.2 or 4, 1, 7, 2")).toBe("code 4172 or 4172 or 4172");
    expect(spacedDigitsJoined("add 12 and 34")).toBe("add 12 and 34");
    expect(spacedDigitsJoined("pick 4 17 2")).toBe("pick 4 17 2");
    // a short comma list is a list, not a spelled-out number
    expect(spacedDigitsJoined("sizes 2, 4 and 8")).toBe("sizes 2, 4 and 8");
  });

  it("lists each distinct reading once", () => {
    expect(hintReadings("Add carefully.").map((reading) => reading.kind)).toEqual(["as_written"]);
    expect(hintReadings("four one seven two")).toEqual([
      { kind: "as_written", text: "four one seven two" },
      { kind: "number_words", text: "4 1 7 2" },
      // spoken digit groups joined; the spaced-digits reading ("4172" too) is the same text and left out
      { kind: "number_words", text: "4172" },
    ]);
    expect(numberWordsAsDigits("It is eight twenty-three, or two or three.", { joinGroups: true })).toBe("It is 823, or 2 or 3.");
  });
});
