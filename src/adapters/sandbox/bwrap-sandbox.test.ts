import { sandboxContract } from "./sandbox.contract.js";
import { BwrapSandbox } from "./bwrap-sandbox.js";

sandboxContract("bwrap", (limits) => new BwrapSandbox({ limits }));
