/**
 * `@warden/daemon`: the `warden` CLI and the ingestion service. For embedding the service in another
 * program: build a `DaemonSpec` (by hand, or `FromConfig.specOf(await checkConfig(file))`) and run
 * `Daemon.layer(spec)` with `Layer.launch`.
 */
export * as AdminServer from "./admin/AdminServer.ts"
export * as Cli from "./cli/Main.ts"
export * as Config from "./config/index.ts"
export * as Daemon from "./Daemon.ts"
export * as FromConfig from "./FromConfig.ts"
