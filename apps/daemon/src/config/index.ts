/**
 * The daemon's configuration file: schema, loading, secret references, JSON Schema.
 */
export { toApiConfigInput } from "./ApiInput.ts"
export { ConfigError, type ConfigProblem, formatLocated, formatProblem } from "./ConfigError.ts"
export * as ConfigJsonSchema from "./ConfigJsonSchema.ts"
export { DaemonConfig } from "./DaemonConfig.ts"
export * as Connectors from "./Connectors.ts"
export { type Checked, checkConfig, loadConfig, type Options as LoadOptions } from "./LoadConfig.ts"
export * as SecretRef from "./SecretRef.ts"
export * from "./WardenConfig.ts"
