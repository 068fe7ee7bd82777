import { describe, expect, it } from "vitest";
import { envforgeCommand } from "./invocation.js";

describe("envforgeCommand", () => {
  it("names the checkout's script relative to the working folder when envforge is not on PATH", () => {
    expect(envforgeCommand("/work/envforge/bin/envforge.js", "/work/envforge", "/usr/bin:/bin")).toBe("./bin/envforge.js");
    expect(envforgeCommand("bin/envforge.js", "/work/envforge", "/usr/bin")).toBe("./bin/envforge.js");
    expect(envforgeCommand("/work/envforge/bin/envforge.js", "/work/envforge/runs", "/usr/bin")).toBe("/work/envforge/bin/envforge.js");
  });

  it("says envforge when it was started from npm's bin link on PATH", () => {
    expect(envforgeCommand("/usr/local/bin/envforge", "/home/me", "/usr/local/bin:/usr/bin")).toBe("envforge");
    // a script named envforge in a folder that is not on PATH is a path, not a command
    expect(envforgeCommand("/opt/tools/envforge", "/opt", "/usr/bin")).toBe("./tools/envforge");
  });

  it("quotes a path the shell would split", () => {
    expect(envforgeCommand("/home/me/my forge/bin/envforge.js", "/home/me/my forge", "")).toBe("./bin/envforge.js");
    expect(envforgeCommand("/home/me/it's here/bin/envforge.js", "/tmp", "")).toBe(`'/home/me/it'\\''s here/bin/envforge.js'`);
  });

  it("falls back to envforge without a script", () => {
    expect(envforgeCommand("", "/tmp", "")).toBe("envforge");
  });
});
