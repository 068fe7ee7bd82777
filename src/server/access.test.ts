import { describe, expect, it } from "vitest";
import { ConfigError } from "../spec/index.js";
import { assertSafeBinding, authenticate, isLocalRequest, isLoopbackHost, readTokens } from "./access.js";

const TOKEN = "0123456789abcdef-token";

describe("server access", () => {
  it("tells loopback addresses from others", () => {
    for (const host of ["127.0.0.1", "127.5.6.7", "::1", "[::1]", "localhost", "0:0:0:0:0:0:0:1", "::ffff:127.0.0.1"]) expect(isLoopbackHost(host), host).toBe(true);
    for (const host of ["0.0.0.0", "::", "10.0.0.1", "192.168.1.2", "example.com", "128.0.0.1"]) expect(isLoopbackHost(host), host).toBe(false);
  });

  it("refuses a non-loopback binding without tokens, and allows it with one", () => {
    expect(() => assertSafeBinding("0.0.0.0", [], "ENVFORGE_SERVE_TOKEN")).toThrow(ConfigError);
    expect(() => assertSafeBinding("0.0.0.0", [TOKEN], "ENVFORGE_SERVE_TOKEN")).not.toThrow();
    expect(() => assertSafeBinding("127.0.0.1", [], "ENVFORGE_SERVE_TOKEN")).not.toThrow();
  });

  it("reads comma-separated tokens and refuses short ones", () => {
    expect(readTokens({ T: ` ${TOKEN}, ${TOKEN}-2 ,` }, "T")).toEqual([TOKEN, `${TOKEN}-2`]);
    expect(readTokens({}, "T")).toEqual([]);
    expect(() => readTokens({ T: "short" }, "T")).toThrow(ConfigError);
  });

  it("accepts Bearer and Basic (token as password) and nothing else", () => {
    expect(authenticate(`Bearer ${TOKEN}`, [TOKEN])).toBe(TOKEN);
    expect(authenticate(`basic ${Buffer.from(`anyone:${TOKEN}`).toString("base64")}`, [TOKEN])).toBe(TOKEN);
    expect(authenticate(`Bearer ${TOKEN}x`, [TOKEN])).toBeNull();
    expect(authenticate(`Token ${TOKEN}`, [TOKEN])).toBeNull();
    expect(authenticate(undefined, [TOKEN])).toBeNull();
    expect(authenticate("Bearer", [TOKEN])).toBeNull();
  });
});

describe("isLocalRequest (tokenless servers answer only this machine's clients)", () => {
  it("accepts loopback Host headers without a foreign Origin", () => {
    expect(isLocalRequest({ host: "127.0.0.1:8000" })).toBe(true);
    expect(isLocalRequest({ host: "localhost:8000", origin: "http://localhost:8000" })).toBe(true);
    expect(isLocalRequest({ host: "127.0.0.1", origin: "http://127.0.0.1:80" })).toBe(true);
    expect(isLocalRequest({ host: "[::1]:8000" })).toBe(true);
  });

  it("refuses a DNS-rebound Host, a foreign or opaque Origin, and a missing Host", () => {
    expect(isLocalRequest({ host: "attacker.example:8000" })).toBe(false);
    expect(isLocalRequest({ host: "127.0.0.1:8000", origin: "https://evil.example" })).toBe(false);
    expect(isLocalRequest({ host: "127.0.0.1:8000", origin: "null" })).toBe(false);
    // a page another local server serves (another port) is another origin: it cannot drive a tokenless server (issue 34)
    expect(isLocalRequest({ host: "localhost:8000", origin: "http://localhost:3000" })).toBe(false);
    expect(isLocalRequest({ host: "127.0.0.1:8000", origin: "http://127.0.0.1:5173" })).toBe(false);
    expect(isLocalRequest({})).toBe(false);
    expect(isLocalRequest({ host: "::::" })).toBe(false);
  });
});

