import { describe, expect, it } from "vitest";
import { infoDepth } from "./zygote-session.js";

describe("infoDepth", () => {
  it("counts nesting of objects and arrays; scalars are depth 0", () => {
    expect(infoDepth(3, 16)).toBe(0);
    expect(infoDepth({}, 16)).toBe(1);
    expect(infoDepth({ a: [1, { b: "x" }] }, 16)).toBe(3);
  });

  it("handles a million-element array and a deep chain without recursion", () => {
    expect(infoDepth({ list: Array.from({ length: 1_000_000 }, (_, index) => index) }, 16)).toBe(2);
    let deep: unknown = {};
    for (let level = 0; level < 100_000; level += 1) deep = { a: deep };
    expect(infoDepth(deep, 16)).toBe(17);
  });
});
