/** `@warden/daemon`: the `warden` CLI and the ingestion service. */
export * as Cli from "./cli/Main.ts"
