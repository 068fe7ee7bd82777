/** Tests take free ports from the same helper as the CLI. */
export { freePort } from "../support/free-port.js";
