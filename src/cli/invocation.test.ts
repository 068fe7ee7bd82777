import { describe, expect, it } from "vitest";
import { envforgeCommand, resumeCommand } from "./invocation.js";

const checkout = { cwd: "/work/envforge", pathVariable: "/usr/bin:/bin", npmScript: undefined };

describe("envforgeCommand", () => {
  it("names the checkout's script relative to the working folder when envforge is not on PATH", () => {
    expect(envforgeCommand({ ...checkout, script: "/work/envforge/bin/envforge.js" })).toBe("./bin/envforge.js");
    expect(envforgeCommand({ ...checkout, script: "bin/envforge.js" })).toBe("./bin/envforge.js");
    expect(envforgeCommand({ ...checkout, cwd: "/work/envforge/runs", script: "/work/envforge/bin/envforge.js" })).toBe("/work/envforge/bin/envforge.js");
  });

  it("says envforge when it was started from npm's bin link on PATH", () => {
    expect(envforgeCommand({ script: "/usr/local/bin/envforge", cwd: "/home/me", pathVariable: "/usr/local/bin:/usr/bin", npmScript: undefined })).toBe("envforge");
    // a script named envforge in a folder that is not on PATH is a path, not a command
    expect(envforgeCommand({ script: "/opt/tools/envforge", cwd: "/opt", pathVariable: "/usr/bin", npmScript: undefined })).toBe("./tools/envforge");
  });

  it("says npx envforge for a project's local install, which npx put on PATH for itself only", () => {
    const script = "/home/me/proj/node_modules/.bin/envforge";
    expect(envforgeCommand({ script, cwd: "/home/me/proj", pathVariable: "/home/me/proj/node_modules/.bin:/usr/bin", npmScript: undefined })).toBe("npx envforge");
  });

  it("says npm run envforge -- when npm's script started it", () => {
    expect(envforgeCommand({ ...checkout, script: "/work/envforge/bin/envforge.js", npmScript: "envforge" })).toBe("npm run envforge --");
  });

  it("quotes a path the shell would split", () => {
    expect(envforgeCommand({ script: "/home/me/my forge/bin/envforge.js", cwd: "/home/me/my forge", pathVariable: "", npmScript: undefined })).toBe("./bin/envforge.js");
    expect(envforgeCommand({ script: "/home/me/it's here/bin/envforge.js", cwd: "/tmp", pathVariable: "", npmScript: undefined })).toBe(`'/home/me/it'\\''s here/bin/envforge.js'`);
  });

  it("falls back to envforge without a script", () => {
    expect(envforgeCommand({ script: "", cwd: "/tmp", pathVariable: "", npmScript: undefined })).toBe("envforge");
  });
});

describe("resumeCommand", () => {
  it("gives the run folder absolute and quoted, so the command works from any folder", () => {
    const invocation = { ...checkout, script: "/work/envforge/bin/envforge.js" };
    expect(resumeCommand("run", "runs/run-1", invocation)).toBe("./bin/envforge.js run --resume --out /work/envforge/runs/run-1");
    expect(resumeCommand("evolve", "/tmp/x y/evolve", invocation)).toBe("./bin/envforge.js evolve --resume --out '/tmp/x y/evolve'");
  });
});
