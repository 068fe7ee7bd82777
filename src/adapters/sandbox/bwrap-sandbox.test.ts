import { sandboxContract } from "./sandbox.contract.js";
import { BwrapSandbox } from "./bwrap-sandbox.js";

sandboxContract("bwrap", () => new BwrapSandbox({ limits: { callTimeoutMs: 2000, memoryBytes: 512 * 1024 * 1024 } }));
