/**
 * The environment server (`envforge serve`): OpenEnv's wire protocol and envforge's `/v1`
 * routes over the sandbox, and typed clients for it.
 * @module
 */
export { startEnvironmentServer, type EnvironmentServer, type EnvironmentServerOptions, type EnvironmentServerStats, type ServeSettings } from "./environment-server.js";
export { EnvironmentCatalog, folderCatalog, readRunStore, runStoreCatalog, seedCatalog, storeCatalog, type EnvironmentFilter, type LineagePosition, type ServedEnvironment } from "./catalog.js";
export { EnvironmentServerClient, OpenEnvSessionClient, type ServerClientOptions } from "./client.js";
export { summarise, type EnvironmentSummary } from "./envforge-routes.js";
export type { PlayedEpisode, PlayedStep, Verification } from "./batch-episodes.js";
export {
  ActionSchema as OpenEnvActionSchema,
  ObservationSchema as OpenEnvObservationSchema,
  OPENENV_ERROR_CODES,
  ResetDataSchema as OpenEnvResetDataSchema,
  StateSchema as OpenEnvStateSchema,
  wireSchemas,
  type Action as OpenEnvAction,
  type ErrorData as OpenEnvErrorData,
  type Observation as OpenEnvObservation,
  type OpenEnvErrorCode,
  type State as OpenEnvState,
  type StepPayload as OpenEnvStepPayload,
} from "./openenv-wire.js";
export { PROBLEM_ANSWERS } from "./problems.js";
export { assertSafeBinding, authenticate, isLoopbackHost, readTokens } from "./access.js";
export { serveSandboxSettings } from "./serve-sandbox.js";
